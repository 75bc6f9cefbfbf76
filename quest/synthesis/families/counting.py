"""Aggregations: a number the answer works out from figures the pages state.

- how many: "How many official languages does Bolivia have?" (the languages page names them);
- a difference: "How many years passed between the discoveries of Oxygen and Neon?", "How many
  more public holidays does Chile have in 2026 than Peru?";
- a sum: "What is the total number of first-level ISO 3166-2 subdivisions of A, B and C?".

Every operand is a fact with a claim check and, from class B2 up, a source leaf; the result is
committed, so an answer that states every figure right but adds them up wrong earns nothing.
The number of operands gives the breadth class (six or seven for B3); class D2 groups each
operand's leaves. A difference's operands differ (a zero gap asks nothing).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from quest.corpus.text import listing
from quest.synthesis.categories import domain_of_url
from quest.synthesis.facts import EXACT_ASK, Draft, Fact, Unbuildable, group, leaf, oracle
from quest.synthesis.families.brief import Brief
from quest.synthesis.families.factbook import figure_fact, official_languages_fact, operand_leaves
from quest.synthesis.kg_domains import DomainGraph


@dataclass(frozen=True)
class Aggregate:
    kind: str  # the kind of entity the operands are about
    relation: str
    operation: str  # "sum" or "difference"
    question: str


AGGREGATES: dict[str, list[Aggregate]] = {
    "subdivisions": [
        Aggregate(
            "country",
            "subdivision_count",
            "sum",
            "What is the total number of first-level ISO 3166-2 subdivisions of {names}?",
        ),
        Aggregate(
            "country",
            "subdivision_count",
            "difference",
            "How many more first-level ISO 3166-2 subdivisions does {first} have than {second}?",
        ),
    ],
    "holidays": [
        Aggregate(
            "country",
            "public_holiday_count",
            "sum",
            "Adding up the public holidays each has in 2026, how many do {names} have together?",
        ),
        Aggregate(
            "country",
            "public_holiday_count",
            "difference",
            "How many more public holidays does {first} have in 2026 than {second}?",
        ),
    ],
    "elements.discovery": [
        Aggregate(
            "element",
            "discovery_year",
            "difference",
            "How many years passed between the discovery of {second} and that of {first}?",
        ),
    ],
    "us_states": [
        Aggregate(
            "us_state",
            "statehood_year",
            "difference",
            "How many years after {second} did {first} become a state of the United States?",
        ),
    ],
    "airports": [
        Aggregate(
            "airport",
            "elevation",
            "difference",
            "By how many feet does {first} lie higher than {second}?",
        ),
    ],
}


def aggregation_draft(brief: Brief) -> Draft:
    topic, rng, depth, breadth = brief.topic, brief.rng, brief.depth, brief.breadth
    if depth > 2:
        raise Unbuildable(f"no aggregation of depth class D{depth}")
    if topic == "languages":
        return _language_count(brief)
    if topic not in AGGREGATES:
        raise Unbuildable(f"no {topic} aggregation")
    n = {1: 2, 2: rng.randint(2, 5), 3: rng.randint(6, 7)}[breadth]
    options = [a for a in AGGREGATES[topic] if a.operation == "sum" or n == 2]
    if not options:
        raise Unbuildable(f"no {topic} aggregation over {n} operands")
    aggregate = rng.choice(options)
    facts = _operands(brief.graph, aggregate, n, rng, brief.has_page)
    if aggregate.operation == "difference":
        facts.sort(key=lambda f: f.check["value"], reverse=True)
        first, second = facts
        result = first.check["value"] - second.check["value"]
        question = aggregate.question.format(first=first.subject, second=second.subject)
        working = f"{first.check['value']} - {second.check['value']} = {result}"
    else:
        result = sum(f.check["value"] for f in facts)
        question = aggregate.question.format(names=listing([f.subject for f in facts]))
        working = " + ".join(str(f.check["value"]) for f in facts) + f" = {result}"
    ask = facts[0].ask.removeprefix("its ")
    question += f" Give each one's {ask}, citing a page for each." + EXACT_ASK.format(
        what="<number>"
    )
    return _assemble(
        facts, question, str(result), working, depth, breadth, topic, aggregate.relation
    )


def _operands(
    graph: DomainGraph,
    aggregate: Aggregate,
    n: int,
    rng: random.Random,
    has_page: Callable[[str], bool],
) -> list[Fact]:
    pool = graph.of_kind(aggregate.kind)
    rng.shuffle(pool)
    chosen: list[Fact] = []
    seen: set[object] = set()
    for entity in pool:
        fact = figure_fact(graph, entity.id, aggregate.relation)
        if fact is None or not has_page(fact.url) or fact.check["value"] in seen:
            continue
        if not float(fact.check["value"]).is_integer():
            continue
        seen.add(fact.check["value"])
        chosen.append(fact)
        if len(chosen) == n:
            return chosen
    raise Unbuildable(f"fewer than {n} {aggregate.kind}s with distinct {aggregate.relation}")


def _language_count(brief: Brief) -> Draft:
    """How many official languages a country has (B1: one country; B2 and B3: the sum over
    two to seven countries, each naming its languages)."""
    graph, rng, depth, breadth = brief.graph, brief.rng, brief.depth, brief.breadth
    n = {1: 1, 2: rng.randint(2, 4), 3: rng.randint(6, 7)}[breadth]
    countries = graph.of_kind("country")
    rng.shuffle(countries)
    facts = [
        f
        for c in countries
        if (f := official_languages_fact(graph, c.id)) is not None and brief.has_page(f.url)
    ][:n]
    if len(facts) < n:
        raise Unbuildable(f"fewer than {n} countries with several official languages")
    counts = [len(graph.facts_of(c.id, "official_language")) for c in countries]
    by_name = {c.name: k for c, k in zip(countries, counts, strict=True)}
    result = sum(by_name[f.subject] for f in facts)
    names = listing([f.subject for f in facts])
    if n == 1:
        question = f"How many official languages does {names} have? Name them, citing a page."
    else:
        question = (
            f"Counting each country's official languages separately, how many official "
            f"languages do {names} have in all? Name each country's, citing a page for each."
        )
    working = " + ".join(str(by_name[f.subject]) for f in facts) + f" = {result}"
    return _assemble(
        facts,
        question + EXACT_ASK.format(what="<number>"),
        str(result),
        working,
        depth,
        breadth,
        "languages",
        "official_language_count",
    )


def _assemble(
    facts: list[Fact],
    question: str,
    result: str,
    working: str,
    depth: int,
    breadth: int,
    topic: str,
    relation: str,
) -> Draft:
    committed = leaf(
        "answer",
        f"The answer commits to {result}",
        {"kind": "mentions", "value": result, "committed": True},
        True,
    )
    per = [operand_leaves(f, i, breadth > 1) for i, f in enumerate(facts, start=1)]
    if depth == 1:
        children = [committed, *(n for leaves in per for n in leaves)]
    elif breadth == 1:
        flat = [n for leaves in per for n in leaves]
        children = [committed, group("operands", "Each operand is right", flat)]
    else:
        children = [
            committed,
            *(
                group(f"item_{i}", f"{f.subject}: right and sourced", per[i - 1])
                for i, f in enumerate(facts, start=1)
            ),
        ]
    root = group("root", question, children)
    sentences = "; ".join(f.sentence for f in facts)
    return Draft(
        "aggregation",
        question,
        root,
        facts,
        {
            result: {
                "description": f"{sentences}; so {working}.",
                "reference_urls": sorted({f.url for f in facts}),
            }
        },
        (relation, *sorted(f.subject for f in facts)),
        [list(reversed(facts))],
        exact=result,
        oracle=oracle("lookup", [result], facts, []),
        domains=tuple(dict.fromkeys(domain_of_url(f.url) for f in facts)),
        topic=topic,
        subjects=tuple(f.subject for f in facts),
    )
