"""The contracts every domain returns: entities, typed facts with the page that states each, the
pages themselves, and what was left out and why."""

from __future__ import annotations

from dataclasses import dataclass, field

from quest.corpus.model import Document

Value = str | int | float


@dataclass(frozen=True)
class Entity:
    """A thing facts are about. `id` is `<kind>:<key>` where the key is the join key other
    domains use: `country:FR` (ISO 3166-1 alpha-2), `language:es` (ISO 639), `element:O`,
    `airport:LHR` (IATA), `us_state:CA`, `subdivision:US-CA` (ISO 3166-2), `city:2988507`
    (GeoNames id), `holiday:FR:2026-07-14`."""

    id: str
    kind: str
    name: str
    url: str  # the page that introduces it

    @property
    def key(self) -> str:
        return self.id.split(":", maxsplit=1)[1]


@dataclass(frozen=True)
class Fact:
    """`subject relation value`, stated on the page at `url`. When `is_entity`, `value` is
    another entity's id (the join); otherwise a literal in `unit` ("year", "ft", "K", "g/cm3",
    "%", "date", or "" for a plain name or count)."""

    subject: str
    relation: str
    value: Value
    url: str
    unit: str = ""
    is_entity: bool = False
    qualifier: str = ""  # an entity id the fact holds for: speakers of a language *in* a country
    domain: str = ""  # the domain that stated it ("airports"): a task's categories come from it


@dataclass(frozen=True)
class Dropped:
    """A record or fact a domain left out: `what` names it, `reason` says why."""

    domain: str
    what: str
    reason: str


@dataclass
class DomainData:
    """One domain's pages, entities and facts, built from the same records so they agree."""

    name: str
    documents: list[Document] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)

    def fact(
        self,
        subject: str,
        relation: str,
        value: Value,
        url: str,
        unit: str = "",
        *,
        qualifier: str = "",
    ) -> None:
        fact = Fact(subject, relation, value, url, unit, qualifier=qualifier, domain=self.name)
        self.facts.append(fact)

    def link(self, subject: str, relation: str, target: str, url: str) -> None:
        self.facts.append(Fact(subject, relation, target, url, is_entity=True, domain=self.name))

    def drop(self, what: str, reason: str) -> None:
        self.dropped.append(Dropped(self.name, what, reason))
