"""The multi-domain knowledge graph: countries, elements, airports, languages, US states,
public holidays and subdivisions (quest.corpus.domains), joined by entity ids whose keys are
shared codes (`country:BO` is what an airport is `located_in` and a language is `official_in`).

Every fact carries the URL of the corpus page that states it and the domain that stated it, so
a task built from a walk over the graph has a page for each step and real categories. The
lookups are the ones task families need: an entity's facts, the entities with a relation to a
value, links followed forwards or backwards (`walk`), every neighbour across domains, and the
unique extreme of a figure over a set (ties give no answer rather than an arbitrary one).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence

from quest.corpus.domains import DomainData, Entity, Fact, Value, domain_data
from quest.rubric.documents import Document

INVERSE = "^"  # `walk(start, "^official_in")` follows official_in links backwards


class DomainGraph:
    def __init__(
        self,
        entities: Iterable[Entity],
        facts: Iterable[Fact],
        pages: Iterable[Document] = (),
    ) -> None:
        # The domains' pages, so a task family can check a sentence against the page it cites.
        self.pages: dict[str, Document] = {page.url: page for page in pages}
        self.entities: dict[str, Entity] = {}
        for entity in entities:
            self.entities.setdefault(entity.id, entity)  # a city met twice is one city
        self.facts: list[Fact] = list(dict.fromkeys(facts))
        self._by_subject: dict[str, list[Fact]] = defaultdict(list)
        self._by_value: dict[tuple[str, Value], list[Fact]] = defaultdict(list)
        self._by_target: dict[str, list[Fact]] = defaultdict(list)
        self._of_kind: dict[str, tuple[Entity, ...]] = {}
        for fact in self.facts:
            self._by_subject[fact.subject].append(fact)
            self._by_value[(fact.relation, fact.value)].append(fact)
            if fact.is_entity:
                self._by_target[str(fact.value)].append(fact)

    @classmethod
    def from_domains(cls, domains: Iterable[DomainData]) -> DomainGraph:
        built = list(domains)
        return cls(
            (e for d in built for e in d.entities),
            (f for d in built for f in d.facts),
            (p for d in built for p in d.documents),
        )

    @classmethod
    @functools.cache
    def load(cls) -> DomainGraph:
        """Every domain, built from the installed packages (a few seconds; cached)."""
        return cls.from_domains(domain_data())

    def entity(self, entity_id: str) -> Entity:
        return self.entities[entity_id]

    def of_kind(self, kind: str) -> list[Entity]:
        if kind not in self._of_kind:
            found = (e for e in self.entities.values() if e.kind == kind)
            self._of_kind[kind] = tuple(sorted(found, key=lambda e: e.id))
        return list(self._of_kind[kind])

    def facts_of(self, entity_id: str, relation: str | None = None) -> list[Fact]:
        facts = self._by_subject.get(entity_id, [])
        return [f for f in facts if relation is None or f.relation == relation]

    def values(self, entity_id: str, relation: str) -> list[Value]:
        return list(dict.fromkeys(f.value for f in self.facts_of(entity_id, relation)))

    def value(self, entity_id: str, relation: str) -> Value | None:
        """The one value of a single-valued relation; None when there is none or several."""
        found = self.values(entity_id, relation)
        return found[0] if len(found) == 1 else None

    def with_value(self, relation: str, value: Value) -> list[Entity]:
        """The entities whose `relation` is `value` (a literal, or an entity id for a join)."""
        subjects = dict.fromkeys(f.subject for f in self._by_value.get((relation, value), []))
        return [self.entities[s] for s in subjects if s in self.entities]

    def linked(self, entity_id: str, relation: str) -> list[Entity]:
        """The entities `entity_id` points at through `relation`."""
        targets = [str(f.value) for f in self.facts_of(entity_id, relation) if f.is_entity]
        return [self.entities[t] for t in dict.fromkeys(targets) if t in self.entities]

    def linking(self, entity_id: str, relation: str) -> list[Entity]:
        """The entities that point at `entity_id` through `relation`."""
        facts = self._by_target.get(entity_id, [])
        subjects = dict.fromkeys(f.subject for f in facts if f.relation == relation)
        return [self.entities[s] for s in subjects if s in self.entities]

    def walk(self, start: str, *relations: str) -> list[Entity]:
        """Follow each relation in turn from `start`; `^relation` follows it backwards.
        `walk("country:BO", "official_language", "official_in")`: the countries where one of
        Bolivia's official languages is official (Bolivia among them)."""
        current = [start]
        for relation in relations:
            step: dict[str, None] = {}
            for entity_id in current:
                found = (
                    self.linking(entity_id, relation[1:])
                    if relation.startswith(INVERSE)
                    else self.linked(entity_id, relation)
                )
                step.update(dict.fromkeys(e.id for e in found))
            current = list(step)
        return [self.entities[e] for e in current if e in self.entities]

    def neighbours(self, entity_id: str) -> list[tuple[Fact, Entity]]:
        """Every entity joined to `entity_id` by a fact, either way, across all domains."""
        out = [(f, self.entities[str(f.value)]) for f in self.facts_of(entity_id) if f.is_entity]
        back = [(f, self.entities[f.subject]) for f in self._by_target.get(entity_id, [])]
        return [(f, e) for f, e in [*out, *back] if e.id in self.entities]

    def extreme(
        self, entities: Sequence[Entity], relation: str, *, highest: bool = True
    ) -> Entity | None:
        """The one entity with the highest (or lowest) numeric `relation`; None when no entity
        has a single figure, or two share the extreme (the question would have two answers)."""
        figures = []
        for entity in entities:
            value = self.value(entity.id, relation)
            if isinstance(value, int | float) and not isinstance(value, bool):
                figures.append((value if highest else -value, entity))
        figures.sort(key=lambda pair: pair[0], reverse=True)
        if not figures or (len(figures) > 1 and figures[0][0] == figures[1][0]):
            return None
        return figures[0][1]

    def unresolved(self) -> list[Fact]:
        """Joins whose target is no entity of the graph (none, when every domain is loaded)."""
        return [f for f in self.facts if f.is_entity and str(f.value) not in self.entities]

    def domains_of(self, facts: Iterable[Fact]) -> list[str]:
        """The domains a set of facts comes from, in first-seen order: a task's categories."""
        return list(dict.fromkeys(f.domain for f in facts))
