"""Two worlds before any task is proposed: the knowledge graph's entities split, seeded, into a
train world and a held-out world, so that held-out tasks are about places no train task names.

Splitting tasks after synthesis fails on the multi-domain graph: hubs (a country's neighbours,
an element's country of discovery) join nearly every task to every other, and a third of the
tasks named entities of both sides. Here the entities are split first and each synthesis batch
draws from one world (`Scope`): its pages of the other world are hidden from the synthesizer,
so it picks subjects and hops in its own world, and a draft that still names an entity of the
other world is refused before the funnel spends anything on it.

- **Countries** go to the held-out world a region at a time: a seeded start and its neighbours
  outwards, REGION countries at most, until the share is reached. Regions keep a country's
  neighbours mostly on its side, so chains and "borders X" clues can stay inside a world.
- **What hangs off a country** follows it: its names and other spellings (quest.text.aliases),
  capital, largest cities, airports, subdivisions, holidays, an element discovered there, a US
  state (the United States). A city follows the airport or state that links to it.
- **Languages** follow the countries they are spoken or official in when those are all on one
  side; a language of both worlds (English, Spanish) cannot be partitioned and is **shared**,
  as are the continents: values many entities of both worlds have, like a currency code (which
  quest.synthesis.entities never counts as an entity).
- **An entity tied to both** (an element discovered in two countries of different worlds) is
  shared the same way.
- **A name of entities on both sides** ("New Year's Day", "Georgia", a city name two countries
  use) is **contested**: shared too, and listed, since naming it tells nothing about either.

Names the graph does not know are no entity of either world. A batch's task must name at least
one entity of its own world, so no task made only of shared values lands on both sides.
"""

from __future__ import annotations

import random
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from quest.rubric.stats import tree_stats
from quest.synthesis.entities import entity_key, in_slice, task_entities
from quest.synthesis.facts import Draft
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.kg_domains import DomainGraph
from quest.text.aliases import aliases

Side = Literal["train", "heldout"]
SIDES: tuple[Side, Side] = ("train", "heldout")
REGION = 6  # countries per held-out region at most
# Relations that tie an entity to the country it belongs to.
BELONGS = ("located_in", "observed_in", "subdivision_of", "part_of", "discovered_in")
SPOKEN = ("official_in", "regional_official_in", "de_facto_official_in", "spoken_in")


@dataclass(frozen=True)
class Worlds:
    seed: int
    share: float  # of the countries, in the held-out world
    sides: Mapping[str, Side]  # entity key -> its world
    shared: Mapping[str, str]  # key -> why it is on neither side ("continent", "contested" ...)
    pages: Mapping[str, Side]  # page url -> the world of the entity it introduces
    countries: Mapping[str, Side]  # ISO alpha-2 -> its world

    def side_of(self, name: str) -> Side | None:
        """The world of a name; None for a shared name or one the graph does not know."""
        return self.sides.get(entity_key(name))

    def has_page(self, side: Side, inner: Callable[[str], bool]) -> Callable[[str], bool]:
        """`inner`, blind to the pages of the other world's entities."""

        def visible(url: str) -> bool:
            return self.pages.get(url, side) == side and inner(url)

        return visible

    def summary(self) -> dict[str, Any]:
        count = {s: sum(1 for v in self.countries.values() if v == s) for s in SIDES}
        names = {s: sum(1 for v in self.sides.values() if v == s) for s in SIDES}
        reasons: dict[str, int] = defaultdict(int)
        for why in self.shared.values():
            reasons[why] += 1
        return {
            "seed": self.seed,
            "heldout_share": self.share,
            "countries": count,
            "names": names,
            "shared": dict(sorted(reasons.items())),
            "heldout_countries": sorted(c for c, s in self.countries.items() if s == "heldout"),
        }


@dataclass(frozen=True)
class Scope:
    """Where one synthesis batch draws from: one world, with or without the out-of-family
    slice (a family or a class, quest.synthesis.entities.in_slice)."""

    worlds: Worlds
    side: Side
    slice: str | None = None
    slice_only: bool = False  # True: only tasks of the slice; False: none of them

    def refusal(self, record: Mapping[str, Any]) -> str | None:
        """Why a task (a record, or a draft as one: `draft_record`) is not of this scope."""
        if self.slice and in_slice(record, self.slice) != self.slice_only:
            return f"{'not ' if self.slice_only else ''}of the slice {self.slice}"
        names = task_entities(record)
        other = sorted(n for n in names if self.worlds.sides.get(n, self.side) != self.side)
        if other:
            return f"names {', '.join(other[:3])} of the other world"
        if not any(self.worlds.sides.get(n) == self.side for n in names):
            return f"names no entity of the {self.side} world"
        return None


def draft_record(draft: Draft) -> dict[str, Any]:
    """The parts of a task record that say what it is about, from a draft."""
    rubric = {"root": draft.tree_root}
    record = {
        "question": draft.question,
        "oracle": draft.oracle,
        "solution": draft.solution,
        "rubric": rubric,
        "provenance": {"family": draft.family},
    }
    return {**record, "complexity": tree_stats(rubric).get("complexity", "")}


def partition(
    seed: int,
    share: float,
    kg: KnowledgeGraph | None = None,
    graph: DomainGraph | None = None,
) -> Worlds:
    """The two worlds of `seed`: deterministic for the seed, the share and the graph."""
    kg = kg or KnowledgeGraph.load()
    graph = graph or DomainGraph.load()
    countries = _countries(kg, seed, share)
    # A country's own names first: "Armenia" is the country before it is a city of Colombia.
    primary: dict[str, set[Side]] = defaultdict(set)
    named: dict[str, set[Side]] = defaultdict(set)
    pages: dict[str, Side] = {}

    def claim(
        side: Side, names: Iterable[str], urls: Iterable[str] = (), into: Any = named
    ) -> None:
        for name in names:
            if name and name.strip():
                into[entity_key(name)].add(side)
        for url in urls:
            if url:
                pages[url] = side

    for iso, side in countries.items():
        c = kg.get(iso)
        cities = [*c.largest_cities, *([c.capital_city] if c.capital_city else [])]
        spellings = {n for name in (c.name, c.ci_name) if name for n in aliases(name)}
        claim(side, spellings, into=primary)
        claim(side, [c.capital, c.ci_capital, *(x.name for x in cities)])
        claim(side, (), [c.url, c.ci_url, *(x.url for x in cities)])
    entity_sides = _entity_sides(graph, countries, seed, share)
    for entity_id, side in entity_sides.items():
        entity = graph.entity(entity_id)
        claim(side, [entity.name], [entity.url])
    shared: dict[str, str] = {entity_key(c): "continent" for c in kg.continents()}
    for entity in graph.entities.values():
        if entity.id not in entity_sides:  # its ties reach both worlds
            why = "spoken in both worlds" if entity.kind == "language" else "tied to both worlds"
            shared.setdefault(entity_key(entity.name), why)
    sides: dict[str, Side] = {}
    for key in named.keys() | primary.keys():
        found = primary.get(key) or named[key]
        if key in shared:
            continue
        if len(found) > 1:
            shared[key] = "contested"
        else:
            sides[key] = next(iter(found))
    return Worlds(seed, share, sides, shared, pages, countries)


def _countries(kg: KnowledgeGraph, seed: int, share: float) -> dict[str, Side]:
    """Regions of neighbouring countries to the held-out world until `share` of them is."""
    order = sorted(kg.countries)
    rng = random.Random(f"worlds:{seed}")
    rng.shuffle(order)
    target = round(share * len(order))
    held: set[str] = set()
    for start in order:
        if len(held) >= target:
            break
        if start in held:
            continue
        region, queue = [start], deque([start])
        while queue and len(region) < REGION and len(held) + len(region) < target:
            around = [n for n in kg.get(queue.popleft()).neighbours if n in kg.countries]
            rng.shuffle(around)
            for iso in around:
                if iso not in held and iso not in region and len(region) < REGION:
                    region.append(iso)
                    queue.append(iso)
        held.update(region)
    return {iso: "heldout" if iso in held else "train" for iso in sorted(kg.countries)}


def _entity_sides(
    graph: DomainGraph, countries: Mapping[str, Side], seed: int, share: float
) -> dict[str, Side]:
    """Each domain entity's world: its country's, or its linked entities' (see the module);
    missing for a language of both worlds."""
    sides: dict[str, Side] = {}
    for entity in graph.entities.values():
        if entity.kind == "country" and entity.key in countries:
            sides[entity.id] = countries[entity.key]
    rng = random.Random(f"worlds-free:{seed}")
    for entity in sorted(graph.entities.values(), key=lambda e: e.id):
        if entity.id in sides or entity.kind in ("country", "city"):
            continue
        relations = SPOKEN if entity.kind == "language" else BELONGS
        found = {
            sides[str(f.value)]
            for f in graph.facts_of(entity.id)
            if f.relation in relations and str(f.value) in sides
        }
        if len(found) == 1:
            sides[entity.id] = next(iter(found))
        elif not found:
            sides[entity.id] = "heldout" if rng.random() < share else "train"
    for entity in graph.entities.values():  # a city: the world of what links to it
        if entity.kind == "city":
            found = {sides[e.id] for _, e in graph.neighbours(entity.id) if e.id in sides}
            if len(found) == 1:
                sides[entity.id] = next(iter(found))
    return sides
