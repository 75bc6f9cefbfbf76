"""Adversarial answers: WHERE (answer line, prose, heading, table, code, footnote, hidden span,
...) x WHAT (denial, rival, correction, hedge, symbols, rounding, sprayed figures, padding), each
labelled with what a careful human reader would conclude and the credit it truly deserves."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from quest.synthesis.grammar.figures import (
    FIGURE_WHATS,
    figure_attack,
    find_k_attacks,
    padding_attacks,
)
from quest.synthesis.grammar.material import Material, material_of
from quest.synthesis.grammar.model import GrammarAnswer, Verdict, rng_for
from quest.synthesis.grammar.payloads import (
    WHERES,
    container_payloads,
    hidden_docs,
    line_contents,
)
from quest.synthesis.grammar.render import CANONICAL, Doc, Style
from quest.synthesis.grammar.writer import committed, write

_CONTAINER_WHATS = ("rival_final", "rival_pick", "rival_actually", "correction", "denial", "hedge")


def attack_answers(
    record: Mapping[str, Any], *, seed: int = 0, per_class: int | None = None
) -> list[GrammarAnswer]:
    """Every attack class that applies to `record`, `per_class` instances each (default 1)."""
    material = material_of(record)
    out: list[GrammarAnswer] = []
    for turn in range(per_class or 1):
        rng = rng_for(seed, "attacks", str(turn), material.question)
        base = CANONICAL if turn == 0 else Style(template=rng.randrange(5))
        out += list(_one_round(record, material, rng, base))
    return out


def _one_round(
    record: Mapping[str, Any], material: Material, rng: random.Random, base: Style
) -> Iterator[GrammarAnswer]:
    """One instance of every class, edited from a correct answer written in `base`."""
    doc = write(material, base)
    yield from _line_attacks(material, rng, doc)
    yield from _container_attacks(material, rng, doc)
    yield from _hidden_attacks(material, rng, doc)
    yield from _figure_attacks(record, material, rng, base)
    yield from _list_attacks(record, material, rng, doc)
    for what, text in padding_attacks(material, rng, base).items():
        yield _answer("padding", what, text, "uncommitted", 0.0)


def _answer(where: str, what: str, text: str, verdict: Verdict, ceiling: float) -> GrammarAnswer:
    return GrammarAnswer(f"attack:{where}:{what}", where, what, text, verdict, ceiling)


_INVENTED = ("Atlantis", "Lemuria", "Hyperborea", "Mu", "Thule", "Avalon", "Lyonesse", "Agartha")


def rival_answer(material: Material, rng: random.Random) -> str:
    """A wrong answer of the task's own kind: a rival candidate, or a rival list for find-k."""
    if material.find_k:
        # A rival list a reader calls wrong: as many wrong items as right ones, so under the
        # rule "each wrong item costs what a right one earns" it earns nothing either.
        wrong = [r for r in material.rivals if r not in material.pool] + list(_INVENTED)
        items = list(material.answers)
        for at in rng.sample(range(len(items)), (len(items) + 1) // 2):
            items[at] = wrong.pop(0)
        return "; ".join(items)
    rivals = [r for r in material.rivals if r.casefold() != material.answer.casefold()]
    return rng.choice(rivals[:4]) if rivals else "none of them"


def _line_attacks(material: Material, rng: random.Random, doc: Doc) -> Iterator[GrammarAnswer]:
    right = committed(material, "as_is")
    contents = line_contents(right, rival_answer(material, rng), material.numeric)
    for what, (content, verdict) in contents.items():
        text = replace(doc, line=f"Exact answer: {content}").text()
        yield _answer("answer_line", what, text, verdict, 0.0)  # type: ignore[arg-type]


def _container_attacks(material: Material, rng: random.Random, doc: Doc) -> Iterator[GrammarAnswer]:
    right = committed(material, "as_is")
    payloads = container_payloads(right, rival_answer(material, rng))
    for where, place in WHERES.items():
        whats = (*_CONTAINER_WHATS, "erratum") if where == "table_row" else _CONTAINER_WHATS
        for what in whats:
            text = place(doc, payloads[what]).text()
            yield _answer(where, what, text, "uncommitted", 0.0)


def _hidden_attacks(material: Material, rng: random.Random, doc: Doc) -> Iterator[GrammarAnswer]:
    right = committed(material, "as_is")
    for what, hidden in hidden_docs(doc, right, rival_answer(material, rng)).items():
        yield _answer("hidden", what, hidden.text(), "wrong", 0.0)


def _figure_attacks(
    record: Mapping[str, Any], material: Material, rng: random.Random, base: Style
) -> Iterator[GrammarAnswer]:
    for what in FIGURE_WHATS:
        made = figure_attack(record, material, what, rng, base)
        if made is not None:
            text, ceiling = made
            yield _answer("figures", what, text, "partial", ceiling)


def _list_attacks(
    record: Mapping[str, Any], material: Material, rng: random.Random, doc: Doc
) -> Iterator[GrammarAnswer]:
    if not material.find_k:
        return
    for what, (text, verdict, ceiling) in find_k_attacks(record, material, doc).items():
        yield _answer("list", what, text, verdict, ceiling)  # type: ignore[arg-type]


def attack_classes() -> list[str]:
    """Every attack class name the grammar can produce (not all apply to every task)."""
    names = [f"attack:answer_line:{w}" for w in line_contents("1", "2", numeric=True)]
    for where in WHERES:
        whats = (*_CONTAINER_WHATS, "erratum") if where == "table_row" else _CONTAINER_WHATS
        names += [f"attack:{where}:{w}" for w in whats]
    names += [f"attack:hidden:{w}" for w in hidden_docs(Doc((), ""), "a", "b")]
    names += [f"attack:figures:{w}" for w in FIGURE_WHATS]
    names += [f"attack:list:{w}" for w in ("swap_two", "spray_two", "too_many_right")]
    names += ["attack:padding:dossier", "attack:padding:buried"]
    return names
