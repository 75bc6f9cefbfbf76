"""Intersections: name k entities that meet two conditions, each stated on a different page.

- "Name two countries where French is an official language and that have an airport more
  than 1,000 feet above sea level" (the language's page, then each airport's page);
- "Name three elements discovered in Sweden after 1750" (each element's page).

The valid set is every entity of the graph meeting both conditions, computed, never a guess;
a task is drawn only where more entities are valid than asked (any valid k pass, as QUEST's
"k-th item" slots: non-critical at the top level, and a padded answer earns nothing) and where
some entities meet one condition but not the other (the intersection is needed). Each item
slot is checked against the valid set; from class D2 each item is a group with a citation.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from quest.corpus.text import number
from quest.synthesis.categories import domain_of_url
from quest.synthesis.facts import (
    EXACT_ASK,
    Draft,
    Fact,
    Unbuildable,
    group,
    leaf,
    oracle,
)
from quest.synthesis.families.brief import Brief
from quest.synthesis.families.factbook import figure_fact, link_fact
from quest.synthesis.kg_domains import DomainGraph
from quest.text.words import number_word

PADDING = 2  # entities an answer may name beyond the k asked
ELEVATION_STEPS = (250, 500, 750, 1_000, 1_500, 2_000, 3_000, 4_000, 5_000, 6_500, 8_000)
YEAR_STEPS = (1700, 1750, 1800, 1825, 1850, 1875, 1900, 1925, 1950)


@dataclass(frozen=True)
class Member:
    name: str
    facts: list[Fact]  # the sentences that show it meets both conditions (none: unstated)


@dataclass(frozen=True)
class Intersection:
    one: str  # "country"
    noun: str  # "countries"
    phrase: str  # "where French is an official language and that have …"
    valid: list[Member]
    near: list[str]  # entities meeting one condition only: the distractors
    universe: list[str]  # every entity an answer might list (the padding guard's values)
    topic: str
    anchor: str  # the entity both conditions hang on (the language, the country)


def intersection_draft(brief: Brief) -> Draft:
    topic, depth, breadth, rng = brief.topic, brief.depth, brief.breadth, brief.rng
    if depth > 2 or (breadth == 3 and depth == 1):
        raise Unbuildable(f"no intersection of class B{breadth}D{depth}")
    builder = BUILDERS.get(topic)
    if builder is None:
        raise Unbuildable(f"no {topic} intersection")
    # Flat (D1), the slots and the padding guard are the layer: three to five slots for B2.
    k = {1: 1, 2: rng.randint(3, 5) if depth == 1 else rng.randint(2, 4), 3: 6}[breadth]
    found = builder(brief.graph, rng, brief.has_page)
    if len(found.valid) <= k or not found.near:
        raise Unbuildable(f"{len(found.valid)} valid {found.noun} for {k} slots")
    return _assemble(found, k, depth, rng)


def _language_airport(
    graph: DomainGraph, rng: random.Random, has_page: Callable[[str], bool]
) -> Intersection:
    languages = [e for e in graph.of_kind("language") if len(graph.linked(e.id, "official_in")) > 4]
    language = rng.choice(languages)
    countries = graph.linked(language.id, "official_in")
    heights = {c.id: _elevations(graph, c.id) for c in countries}
    steps = list(ELEVATION_STEPS)
    rng.shuffle(steps)
    for step in steps:
        # An airport close to the threshold would make the set hinge on a rounding.
        if any(step / 1.02 <= e <= step * 1.02 for h in heights.values() for e, _ in h):
            continue
        valid, near = [], []
        for country in countries:
            above = [a for e, a in heights[country.id] if e > step]
            if not above:
                near.append(country.name)
                continue
            official = link_fact(graph, language.id, country.id, "official_in")
            where = link_fact(graph, above[0], country.id, "located_in")
            height = figure_fact(graph, above[0], "elevation")
            facts = [official, where, height]
            shown = all(f is not None and has_page(f.url) for f in facts)
            valid.append(Member(country.name, [f for f in facts if f and shown]))
        if len(valid) >= 2 and near:
            phrase = (
                f"where {language.name} is an official language and that have an airport with "
                f"scheduled service and an IATA code more than {number(step)} feet above sea "
                "level"
            )
            universe = sorted({c.name for c in countries})
            return Intersection(
                "country", "countries", phrase, valid, near, universe, "languages", language.id
            )
    raise Unbuildable(f"{language.name}: no elevation splits its countries")


def _elevations(graph: DomainGraph, country: str) -> list[tuple[int, str]]:
    """(elevation, airport id) of the airports of `country`, highest first."""
    airports = graph.linking(country, "located_in")
    figures = [(e, a.id) for a in airports if isinstance(e := graph.value(a.id, "elevation"), int)]
    return sorted(figures, key=lambda pair: (-pair[0], pair[1]))


def _element_discovery(
    graph: DomainGraph, rng: random.Random, has_page: Callable[[str], bool]
) -> Intersection:
    places = [c for c in graph.of_kind("country") if len(graph.linking(c.id, "discovered_in")) >= 4]
    place = rng.choice(places)
    elements = graph.linking(place.id, "discovered_in")
    year = rng.choice(YEAR_STEPS)
    valid, near = [], []
    for element in elements:
        where = link_fact(graph, element.id, place.id, "discovered_in")
        when = figure_fact(graph, element.id, "discovery_year")
        discovered = graph.value(element.id, "discovery_year")
        if not isinstance(discovered, int) or discovered == year:
            raise Unbuildable(f"{element.name}: no discovery year, or {year} itself")
        if discovered < year:
            near.append(element.name)
            continue
        shown = where is not None and when is not None and has_page(where.url)
        valid.append(Member(element.name, [where, when] if where and when and shown else []))
    phrase = f"discovered in {place.name} after {year}"
    universe = sorted(e.name for e in graph.of_kind("element"))
    return Intersection(
        "element", "elements", phrase, valid, near, universe, "elements.discovery", place.id
    )


BUILDERS: dict[str, Callable[[DomainGraph, random.Random, Callable[[str], bool]], Intersection]] = {
    "languages": _language_airport,
    "elements.discovery": _element_discovery,
}


def _assemble(found: Intersection, k: int, depth: int, rng: random.Random) -> Draft:
    shown = [m for m in found.valid if m.facts]
    if len(shown) < k:
        raise Unbuildable(f"{len(shown)} {found.noun} whose pages state both, for {k} slots")
    chosen = rng.sample(shown, k)
    names = sorted(m.name for m in found.valid)
    urls = sorted({f.url for m in found.valid for f in m.facts})
    noun = found.noun if k > 1 else found.one
    question = (
        f"Name {number_word(k)} {noun} {found.phrase}. Cite a page for each condition."
        + EXACT_ASK.format(what="; ".join(["<name>"] * k))
    )
    slots = [_slot(i, k, found, names, urls, depth) for i in range(1, k + 1)]
    slots.append(
        leaf(
            "not_padded",
            f"At most {k + PADDING} {found.noun} are committed to: a list of all earns nothing",
            {"kind": "at_most", "values": found.universe, "most": k + PADDING, "committed": True},
            True,
        )
    )
    root = group("root", question, slots)
    facts = [f for m in chosen for f in m.facts]
    others = [m for m in shown if m not in chosen]
    swap = rng.sample(others, min(len(others), k))
    alternative = [f for m in swap + chosen[len(swap) :] for f in m.facts]
    return Draft(
        "intersection",
        question,
        root,
        facts,
        {
            m.name: {
                "description": "; ".join(f.sentence for f in m.facts) + ".",
                "reference_urls": sorted({f.url for f in m.facts}),
            }
            for m in chosen
        },
        (found.phrase, str(k)),
        [alternative],
        [f"{len(found.valid)} valid {found.noun} for {k} slots"],
        exact="; ".join(m.name for m in chosen),
        oracle={
            **oracle("find_k", names, [], sorted(found.near)),
            "k": k,
            "distractors": sorted(found.near),
        },
        domains=tuple(dict.fromkeys(domain_of_url(f.url) for f in facts)),
        topic=found.topic,
        subjects=(found.anchor, *(m.name for m in chosen)),
    )


def _slot(
    i: int, k: int, found: Intersection, names: list[str], urls: list[str], depth: int
) -> Any:
    # Inside its group the slot is critical: a citation alone earns nothing; so is the one
    # slot of a task that asks for one item.
    slot = leaf(
        f"item_{i}",
        f"Item {i}: {'an' if found.one[0] in 'aeiou' else 'a'} {found.one} {found.phrase}",
        {"kind": "one_of", "values": names, "committed": True, "at_least": i},
        depth > 1 or k == 1,
    )
    if depth == 1:
        return slot
    cited = leaf(
        f"item_{i}_cited",
        f"Item {i}: a page showing a valid item is cited",
        {"kind": "cites_url", "urls": urls},
        False,
    )
    return group(f"item_{i}_group", f"Item {i} is valid and sourced", [slot, cited])
