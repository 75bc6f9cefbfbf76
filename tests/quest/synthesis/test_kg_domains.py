from __future__ import annotations

import pytest

from quest.corpus.domains import DomainData, Entity, Fact
from quest.corpus.domains.airports import airport_url, country_airports_url
from quest.corpus.domains.languages import language_url
from quest.synthesis.kg_domains import DomainGraph


@pytest.fixture(scope="module")
def graph() -> DomainGraph:
    return DomainGraph.load()


def small() -> DomainGraph:
    """Two countries sharing a language, each with two airports; one has a tie for highest."""
    data = DomainData("test")
    for iso in ("AA", "BB"):
        data.entities.append(Entity(f"country:{iso}", "country", iso, f"https://x/{iso}"))
        data.link(f"country:{iso}", "official_language", "language:xx", f"https://x/{iso}")
        data.link("language:xx", "official_in", f"country:{iso}", "https://x/xx")
    data.entities.append(Entity("language:xx", "language", "Xish", "https://x/xx"))
    for code, iso, feet in (("AAA", "AA", 100), ("AAB", "AA", 900), ("BBA", "BB", 50)):
        data.entities.append(Entity(f"airport:{code}", "airport", code, f"https://x/{code}"))
        data.link(f"airport:{code}", "located_in", f"country:{iso}", f"https://x/{code}")
        data.fact(f"airport:{code}", "elevation", feet, f"https://x/{code}", "ft")
    data.entities.append(Entity("airport:BBB", "airport", "BBB", "https://x/BBB"))
    data.link("airport:BBB", "located_in", "country:BB", "https://x/BBB")
    data.fact("airport:BBB", "elevation", 50, "https://x/BBB", "ft")
    return DomainGraph.from_domains([data])


def test_an_entitys_facts_come_with_the_page_that_states_them() -> None:
    g = small()
    facts = g.facts_of("airport:AAB")
    assert {(f.relation, f.value) for f in facts} == {
        ("located_in", "country:AA"),
        ("elevation", 900),
    }
    assert all(f.url == "https://x/AAB" and f.domain == "test" for f in facts)
    assert g.value("airport:AAB", "elevation") == 900
    assert g.value("country:AA", "elevation") is None


def test_entities_with_a_relation_to_a_value_are_found_for_literals_and_joins() -> None:
    g = small()
    assert [e.id for e in g.with_value("elevation", 50)] == ["airport:BBA", "airport:BBB"]
    assert [e.id for e in g.with_value("located_in", "country:AA")] == [
        "airport:AAA",
        "airport:AAB",
    ]


def test_a_walk_follows_links_forwards_and_backwards_across_domains() -> None:
    g = small()
    assert [e.id for e in g.walk("country:AA", "official_language", "official_in")] == [
        "country:AA",
        "country:BB",
    ]
    assert [e.id for e in g.walk("country:BB", "^located_in")] == ["airport:BBA", "airport:BBB"]


def test_the_extreme_of_a_figure_is_unique_or_there_is_none() -> None:
    g = small()
    assert g.extreme(g.walk("country:AA", "^located_in"), "elevation") == g.entity("airport:AAB")
    lowest = g.extreme(g.walk("country:AA", "^located_in"), "elevation", highest=False)
    assert lowest == g.entity("airport:AAA")
    assert g.extreme(g.walk("country:BB", "^located_in"), "elevation") is None  # a tie
    assert g.extreme([], "elevation") is None


def test_neighbours_are_found_in_both_directions() -> None:
    g = small()
    found = {(f.relation, e.id) for f, e in g.neighbours("country:BB")}
    assert found == {
        ("official_language", "language:xx"),
        ("official_in", "language:xx"),
        ("located_in", "airport:BBA"),
        ("located_in", "airport:BBB"),
    }


def test_the_same_fact_or_entity_from_two_domains_is_held_once() -> None:
    fact = Fact("a:1", "r", "v", "https://x/1")
    entity = Entity("a:1", "a", "One", "https://x/1")
    g = DomainGraph([entity, entity], [fact, fact])
    assert len(g.entities) == 1 and g.facts_of("a:1") == [fact]


def test_every_join_of_the_installed_domains_resolves(graph: DomainGraph) -> None:
    assert graph.unresolved() == []
    kinds = {e.kind for e in graph.entities.values()}
    assert kinds >= {
        "country",
        "element",
        "airport",
        "language",
        "us_state",
        "holiday",
        "subdivision",
        "city",
    }


def test_a_country_reaches_every_domain_through_its_neighbours(graph: DomainGraph) -> None:
    kinds = {e.kind for _, e in graph.neighbours("country:FR")}
    assert kinds >= {"country", "airport", "language", "holiday", "subdivision", "element"}
    assert {"country:US"} == {str(f.value) for f in graph.facts_of("us_state:TX", "part_of")}


def test_the_chain_from_a_country_to_the_highest_airport_where_its_language_is_official(
    graph: DomainGraph,
) -> None:
    languages = graph.walk("country:BO", "official_language")
    assert {e.id for e in languages} == {"language:es", "language:qu", "language:ay"}
    assert graph.entity("language:es").url == language_url("es")
    countries = graph.walk("country:BO", "official_language", "official_in")
    assert "country:PE" in {c.id for c in countries}
    highest = graph.extreme(graph.walk("country:PE", "^located_in"), "elevation")
    assert highest is not None
    stated = graph.facts_of("country:PE", "highest_airport")
    assert [f.value for f in stated] == [highest.id]
    assert stated[0].url == country_airports_url("PE")
    assert graph.entity("airport:LPB").url == airport_url("LPB")


def test_a_tasks_categories_are_the_domains_of_its_facts(graph: DomainGraph) -> None:
    chain = [
        *graph.facts_of("country:BO", "official_language"),
        *graph.facts_of("country:PE", "highest_airport"),
        *graph.facts_of("element:O", "discovery_year"),
    ]
    assert graph.domains_of(chain) == ["languages", "airports", "elements"]


def test_facts_of_one_relation_and_entities_of_one_kind(graph: DomainGraph) -> None:
    assert graph.value("element:O", "discovery_year") == 1774
    assert graph.value("us_state:CA", "statehood_year") == 1850
    assert len(graph.of_kind("element")) == 118
    sweden = {e.id for e in graph.with_value("discovered_in", "country:SE")}
    assert "element:O" in sweden
