"""Cross-domain chains: hops across the domain graph, each nested in the one it depends on.

A chain starts from a named entity and follows links to an answer in another domain:

- element → the country it was discovered in → that country's highest airport, official
  language, number of ISO 3166-2 subdivisions or number of public holidays in 2026;
- airport (by IATA code) → its country → the same ends;
- country → its only official language → the other country where it is official → an end
  (three hops, depth class D3), or element → country → highest airport → its elevation.

Each hop's link is a critical leaf, so a wrong hop zeroes every hop below it, as in the country
chains (quest.synthesis.chains); the answer is committed (quest.rubric.commitment). A flat chain
(class D1) asks the same hops as sibling leaves. Only single-valued links are followed: an
element discovered in two countries, a country with two official languages, or a language
official in more than two countries starts no chain.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from quest.synthesis.categories import domain_of_url
from quest.synthesis.facts import EXACT_ASK, Draft, Fact, Unbuildable, group, leaf, oracle
from quest.synthesis.families.brief import Brief
from quest.synthesis.families.factbook import figure_fact, highest_airport_fact, link_fact
from quest.synthesis.kg_domains import DomainGraph

# The domain each end of a chain belongs to: the task's topic (quest.synthesis.categories).
ENDS: dict[str, str] = {
    "highest_airport": "airports",
    "official_language": "languages",
    "subdivision_count": "subdivisions",
    "public_holiday_count": "holidays",
    "elevation": "airports",
}
END_ASKS = {
    "highest_airport": "name the highest airport listed for that country",
    "official_language": "name that country's only official language",
    "subdivision_count": "give the number of first-level ISO 3166-2 subdivisions of that country",
    "public_holiday_count": "give the number of public holidays that country has in 2026",
    "elevation": "give that airport's elevation in feet",
}


@dataclass(frozen=True)
class Hop:
    fact: Fact
    target: str  # the entity id the hop reaches ("" for a figure)
    answer: str  # what it names: the next entity, or the figure as written


def end_hop(graph: DomainGraph, entity: str, end: str) -> Hop | None:
    if end == "highest_airport":
        fact = highest_airport_fact(graph, entity)
        target = str(graph.value(entity, "highest_airport") or "")
        return Hop(fact, target, graph.entity(target).name) if fact and target else None
    if end == "official_language":
        languages = graph.linked(entity, "official_language")
        if len(languages) != 1:
            return None
        return link_hop(graph, entity, languages[0].id, "official_language")
    fact = figure_fact(graph, entity, end)
    if fact is None:
        return None
    return Hop(fact, "", str(fact.check["value"]))


def link_hop(graph: DomainGraph, subject: str, target: str, relation: str) -> Hop | None:
    fact = link_fact(graph, subject, target, relation)
    return Hop(fact, target, graph.entity(target).name) if fact else None


def _element_start(graph: DomainGraph, rng: random.Random) -> tuple[str, str, list[Hop]]:
    element = rng.choice(graph.of_kind("element"))
    places = graph.linked(element.id, "discovered_in")
    located = [str(v) for v in graph.values(element.id, "discovery_location")]
    if len(places) != 1 or located != [places[0].name]:
        raise Unbuildable(f"{element.name}: not discovered in one country the page names")
    hop = link_hop(graph, element.id, places[0].id, "discovered_in")
    if hop is None:
        raise Unbuildable(f"{element.name}: no discovery page")
    return element.id, f"the element {element.name}", [hop]


def _airport_start(graph: DomainGraph, rng: random.Random) -> tuple[str, str, list[Hop]]:
    airport = rng.choice(graph.of_kind("airport"))
    places = graph.linked(airport.id, "located_in")
    hop = link_hop(graph, airport.id, places[0].id, "located_in") if len(places) == 1 else None
    if hop is None:
        raise Unbuildable(f"{airport.name}: no single country")
    return airport.id, f"the airport with IATA code {airport.key}", [hop]


def _language_start(graph: DomainGraph, rng: random.Random) -> tuple[str, str, list[Hop]]:
    shared = [e for e in graph.of_kind("language") if len(graph.linked(e.id, "official_in")) == 2]
    language = rng.choice(shared)
    first, other = rng.sample(graph.linked(language.id, "official_in"), 2)
    if len(graph.linked(first.id, "official_language")) != 1:
        raise Unbuildable(f"{first.name}: more than one official language")
    one = link_hop(graph, first.id, language.id, "official_language")
    two = link_hop(graph, language.id, other.id, "official_in")
    if one is None or two is None:
        raise Unbuildable(f"{language.name}: no page for a hop")
    return first.id, first.name, [one, two]


STARTS: dict[str, Callable[[DomainGraph, random.Random], tuple[str, str, list[Hop]]]] = {
    "element": _element_start,
    "airport": _airport_start,
    "language": _language_start,
}
_FIRST_ASKS = {
    "element": "Find the country it was discovered in.",
    "airport": "Find the country it is in.",
    "language": "Find its only official language, then the other country where that language "
    "is official.",
}


def chain_draft(brief: Brief, ends: list[str]) -> Draft:
    """A chain ending in one of `ends`, shaped for the class (depth 1: flat; 2: two nested
    hops; 3: three)."""
    graph, depth, breadth, rng = brief.graph, brief.depth, brief.breadth, brief.rng
    end = rng.choice([e for e in ends if (e == "elevation") == (depth == 3)] or ends)
    if depth == 3:
        start_kind = "element" if end == "elevation" else "language"
    else:
        start_kind = rng.choice(("element", "airport"))
    start, named, hops = STARTS[start_kind](graph, rng)
    if end == "elevation":
        airport = end_hop(graph, hops[-1].target, "highest_airport")
        last = end_hop(graph, airport.target, "elevation") if airport else None
        hops += [airport, last] if airport and last else []
    else:
        last = end_hop(graph, hops[-1].target, end)
        hops += [last] if last else []
    if len(hops) < 2 or hops[-1].fact.key != end or hops[-1].target == start:
        raise Unbuildable(f"{named}: no {end} at the end of the chain")
    if not all(brief.has_page(h.fact.url) for h in hops):
        raise Unbuildable(f"{named}: a hop's page is not in the corpus")
    if (depth != 3 and len(hops) != 2) or (depth == 3 and len(hops) != 3):
        raise Unbuildable(f"{named}: {len(hops)} hops for depth class D{depth}")
    if len({domain_of_url(h.fact.url) for h in hops}) < 2:
        raise Unbuildable(f"{named}: the chain stays in one domain")
    extras = _extras(graph, hops, breadth, end)
    return _assemble(graph, start, named, start_kind, hops, extras, depth, breadth, end)


def _extras(graph: DomainGraph, hops: list[Hop], breadth: int, end: str) -> list[Fact]:
    """Figures of the country the chain passes through, widening the last hop (class B2)."""
    if breadth < 2:
        return []
    country = next((h.target for h in hops if h.target.startswith("country:")), "")
    wanted = [r for r in ("subdivision_count", "public_holiday_count") if r != end]
    found = [f for r in wanted if (f := figure_fact(graph, country, r)) is not None]
    if breadth == 2 and found:
        return found
    raise Unbuildable("no figures to widen the chain to its breadth class")


def _assemble(
    graph: DomainGraph,
    start: str,
    named: str,
    start_kind: str,
    hops: list[Hop],
    extras: list[Fact],
    depth: int,
    breadth: int,
    end: str,
) -> Draft:
    answer = hops[-1].answer
    sources = breadth > 1 or depth > 1
    layers = [_hop_leaves(h, i, sources) for i, h in enumerate(hops, start=1)]
    layers[-1] += [n for i, f in enumerate(extras) for n in _figure_leaves(f, f"x{i}_")]
    committed = leaf(
        "answer",
        f"The answer commits to {answer} as the end of the chain",
        {"kind": "mentions", "value": answer, "committed": True},
        True,
    )
    if depth == 1:
        children = [committed, *(n for layer in layers for n in layer)]
    else:
        node: dict[str, Any] | None = None
        for index in range(len(hops), 0, -1):
            hop = hops[index - 1]
            body = [*layers[index - 1], *([node] if node else [])]
            node = group(f"hop_{index}", f"Hop {index}: {hop.fact.description}", body)
        assert node is not None
        children = [committed, node]
    question = _question(graph, named, start_kind, hops, extras, end)
    root = group("root", question, children, strategy="sequential" if depth > 1 else "parallel")
    facts = [h.fact for h in hops] + extras
    domains = list(dict.fromkeys(domain_of_url(f.url) for f in facts))
    return Draft(
        "domain_chain",
        question,
        root,
        facts,
        {
            answer: {
                "description": "; ".join(f.sentence.replace("\n", "; ") for f in facts) + ".",
                "reference_urls": sorted({f.url for f in facts}),
            }
        },
        ("chain", start, *(h.target or h.answer for h in hops), *(f.key for f in extras)),
        [list(reversed(facts))],
        exact=answer,
        oracle={
            **oracle("chain", [answer], [f for f in facts if f.check], []),
            "path": [named, *(h.answer for h in hops)],
        },
        domains=tuple(domains),
        topic=ENDS[end],
        subjects=(start, *(h.target for h in hops if h.target)),
    )


def _hop_leaves(hop: Hop, index: int, sources: bool) -> list[dict[str, Any]]:
    fact = hop.fact
    out = [leaf(f"h{index}_{fact.key}", fact.description, fact.check, hop.target != "")]
    if sources and fact.source_check:
        out.append(
            leaf(
                f"h{index}_{fact.key}_sourced",
                f"A cited page states {fact.ask.removeprefix('its ')} of {fact.subject}",
                fact.source_check,
                False,
            )
        )
    return out


def _figure_leaves(fact: Fact, prefix: str) -> list[dict[str, Any]]:
    assert fact.source_check is not None
    return [
        leaf(f"{prefix}{fact.key}", fact.description, fact.check, False),
        leaf(
            f"{prefix}{fact.key}_sourced",
            f"A cited page states {fact.ask.removeprefix('its ')} of {fact.subject}",
            fact.source_check,
            False,
        ),
    ]


def _question(
    graph: DomainGraph,
    named: str,
    start_kind: str,
    hops: list[Hop],
    extras: list[Fact],
    end: str,
) -> str:
    parts = [f"Start from {named}.", _FIRST_ASKS[start_kind]]
    if end == "elevation":
        parts.append(
            "Name the highest airport listed for that country, and give its elevation in feet."
        )
    else:
        parts.append(END_ASKS[end][0].upper() + END_ASKS[end][1:] + ".")
    if extras:
        asks = " and ".join(f.ask.replace("its ", "the ") for f in extras)
        parts.append(f"For the country you reach, also give {asks}.")
    what = "<number>" if hops[-1].target == "" else "<name>"
    parts.append("Cite a page for every step." + EXACT_ASK.format(what=what))
    return " ".join(parts)
