"""Comparisons and temporal order: which of a few named entities ranks first by a figure.

- comparison: "Which of Iron, Gold and Lead has the highest density?", "Which of these
  airports lies highest?", "Which of Peru and Chile has more ISO 3166-2 subdivisions?";
- temporal order: "Which of these elements was discovered first?", "Which of these became a
  US state first?", "Which of these public holidays of Bolivia comes first in 2026?".

Every entity's figure is a fact with a claim check and, from class B2 up, a source leaf; the
winner is committed. Entities are drawn so that every figure differs (two equal years would make
"first" ambiguous), and the number of entities gives the breadth class; class D2 groups each
entity's leaves.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from dataclasses import dataclass

from quest.corpus.text import listing
from quest.synthesis.categories import domain_of_url
from quest.synthesis.facts import EXACT_ASK, Draft, Fact, Unbuildable, group, leaf, oracle
from quest.synthesis.families.brief import Brief
from quest.synthesis.families.factbook import (
    figure_fact,
    holiday_date_fact,
    operand_leaves,
    speakers_fact,
)
from quest.synthesis.kg_domains import DomainGraph


@dataclass(frozen=True)
class Ranking:
    family: str  # "comparison" or "temporal_order"
    kind: str  # the kind of entity compared
    relation: str
    highest: bool  # the winner has the highest figure (else the lowest: the first year)
    question: str  # "Which of {names} has the highest density?"


RANKINGS: dict[str, list[Ranking]] = {
    "elements": [
        Ranking(
            "comparison",
            "element",
            "density",
            True,
            "Which of the elements {names} has the highest density?",
        ),
        Ranking(
            "comparison",
            "element",
            "atomic_weight",
            False,
            "Which of the elements {names} has the lowest standard atomic weight?",
        ),
        Ranking(
            "comparison",
            "element",
            "atomic_number",
            True,
            "Which of the elements {names} has the highest atomic number?",
        ),
    ],
    "elements.discovery": [
        Ranking(
            "temporal_order",
            "element",
            "discovery_year",
            False,
            "Which of the elements {names} was discovered first?",
        ),
    ],
    "airports": [
        Ranking(
            "comparison",
            "airport",
            "elevation",
            True,
            "Which of these airports lies highest: {names}?",
        ),
    ],
    "languages": [
        Ranking(
            "comparison",
            "language",
            "speakers",
            True,
            "Which of these languages has the most estimated speakers in {country}: {names}?",
        ),
    ],
    "us_states": [
        Ranking(
            "temporal_order",
            "us_state",
            "statehood_year",
            False,
            "Which of {names} became a state of the United States first?",
        ),
    ],
    "subdivisions": [
        Ranking(
            "comparison",
            "country",
            "subdivision_count",
            True,
            "Which of {names} has the most first-level subdivisions in ISO 3166-2?",
        ),
    ],
    "holidays": [
        Ranking(
            "comparison",
            "country",
            "public_holiday_count",
            True,
            "Which of {names} has the most public holidays in 2026?",
        ),
        Ranking(
            "temporal_order",
            "holiday",
            "date",
            False,
            "In 2026, which of these public holidays of {country} comes first: {names}?",
        ),
    ],
}


def ranking_draft(brief: Brief) -> Draft:
    topic, depth, breadth, rng = brief.topic, brief.depth, brief.breadth, brief.rng
    if depth > 2 or topic not in RANKINGS:
        raise Unbuildable(f"no {topic} ranking of depth class D{depth}")
    ranking = rng.choice(RANKINGS[topic])
    n = {1: 2, 2: rng.randint(2, 5), 3: rng.randint(6, 7)}[breadth]
    if depth == 2 and breadth == 2:
        n = rng.randint(2, 5)
    facts, country = _draw(brief.graph, ranking, n, rng, brief.has_page)
    order = sorted(facts, key=_key, reverse=ranking.highest)
    winner = order[0].subject
    names = [f.subject for f in facts]
    sources = breadth > 1
    committed = leaf(
        "answer",
        f"The answer commits to {winner}",
        {
            "kind": "mentions",
            "value": winner,
            "committed": True,
            "others": [x for x in names if x != winner],
        },
        True,
    )
    per = [operand_leaves(f, i, sources) for i, f in enumerate(facts, start=1)]
    if depth == 1:
        children = [committed, *(n for leaves in per for n in leaves)]
    elif breadth == 1:
        children = [
            committed,
            group("figures", "Each one's figure is right", [n for leaves in per for n in leaves]),
        ]
    else:
        children = [
            committed,
            *(
                group(f"item_{i}", f"{f.subject}: right and sourced", per[i - 1])
                for i, f in enumerate(facts, start=1)
            ),
        ]
    ask = facts[0].ask.removeprefix("its ")
    question = (
        ranking.question.format(names=listing(names).replace(" and ", " or "), country=country)
        + f" Give each one's {ask}, citing a page for each."
        + EXACT_ASK.format(what="<name>")
    )
    root = group("root", question, children)
    return Draft(
        ranking.family,
        question,
        root,
        facts,
        {
            winner: {
                "description": "; ".join(f.sentence for f in order) + ".",
                "reference_urls": sorted({f.url for f in facts}),
            }
        },
        (ranking.relation, *sorted(names)),
        [list(reversed(facts))],
        exact=winner,
        oracle=oracle("lookup", [winner], facts, [x for x in names if x != winner]),
        domains=tuple(dict.fromkeys(domain_of_url(f.url) for f in facts)),
        topic=topic,
        subjects=tuple(names),
    )


def _key(fact: Fact) -> float:
    value = fact.check["value"]
    if isinstance(value, int | float):
        return value
    return datetime.datetime.strptime(str(value), "%d %B %Y").toordinal()  # a holiday's date


def _draw(
    graph: DomainGraph,
    ranking: Ranking,
    n: int,
    rng: random.Random,
    has_page: Callable[[str], bool],
) -> tuple[list[Fact], str]:
    country = country_id = ""
    if ranking.kind == "language":
        place = rng.choice(
            [c for c in graph.of_kind("country") if graph.linking(c.id, "spoken_in")]
        )
        country = place.name
        country_id = place.id
        pool = graph.linking(place.id, "spoken_in")
    elif ranking.kind == "holiday":
        place = rng.choice(graph.of_kind("country"))
        country = place.name
        pool = [e for e in graph.linking(place.id, "observed_in") if "(" not in e.name]
        names = [e.name for e in pool]
        pool = [e for e in pool if names.count(e.name) == 1]
    else:
        pool = graph.of_kind(ranking.kind)
    rng.shuffle(pool)
    chosen: list[Fact] = []
    seen: set[object] = set()
    for entity in pool:
        fact = (
            speakers_fact(graph, entity.id, country_id)
            if ranking.kind == "language"
            else holiday_date_fact(graph, entity.id)
            if ranking.kind == "holiday"
            else figure_fact(graph, entity.id, ranking.relation)
        )
        if fact is None or not has_page(fact.url) or fact.check["value"] in seen:
            continue
        seen.add(fact.check["value"])
        chosen.append(fact)
        if len(chosen) == n:
            return chosen, country
    raise Unbuildable(f"fewer than {n} {ranking.kind}s with distinct {ranking.relation}")
