"""Attacks that keep the right commitment but get the supporting figures wrong (partial credit),
find-k lists with wrong or extra items, and padding that buries or withholds the commitment."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from quest.synthesis.grammar.ceiling import ceiling
from quest.synthesis.grammar.material import Claim, Material
from quest.synthesis.grammar.payloads import round_figure
from quest.synthesis.grammar.render import Citer, Doc, Style, number_text
from quest.synthesis.grammar.writer import padding, write


def _shifted(claim: Claim, rng: random.Random, count: int = 1) -> list[str]:
    """`count` distinct wrong values near the claim's own."""
    number = float(claim.value)
    if number >= 100_000:
        return [str(int(number * f)) for f in rng.sample((1.06, 1.12, 0.9, 0.85), count)]
    return [str(int(number) + d) for d in rng.sample((1, 2, 3, -1, -2), count)]


def _shown(claim: Claim, value: str) -> str:
    return number_text(value, claim.relation, "comma")


Spoil = Callable[[Claim, random.Random], str | None]


def _wrong(claim: Claim, rng: random.Random) -> str:
    return _shown(claim, _shifted(claim, rng)[0])


def _spray(claim: Claim, rng: random.Random) -> str:
    a, b = _shifted(claim, rng, 2)
    return f"{_shown(claim, claim.value)} or {_shown(claim, a)}, possibly {_shown(claim, b)}"


def _rounding(claim: Claim, rng: random.Random) -> str | None:
    number = float(claim.value)
    if number >= 10_000 or not number.is_integer():
        return None  # rounding a quantity can stay inside the task's stated precision
    return rng.choice((round_figure(claim.value), f"about {round_figure(claim.value)}"))


def _symbol(mark: str) -> Spoil:
    return lambda claim, rng: f"{mark}{_shown(claim, claim.value)}"


FIGURE_WHATS: dict[str, Spoil] = {
    "wrong_value": _wrong,
    "spray": _spray,
    "rounding": _rounding,
    "symbol_approx": _symbol("≈"),
    "symbol_tilde": _symbol("~"),
    "symbol_lt": _symbol("<"),
    "symbol_ge": _symbol("≥"),
    "hedge": lambda claim, rng: f"probably {_shown(claim, claim.value)}",
}


def figure_targets(material: Material) -> list[Claim]:
    """The figures a figure attack corrupts: every number that is not itself the answer."""
    answer = material.answers[0] if material.numeric else None
    return [c for c in material.claims if c.is_number and c.value != answer]


def figure_attack(
    record: Mapping[str, Any], material: Material, what: str, rng: random.Random, base: Style
) -> tuple[str, float] | None:
    spoil = FIGURE_WHATS[what]
    claims, spoiled = [], []
    for claim in material.claims:
        text = spoil(claim, rng) if claim in figure_targets(material) else None
        claims.append(claim if text is None else replace(claim, value=text))
        if text is not None:
            spoiled.append((claim.subject, claim.value))
    if not spoiled:
        return None
    return write(material, base, claims).text(), ceiling(record, spoiled)


def find_k_attacks(
    record: Mapping[str, Any], material: Material, doc: Doc
) -> dict[str, tuple[str, str, float]]:
    """what -> (text, verdict, ceiling) for list answers."""
    k = material.k or len(material.answers)
    wrong = [r for r in material.rivals if r not in material.pool][:2]
    spare = [a for a in material.pool if a not in material.answers][:2]
    out: dict[str, tuple[str, str, float]] = {}
    if len(wrong) == 2:
        swapped = (*material.answers[: k - 2], *wrong)
        right = max(0, (k - 2) - 2)
        out["swap_two"] = (_listed(doc, swapped), "partial", ceiling(record, right_items=right))
        sprayed = (*material.answers, *wrong)
        out["spray_two"] = (_listed(doc, sprayed), "uncommitted", 0.0)
    if len(spare) == 2:
        out["too_many_right"] = (_listed(doc, (*material.answers, *spare)), "uncommitted", 0.0)
    return out


def _listed(doc: Doc, items: tuple[str, ...]) -> str:
    return replace(doc, line="Exact answer: " + "; ".join(items)).text()


def padding_attacks(material: Material, rng: random.Random, base: Style) -> dict[str, str]:
    """A long dossier that never commits, and the right line buried among rival conclusions."""
    doc = write(material, base)
    filler = padding(material.claims, base, Citer(), 9000)
    candidates = ", ".join([*material.answers, *material.rivals[:6]])
    dossier = replace(
        doc,
        blocks=(*doc.blocks, *filler, f"The candidates I weighed were {candidates}."),
        line="",
    )
    return {"dossier": dossier.text(), "buried": _buried(doc, material, rng).text()}


def _buried(doc: Doc, material: Material, rng: random.Random) -> Doc:
    rivals = list(material.rivals[:6]) or ["another candidate"]
    lines = []
    for turn in range(40):
        rival = rivals[turn % len(rivals)]
        lines.append(rng.choice(_RIVAL_CONCLUSIONS).format(r=rival))
    return doc.with_blocks(" ".join(lines))


_RIVAL_CONCLUSIONS = (
    "On another reading, the answer is {r}.",
    "I conclude that the answer is {r}.",
    "So the answer would be {r}.",
    "Therefore {r} is the answer.",
)
