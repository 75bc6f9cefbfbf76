from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from quest.cli import main
from quest.corpus import Document, attribution
from quest.corpus.domains import DOMAINS, HOLIDAYS_YEAR, DomainData, Fact, domain_data
from quest.corpus.domains.airports import airport_url, country_airports_url
from quest.corpus.domains.common import current_countries, same_place
from quest.corpus.domains.elements import discoverers, element_url
from quest.corpus.domains.languages import country_languages_url, language_url
from quest.corpus.domains.public_holidays import holidays_url
from quest.corpus.domains.subdivisions import subdivisions_url
from quest.corpus.domains.us_states import _capital, us_state_url
from quest.corpus.geonames import geonames_url
from quest.corpus.text import number
from quest.search.searcher import Searcher

STAMP = "2026-01-01T00:00:00+00:00"
PAGE_DOMAINS = [name for name in DOMAINS if name != "countries"]


@pytest.fixture(scope="module")
def domains() -> dict[str, DomainData]:
    return {data.name: data for data in domain_data(fetched_at=STAMP)}


@pytest.fixture(scope="module")
def pages(domains: dict[str, DomainData]) -> dict[str, Document]:
    return {doc.url: doc for data in domains.values() for doc in data.documents}


def facts(data: DomainData, subject: str, relation: str) -> list[Fact]:
    return [f for f in data.facts if f.subject == subject and f.relation == relation]


def test_an_element_page_states_its_discovery_in_one_sentence(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    oxygen = pages[element_url("O")]
    assert oxygen.title == "Oxygen (mendeleev)"
    # mendeleev's own spelling of Priestley is kept: the page shows the source as published
    assert "Oxygen was discovered in 1774 by Joseph Priestly and Carl Wilhelm Scheele." in (
        oxygen.text
    )
    assert "It is in group 16 of the periodic table." in oxygen.text
    elements = domains["elements"]
    assert [f.value for f in facts(elements, "element:O", "discovery_year")] == [1774]
    assert {f.value for f in facts(elements, "element:O", "discovered_by")} == {
        "Joseph Priestly",
        "Carl Wilhelm Scheele",
    }
    assert {f.value for f in facts(elements, "element:O", "discovered_in")} == {"country:SE"}
    assert "Gold has been known since ancient times." in pages[element_url("Au")].text


def test_discoverer_credits_split_on_commas_and_keep_joint_credits_whole() -> None:
    assert discoverers("Sir William Ramsay; M. W. Travers") == [
        "Sir William Ramsay",
        "M. W. Travers",
    ]
    assert discoverers("Pierre and Marie Curie") == ["Pierre and Marie Curie"]
    assert discoverers("A. Ghiorso, et al") == ["A. Ghiorso"]


def test_every_literal_fact_is_stated_on_the_page_it_names(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    checked = 0
    for name in PAGE_DOMAINS:
        for fact in domains[name].facts:
            if fact.is_entity or fact.unit == "date" or fact.value == "yes":
                continue
            figure = isinstance(fact.value, int | float) and fact.unit != "year"
            shown = number(fact.value) if figure else fact.value
            assert str(shown) in pages[fact.url].text, fact
            checked += 1
    assert checked > 20_000


def test_every_page_ends_on_its_source_version_and_licence_and_the_footer_says_so(
    domains: dict[str, DomainData],
) -> None:
    for name in PAGE_DOMAINS:
        for doc in domains[name].documents:
            last = doc.text.rsplit("Source: ", 1)[1]
            assert "package version" in last and f"licence {doc.licence}." in last, doc.url
            assert doc.source in attribution(doc) and doc.licence in attribution(doc)
            assert doc.fetched_at == STAMP
    assert "mendeleev package version 1.3.0; licence MIT" in domains["elements"].documents[0].text


def test_the_domains_add_a_bounded_number_of_pages_at_stable_urls(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    added = sum(len(data.documents) for data in domains.values())
    assert 3_000 <= added <= 5_000
    assert len(pages) == added  # no two pages share a URL
    # nor a title: two languages ISO 639 names alike ("Tonga": to, toi) keep their codes
    assert len({doc.title for doc in pages.values()}) == added
    assert "Tonga (toi) (language, CLDR)" in {doc.title for doc in pages.values()}
    for url in (
        element_url("Fe"),
        airport_url("LHR"),
        country_airports_url("BO"),
        language_url("es"),
        country_languages_url("BO"),
        us_state_url("CA"),
        holidays_url("FR"),
        subdivisions_url("FR"),
    ):
        assert url.startswith("https://") and ".questweb.local/" in url
        assert url in pages, url


def test_airports_keep_iata_airports_with_service_and_state_the_highest_per_country(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    airports = domains["airports"]
    kept = [e for e in airports.entities if e.kind == "airport"]
    assert 1_500 <= len(kept) <= 3_000
    assert all(e.key.isalpha() and len(e.key) == 3 for e in kept)
    el_alto = pages[airport_url("LPB")]
    assert "Its elevation is 13,355 feet (4,071 metres) above sea level." in el_alto.text
    bolivia = pages[country_airports_url("BO")]
    assert "The highest of them is El Alto International Airport (LPB)" in bolivia.text
    assert facts(airports, "country:BO", "highest_airport")[0].value == "airport:LPB"
    assert [f.value for f in facts(airports, "airport:LPB", "located_in")] == ["country:BO"]
    assert not any(e.key in ("NHT",) for e in kept)  # RAF Northolt: military


def test_languages_state_official_status_and_speakers_per_country(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    bolivia = pages[country_languages_url("BO")]
    assert "The official languages of Bolivia are Spanish, Quechua and Aymara." in bolivia.text
    spanish = pages[language_url("es")]
    assert "Spanish is an official language of" in spanish.text
    languages = domains["languages"]
    official = {f.value for f in facts(languages, "language:es", "official_in")}
    assert {"country:ES", "country:BO", "country:AR"} <= official
    speakers = [
        f for f in facts(languages, "language:es", "speakers") if f.qualifier == "country:ES"
    ]
    assert len(speakers) == 1 and speakers[0].unit == "people"


def test_us_states_join_the_united_states_and_their_iso_subdivision(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    states = domains["us_states"]
    assert "Its capital is Sacramento." in pages[us_state_url("CA")].text
    assert "California became a state in 1850." in pages[us_state_url("CA")].text
    links = {
        f.relation: f.value for f in states.facts if f.subject == "us_state:CA" and f.is_entity
    }
    assert links["part_of"] == "country:US"
    assert links["same_as"] == "subdivision:US-CA"
    assert "country:PR" in {f.value for f in facts(states, "us_state:PR", "same_as")}
    assert {d.what for d in states.dropped} >= {"Dakota", "Orleans", "Philippine Islands"}


def test_a_capital_the_us_package_and_geonames_disagree_on_is_dropped() -> None:
    data = DomainData("us_states")
    ponce = SimpleNamespace(name="Puerto Rico", abbr="PR", capital="Ponce", is_territory=True)
    assert _capital(data, "us_state:PR", ponce, {}, us_state_url("PR")) == []
    assert data.facts == []
    assert data.dropped[0].reason == "us says Ponce, GeoNames says San Juan"
    agreeing = SimpleNamespace(name="Guam", abbr="GU", capital="Hagåtña", is_territory=True)
    assert _capital(data, "us_state:GU", agreeing, {}, us_state_url("GU"))  # Hagatna in GeoNames


def test_spellings_of_one_place_agree_and_two_places_do_not() -> None:
    assert same_place("St Peter Port", "St. Peter Port")
    assert same_place("Washington", "Washington D.C.")
    assert same_place("San Marino", "City of San Marino")
    assert not same_place("Gitega", "Bujumbura")
    assert not same_place("Tarawa", "")


def test_holidays_are_for_one_fixed_year_with_their_dates_and_weekdays(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    assert HOLIDAYS_YEAR == 2026
    france = pages[holidays_url("FR")]
    assert france.title == "Public holidays in France, 2026 (holidays)"
    assert "National Day is a public holiday in France on Tuesday, 14 July 2026." in france.text
    holiday = [f for f in domains["holidays"].facts if f.subject == "holiday:FR:2026-07-14"]
    assert {(f.relation, f.value) for f in holiday} >= {
        ("date", "2026-07-14"),
        ("observed_in", "country:FR"),
    }


def test_subdivisions_are_listed_per_country_with_their_iso_codes(
    domains: dict[str, DomainData], pages: dict[str, Document]
) -> None:
    france = pages[subdivisions_url("FR")]
    assert "Île-de-France (FR-IDF)" in france.text
    data = domains["subdivisions"]
    assert facts(data, "subdivision:FR-IDF", "subdivision_of")[0].value == "country:FR"


def test_dissolved_countries_and_their_borders_are_left_out(
    domains: dict[str, DomainData],
) -> None:
    countries = current_countries()
    assert countries.get("AN") is None and countries.get("CS") is None
    assert "2010-12-15" in countries.left_out["AN"]
    every = [f for data in domains.values() for f in data.facts]
    assert not any("country:AN" in (f.subject, f.value) for f in every)
    borders = {f.value for f in domains["countries"].facts if f.relation == "borders"}
    assert "country:GP" not in borders  # GeoNames' only "neighbour" of Guadeloupe was AN
    assert any(f.subject == "country:FR" and f.value == "country:ES" for f in every)


def test_capitals_the_two_country_sources_disagree_on_are_dropped(
    domains: dict[str, DomainData],
) -> None:
    countries = domains["countries"]
    assert facts(countries, "country:BI", "capital") == []  # Gitega or Bujumbura
    assert any(d.what == "capital of country:BI" for d in countries.dropped)
    assert [f.value for f in facts(countries, "country:FR", "capital")] == ["Paris"]
    assert facts(countries, "country:FR", "capital")[0].url == geonames_url(3017382)


def test_load_all_writes_a_corpus_that_bm25_indexes_and_finds_element_and_airport_pages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "corpus"
    assert main(["corpus", "load", "--source", "all", "--out", str(out)]) == 0
    loaded = capsys.readouterr()
    sources = json.loads(loaded.out)["corpus"]["sources"]
    assert {"wikipedia", "geonames", "countryinfo", "mendeleev", "airportsdata"} <= set(sources)
    assert "elements: 118 pages" in loaded.err and "wiki: " in loaded.err
    assert main(["corpus", "index", str(out), "--only", "bm25"]) == 0
    searcher = Searcher.open(out)
    oxygen = searcher.search("oxygen discovered 1774 Priestly Scheele", mode="bm25", k=5)
    assert element_url("O") in [r.url for r in oxygen]
    el_alto = searcher.search("El Alto International Airport elevation", mode="bm25", k=5)
    assert airport_url("LPB") in [r.url for r in el_alto]


def test_an_unknown_domain_is_named_in_the_error() -> None:
    with pytest.raises(Exception, match="unknown domain volcanoes"):
        domain_data(["volcanoes"])
