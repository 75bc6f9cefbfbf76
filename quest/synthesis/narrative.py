"""Narrative grounding: facts of the graphs that a Wikipedia page of the corpus states.

Every fact the kg synthesizer writes comes from a record page (GeoNames, countryinfo, a data
domain's page). The corpus also holds Wikipedia summaries, which no task used as evidence. The
narrative index finds, for each graph fact (quest.synthesis.kg's countries, the domain graph of
quest.synthesis.kg_domains), the Wikipedia page of its subject (or, for a capital, of the
capital) and asks the reward's own support check (quest.rubric.support.page_support) whether
one window of that page states the fact as the generator writes it, or in a plain rewording.
`ground` then makes that page a draft's evidence for the facts it states: the reference answer
cites it and the fact's source leaf is met by it, so the reference answer needs the narrative
page (remove it from the store and that leaf fails).

Facts a record qualifies ("according to GeoNames", "listed by GeoNames") are never grounded: a
Wikipedia figure is not GeoNames' figure. The tree still accepts any cited page that states a
fact (source leaves name no URL), so an answer citing the record page also passes; the draft's
alternatives keep their record-page facts and the non-exclusive stage shows that. A grounded
fact keeps an `alt_url` only where that page states the new sentence too.

The index is built once per process from the package's Wikipedia data (about a second: a page
is looked up by title, and the value must appear in its text before the support check runs);
`ground` uses only pages the task's store has, so a corpus without Wikipedia does nothing.
"""

from __future__ import annotations

import functools
import random
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from quest.corpus.model import CorpusError
from quest.corpus.wiki import SHORT_DESCRIPTION, load_wikipedia
from quest.rubric.documents import Document, DocumentStore
from quest.rubric.support import page_support
from quest.synthesis.facts import SENTENCE_BREAK, Draft, Fact, capital_fact
from quest.synthesis.families.factbook import figure_fact, link_fact
from quest.synthesis.kg import Country, KnowledgeGraph
from quest.synthesis.kg_domains import DomainGraph

# Words a page's short description must hold to be about an entity of this kind: "Georgia" is
# a country and a U.S. state, "Washington" a state, a city and a president.
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "country": ("country", "state in", "island", "nation", "territory", "kingdom", "republic"),
    "city": ("city", "capital", "town", "municipality", "metropolis", "commune"),
    "element": ("element",),
    "language": ("language",),
    "us_state": ("u.s. state",),
    "airport": ("airport",),
    "holiday": ("holiday", "festival", "observance", "day"),
}
# Titles tried before the bare name, most specific first.
QUALIFIED: dict[str, tuple[str, ...]] = {
    "country": ("{} (country)",),
    "us_state": ("{} (U.S. state)", "{} (state)"),
    "language": ("{} language",),
}
# Plain rewordings tried after the generator's sentence; each keeps the words its answer check
# reads ("language", "discovered").
REWORDINGS: dict[str, tuple[str, ...]] = {
    "official_language": (
        "{other} is the official language of {name}",
        "The official language is {other}",
    ),
    "official_in": ("{name} is the official language of {other}",),
    "discovered_in": ("{name} was discovered in {other}",),
}
# Sentences a record qualifies: a narrative page never states the record's own figure.
RECORD_WORDS = ("geonames", "most populous of")
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


@dataclass(frozen=True)
class Grounding:
    """A graph fact a Wikipedia page states: `sentence` is supported there, by `quote`."""

    subject: str
    relation: str
    value: str
    domain: str
    url: str
    sentence: str
    quote: str


@dataclass
class NarrativeIndex:
    by_fact: dict[tuple[str, str], Grounding] = field(default_factory=dict)
    seconds: float = 0.0  # to build it

    def add(self, found: Grounding) -> None:
        self.by_fact.setdefault((found.subject.casefold(), found.value.casefold()), found)

    def find(self, subject: str, value: object) -> Grounding | None:
        return self.by_fact.get((subject.casefold(), _text(value).casefold()))

    def counts(self) -> Counter[tuple[str, str]]:
        """Grounded facts per (domain, relation)."""
        return Counter((g.domain, g.relation) for g in self.by_fact.values())

    def __len__(self) -> int:
        return len(self.by_fact)

    def in_store(self, pages: DocumentStore) -> bool:
        """Whether `pages` holds any page the index grounds a fact on (a corpus loaded
        without Wikipedia holds none)."""
        return any(pages.get(url) is not None for url in dict.fromkeys(self.urls()))

    def urls(self) -> Iterator[str]:
        return (g.url for g in self.by_fact.values())


@functools.cache
def narrative_index() -> NarrativeIndex:
    """The index over both graphs and the package's Wikipedia pages, built once; empty when
    the Wikipedia package is not installed."""
    started = time.perf_counter()
    try:
        titles = {d.title.casefold(): Document(d.url, d.title, d.text) for d in load_wikipedia()}
    except CorpusError:
        return NarrativeIndex()
    index = build_index(titles, KnowledgeGraph.load(), DomainGraph.load())
    index.seconds = time.perf_counter() - started
    return index


def build_index(
    titles: Mapping[str, Document], kg: KnowledgeGraph, graph: DomainGraph
) -> NarrativeIndex:
    index = NarrativeIndex()
    for found in [*_country_groundings(titles, kg), *_domain_groundings(titles, graph)]:
        index.add(found)
    return index


def _country_groundings(titles: Mapping[str, Document], kg: KnowledgeGraph) -> Iterator[Grounding]:
    for c in sorted(kg.countries.values(), key=lambda c: c.iso):
        page = page_of(titles, c.name, "country")
        if c.capital:
            capital_page = page_of(titles, c.capital, "city")
            pages = [p for p in (page, capital_page) if p is not None]
            yield from _first_supported(
                pages, "countries", "capital", c.name, c.capital, _capital_sentences(c)
            )
        if page is None:
            continue
        for n in kg.neighbours(c):
            yield from _first_supported(
                [page], "countries", "borders", c.name, n.name, [f"{c.name} borders {n.name}"]
            )


def _capital_sentences(c: Country) -> list[str]:
    return [
        capital_fact(c).sentence,
        f"{c.capital} is the capital of {c.name}",
        f"The capital city of {c.name} is {c.capital}",
    ]


def _domain_groundings(titles: Mapping[str, Document], graph: DomainGraph) -> Iterator[Grounding]:
    for stated in graph.facts:
        if stated.domain == "countries":
            continue  # the country graph's facts, as the country families write them
        entity = graph.entities.get(stated.subject)
        page = page_of(titles, entity.name, entity.kind) if entity else None
        if page is None:
            continue
        if stated.is_entity:
            made = link_fact(graph, stated.subject, str(stated.value), stated.relation)
        else:
            made = figure_fact(graph, stated.subject, stated.relation)
        if made is None or made.source_check is None:
            continue
        value = made.source_check["value"]
        yield from _first_supported(
            [page], stated.domain, stated.relation, made.subject, value, [made.sentence]
        )


def _first_supported(
    pages: Iterable[Document],
    domain: str,
    relation: str,
    subject: str,
    value: object,
    sentences: list[str],
) -> Iterator[Grounding]:
    """The first (page, sentence) the support check accepts; the value must be in the page's
    text first (the support check is the slow part)."""
    for page in pages:
        if not _mentions(page.text, value):
            continue
        for sentence in sentences:
            found = page_support(sentence, page, must=value)  # type: ignore[arg-type]
            if found.supported and not _other_year(found.quote, value, relation):
                yield Grounding(
                    subject, relation, _text(value), domain, page.url, sentence, found.quote
                )
                return


def _other_year(quote: str, value: object, relation: str) -> bool:
    """A year the window gives besides the fact's ("discovered in 1896 … in 1901, it was
    named"): the page tells another story than the record, which the lexical check misses."""
    return "year" in relation and any(y != _text(value) for y in _YEAR.findall(quote))


def page_of(titles: Mapping[str, Document], name: str, kind: str) -> Document | None:
    """The Wikipedia page titled for this entity whose short description says it is one of its
    kind; None when no title fits."""
    wanted = KIND_WORDS.get(kind)
    if not wanted or not name:
        return None
    for pattern in (*QUALIFIED.get(kind, ()), "{}"):
        page = titles.get(pattern.format(name).casefold())
        if page is not None and any(w in _description(page) for w in wanted):
            return page
    return None


def _description(page: Document) -> str:
    """The short description ("U.S. state"), which ends where the extract opens on the title."""
    if not page.text.startswith(SHORT_DESCRIPTION):
        return page.text[:200].casefold()
    rest = page.text[len(SHORT_DESCRIPTION) :]
    end = rest.find(". " + page.title.split()[0])
    return rest[: end if end >= 0 else 200].casefold()


def _mentions(text: str, value: object) -> bool:
    if isinstance(value, str):
        return value.casefold() in text.casefold()
    if isinstance(value, int | float):
        whole = int(value)
        return str(whole) in text or f"{whole:,}" in text
    return False


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ---------------------------------------------------------------- grounding drafts
@dataclass(frozen=True)
class _Grounded:
    fact: Fact
    needed: bool  # the record page does not state the new sentence


def ground(
    draft: Draft, index: NarrativeIndex, rng: random.Random, *, pages: DocumentStore
) -> Draft:
    """The draft with the facts a Wikipedia page of `pages` states cited to that page: one such
    fact always, preferring one whose record page does not state it in those words, and each
    other with even odds. The same draft when no checked fact of it is grounded."""
    options = {
        i: made for i, fact in enumerate(draft.facts) if (made := _ground_fact(fact, index, pages))
    }
    if not options:
        return draft
    order = sorted(options, key=lambda i: (not options[i].needed, rng.random()))
    chosen = {order[0], *(i for i in order[1:] if rng.random() < 0.5)}
    facts = [options[i].fact if i in chosen else f for i, f in enumerate(draft.facts)]
    urls = sorted({facts[i].url for i in chosen})
    solution = {
        name: {**entry, "reference_urls": sorted({*entry.get("reference_urls", ()), *urls})}
        for name, entry in draft.solution.items()
    }
    return replace(draft, facts=facts, solution=solution)


def narrative_urls(draft: Draft) -> list[str]:
    """The Wikipedia pages a draft cites for a checked fact."""
    return sorted({f.url for f in draft.facts if f.source_check and is_wiki_url(f.url)})


def _ground_fact(fact: Fact, index: NarrativeIndex, pages: DocumentStore) -> _Grounded | None:
    check = fact.source_check
    if check is None or is_wiki_url(fact.url) or _record_qualified(fact.sentence):
        return None
    found = index.find(fact.subject, check["value"])
    page = pages.get(found.url) if found else None
    if found is None or page is None:
        return None
    sentence = _sentence_for(fact, found, page)
    if sentence is None:
        return None
    alt = pages.get(fact.alt_url) if fact.alt_url else None
    alt_states = alt is not None and _states(sentence, alt, check["value"])
    record = pages.get(fact.url)
    needed = record is None or not _states(sentence, record, check["value"])
    grounded = replace(
        fact, url=found.url, sentence=sentence, alt_url=fact.alt_url if alt_states else ""
    )
    return _Grounded(grounded, needed)


def _sentence_for(fact: Fact, found: Grounding, page: Document) -> str | None:
    """The fact's own sentence where the page states each of its lines, else the index's
    supported sentence where the fact is one plain statement its answer check still reads."""
    value = fact.source_check["value"] if fact.source_check else None
    lines = fact.sentence.split(SENTENCE_BREAK)
    if all(page_support(line, page).supported for line in lines) and any(
        _states(line, page, value) for line in lines
    ):
        return fact.sentence
    if fact.leaves or len(lines) > 1 or not _reads(found.sentence, fact.check):
        return None
    return found.sentence


def _reads(sentence: str, check: dict[str, Any]) -> bool:
    """The answer leaf's value and one of its context words are in the sentence."""
    words = sentence.casefold()
    context = check.get("context") or ()
    value = check.get("value")
    return (
        value is not None
        and _mentions(sentence, value)
        and (not context or any(str(w).casefold() in words for w in context))
    )


def _states(sentence: str, page: Document, value: object) -> bool:
    return page_support(sentence, page, must=value).supported  # type: ignore[arg-type]


def _record_qualified(sentence: str) -> bool:
    folded = sentence.casefold()
    return any(w in folded for w in RECORD_WORDS)


def is_wiki_url(url: str) -> bool:
    """A Wikipedia page: evidence for a fact of whatever domain its draft is about."""
    return "wikipedia.org/wiki/" in url
