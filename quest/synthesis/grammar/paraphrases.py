"""Correct answers in other words: one class per option of each paraphrase axis.

Every class changes one axis away from the grammar's default answer (which is itself written in
the grammar's own words, not the reference's); extra instances of a class (`per_class`) also vary
the relation wording, so a class is never a single fixed string.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from quest.synthesis.grammar.material import Material, material_of
from quest.synthesis.grammar.model import GrammarAnswer, rng_for
from quest.synthesis.grammar.render import Style
from quest.synthesis.grammar.writer import write

# (axis, variant, the default answer with that one option changed)
AXES: tuple[tuple[str, str, Style], ...] = (
    *(("lexicon", f"t{i}", Style(template=i)) for i in range(5)),
    *(("shape", s, Style(shape=s)) for s in ("pronoun", "apposition", "bullets", "table", "dash")),
    *(("number", n, Style(number=n)) for n in ("plain", "thin", "narrow", "words")),
    *(
        ("name", n, Style(name=n))
        for n in ("lower", "upper", "fold", "accent", "the", "short", "alias")
    ),
    *(("url", u, Style(url=u)) for u in ("query", "fragment", "slash", "http", "mobile", "inline")),
    *(
        ("line", form, Style(line=form))
        for form in ("bold", "fullwidth", "table", "answer_bold", "period", "unit", "refs_first")
    ),
    ("length", "20k", Style(pad=20_000)),
    ("length", "120k", Style(pad=120_000)),
)


def paraphrase_classes() -> list[str]:
    return [f"para:{axis}:{variant}" for axis, variant, _ in AXES]


def paraphrases(
    record: Mapping[str, Any], *, seed: int = 0, per_class: int | None = None
) -> list[GrammarAnswer]:
    """Correct rewordings of `record`'s answer, each labelled right with ceiling 1."""
    material = material_of(record)
    plain = write(material).text()
    out: list[GrammarAnswer] = []
    for axis, variant, option in AXES:
        rng = rng_for(seed, axis, variant, material.question)
        for turn in range(per_class or 1):
            style = option if turn == 0 else _varied(option, axis, rng)
            text = _text(material, style)
            if text is None or (text == plain and axis != "lexicon"):
                continue
            out.append(GrammarAnswer(f"para:{axis}:{variant}", axis, variant, text, "right", 1.0))
    return out


def _varied(style: Style, axis: str, rng: random.Random) -> Style:
    """Another instance of the same class: the relation wording (or, for the lexicon axis, the
    sentence shape) changes too."""
    if axis == "lexicon":
        return replace(style, shape=rng.choice(("sentence", "pronoun", "apposition")))
    return replace(style, template=rng.randrange(5))


def _text(material: Material, style: Style) -> str | None:
    """The answer in `style`, or None where the option does not apply to this task."""
    if style.line == "refs_first":
        doc = write(material, replace(style, line="plain"))
        return replace(doc, refs_first=True).text()
    doc = write(material, style)
    if style.line == "unit" and doc.line.endswith(material.answer):
        return None
    return doc.text()
