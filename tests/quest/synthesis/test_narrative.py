from __future__ import annotations

import random
from typing import Any

import pytest

from quest.corpus import CorpusStore, load_countryinfo, load_geonames, load_wikipedia
from quest.rubric.documents import InMemoryDocumentStore
from quest.rubric.evaluate import check_context, leaf_verdicts
from quest.synthesis.categories import categorise, domain_of_url
from quest.synthesis.facts import Draft, capital_fact
from quest.synthesis.funnel import schema_stage
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.model import BatchSpec
from quest.synthesis.narrative import ground, narrative_index, narrative_urls
from quest.synthesis.runner import synthesize

WIKI = "https://en.wikipedia.org/wiki/"


@pytest.fixture(scope="module")
def wiki_pages() -> InMemoryDocumentStore:
    """The GeoNames, countryinfo and Wikipedia pages of the corpus."""
    return InMemoryDocumentStore([*load_geonames(), *load_countryinfo(), *load_wikipedia()])


@pytest.fixture(scope="module")
def accepted(wiki_pages: InMemoryDocumentStore) -> list[dict[str, Any]]:
    spec = BatchSpec(count=12, seed=3, categories={"General Info.": 1.0}, baseline=False)
    return [c.record for c in synthesize(spec, pages=wiki_pages, top_hit=False) if c.accepted]


def test_the_index_finds_a_capital_on_the_capitals_page() -> None:
    found = narrative_index().find("France", "Paris")
    assert found is not None
    assert found.url == WIKI + "Paris"
    assert "Capital of France" in found.quote  # the short description of Paris


def test_the_index_finds_an_elements_discovery_year() -> None:
    found = narrative_index().find("Scandium", 1879)
    assert found is not None and found.relation == "discovery_year"
    assert "1879" in found.quote


def test_the_index_leaves_out_a_year_the_page_tells_otherwise() -> None:
    # "Europium was discovered in 1896 … in 1901, it was named": not the record's 1901.
    assert narrative_index().find("Europium", 1901) is None


def test_it_counts_grounded_facts_per_relation() -> None:
    counts = narrative_index().counts()
    assert counts[("countries", "capital")] > 50
    assert counts[("countries", "borders")] > 200


def test_a_grounded_capital_cites_the_wikipedia_page() -> None:
    kg = KnowledgeGraph.load()
    france = next(c for c in kg.countries.values() if c.name == "France")
    fact = capital_fact(france)
    pages = InMemoryDocumentStore([d for d in load_wikipedia() if d.title == "Paris"])
    draft = Draft("lookup", "q", {}, [fact], {}, ("France",))
    grounded = ground(draft, narrative_index(), random.Random(1), pages=pages)
    assert grounded.facts[0].url == WIKI + "Paris"
    assert narrative_urls(grounded) == [WIKI + "Paris"]
    # A Wikipedia page is evidence, not a data domain of its own nor a country record.
    assert domain_of_url(WIKI + "Paris") == ""
    assert categorise(grounded)[2] == categorise(draft)[2] == ["countries"]


def test_accepted_tasks_cite_wikipedia_and_their_reference_earns_full_reward(
    accepted: list[dict[str, Any]],
) -> None:
    narrative = [r for r in accepted if r["provenance"].get("narrative")]
    assert narrative
    for record in narrative:
        assert all(u in record["reference_answer"] for u in record["provenance"]["narrative_urls"])
        funnel = {s["name"]: s for s in record["provenance"]["funnel"]}
        assert funnel["solvability"]["detail"]["reward"] >= 0.95


def _passed(record: dict[str, Any], store: InMemoryDocumentStore) -> set[str]:
    _, compiled = schema_stage(record)
    assert compiled is not None
    verdicts = leaf_verdicts(compiled, check_context(compiled, record["reference_answer"], store))
    return {leaf for leaf, verdict in verdicts.items() if verdict.status == "pass"}


def test_without_the_wikipedia_page_the_source_leaf_fails(
    accepted: list[dict[str, Any]], wiki_pages: InMemoryDocumentStore
) -> None:
    record = next(r for r in accepted if r["provenance"].get("narrative"))
    gone = set(record["provenance"]["narrative_urls"])
    without = InMemoryDocumentStore([d for d in wiki_pages.documents() if d.url not in gone])
    failed = _passed(record, wiki_pages) - _passed(record, without)
    assert failed and all(leaf.endswith("_sourced") for leaf in failed)


def test_a_corpus_without_wikipedia_pages_grounds_nothing(pages: CorpusStore) -> None:
    spec = BatchSpec(count=4, seed=3, categories={"General Info.": 1.0}, baseline=False)
    for candidate in synthesize(spec, pages=pages, top_hit=False):
        assert "narrative" not in candidate.record["provenance"]
        assert "wikipedia.org" not in candidate.record.get("reference_answer", "")
