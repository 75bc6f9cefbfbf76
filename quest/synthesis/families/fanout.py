"""Chains side by side: the same cross-domain chain from several starts, then a comparison of
where they end.

"For each of the elements Oxygen, Neon and Radium, find the country it was discovered in and
that country's number of public holidays in 2026. Which element leads to the most?" Each start
is an element or an airport (by IATA code); its first hop reaches a country, its second an end
figure of that country (subdivisions, public holidays). Every hop is a critical leaf of its
start's group, so a wrong country zeroes that start's figure, and the start whose chain ends
highest is committed. This is how a chain reaches breadth class B3: three or four starts, each
with its hops and their sources, side by side.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from quest.corpus.text import listing
from quest.synthesis.categories import domain_of_url
from quest.synthesis.facts import EXACT_ASK, Draft, Unbuildable, group, leaf, oracle
from quest.synthesis.families.brief import Brief
from quest.synthesis.families.hops import ENDS, STARTS, Hop, end_hop
from quest.synthesis.kg_domains import DomainGraph

FANOUT_ENDS = {
    "subdivision_count": "number of first-level ISO 3166-2 subdivisions",
    "public_holiday_count": "number of public holidays in 2026",
}
_HOPS = {
    "element": ("elements", "the country it was discovered in"),
    "airport": ("airports with IATA codes", "the country it is in"),
}
ATTEMPTS = 40  # starts tried before giving up


def fanout_draft(brief: Brief, ends: list[str]) -> Draft:
    depth, breadth, rng = brief.depth, brief.breadth, brief.rng
    usable = [e for e in ends if e in FANOUT_ENDS]
    if breadth < 2 or depth > 2 or not usable:
        raise Unbuildable(f"no side-by-side chains of class B{breadth}D{depth}")
    end = rng.choice(usable)
    n = 2 if breadth == 2 else 3 if depth == 1 else 4
    kind = rng.choice(("element", "airport"))
    starts = _starts(brief.graph, kind, end, n, rng, brief.has_page)
    winner = max(starts, key=lambda s: int(s[2][1].answer))
    named = [s[0] for s in starts]
    committed = leaf(
        "answer",
        f"The answer commits to {winner[0]}",
        {
            "kind": "mentions",
            "value": winner[0],
            "committed": True,
            "others": [x for x in named if x != winner[0]],
        },
        True,
    )
    items = [_item(i, name, hops, depth) for i, (name, _, hops) in enumerate(starts, start=1)]
    children = [committed, *(n for item in items for n in item)]
    noun, first = _HOPS[kind]
    shown = listing(named)
    question = (
        f"For each of the {noun} {shown}, find {first}, then that country's "
        f"{FANOUT_ENDS[end]}. Which of them leads to the country with the highest figure? "
        "Cite a page for every step." + EXACT_ASK.format(what="<name>")
    )
    facts = [h.fact for _, _, hops in starts for h in hops]
    return Draft(
        "chain_fanout",
        question,
        group("root", question, children),
        facts,
        {
            winner[0]: {
                "description": "; ".join(f.sentence for f in facts) + ".",
                "reference_urls": sorted({f.url for f in facts}),
            }
        },
        ("fanout", end, *sorted(s[1] for s in starts)),
        [list(reversed(facts))],
        exact=winner[0],
        oracle=oracle("lookup", [winner[0]], facts, [x for x in named if x != winner[0]]),
        domains=tuple(dict.fromkeys(domain_of_url(f.url) for f in facts)),
        topic=ENDS[end],
        subjects=tuple(s[1] for s in starts),
    )


def _starts(
    graph: DomainGraph,
    kind: str,
    end: str,
    n: int,
    rng: random.Random,
    has_page: Callable[[str], bool],
) -> list[tuple[str, str, list[Hop]]]:
    """n starts whose chains reach distinct countries with distinct end figures."""
    found: list[tuple[str, str, list[Hop]]] = []
    countries: set[str] = set()
    figures: set[str] = set()
    for _ in range(ATTEMPTS):
        try:
            start, _named, hops = STARTS[kind](graph, rng)
        except Unbuildable:
            continue
        last = end_hop(graph, hops[-1].target, end)
        if last is None or hops[-1].target in countries or last.answer in figures:
            continue
        if not all(has_page(h.fact.url) for h in [*hops, last]):
            continue
        name = graph.entity(start).key if kind == "airport" else graph.entity(start).name
        countries.add(hops[-1].target)
        figures.add(last.answer)
        found.append((name, start, [*hops, last]))
        if len(found) == n:
            return found
    raise Unbuildable(f"fewer than {n} {kind}s reach distinct countries and figures")


def _item(index: int, name: str, hops: list[Hop], depth: int) -> list[dict[str, Any]]:
    first, second = hops
    assert first.fact.source_check is not None and second.fact.source_check is not None
    hop_one = [
        # Critical inside its start's group: a wrong country zeroes that start's figure.
        leaf(f"s{index}_hop", first.fact.description, first.fact.check, depth > 1),
        leaf(
            f"s{index}_hop_sourced",
            f"A cited page states {first.fact.ask.removeprefix('its ')} of {name}",
            first.fact.source_check,
            False,
        ),
    ]
    hop_two = [
        leaf(f"s{index}_end", second.fact.description, second.fact.check, False),
        leaf(
            f"s{index}_end_sourced",
            f"A cited page states the {second.fact.ask.removeprefix('its ')} of "
            f"{second.fact.subject}",
            second.fact.source_check,
            False,
        ),
    ]
    if depth == 1:
        return [*hop_one, *hop_two]
    nested = group(f"s{index}_country", f"{name}: the country's figure", hop_two)
    return [group(f"start_{index}", f"{name}: its chain", [*hop_one, nested])]
