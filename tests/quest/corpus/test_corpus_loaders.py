from __future__ import annotations

import itertools

import pytest

from quest.corpus import (
    COUNTRYINFO,
    GEONAMES,
    WIKIPEDIA,
    Document,
    load_countryinfo,
    load_geo,
    load_geonames,
    load_wikipedia,
    wikipedia_url,
)
from quest.corpus.text import language

STAMP = "2026-01-01T00:00:00+00:00"


@pytest.fixture(scope="module")
def wiki() -> dict[str, Document]:
    return {doc.title: doc for doc in load_wikipedia(fetched_at=STAMP)}


@pytest.fixture(scope="module")
def geo() -> dict[str, Document]:
    return {doc.url: doc for doc in load_geo(fetched_at=STAMP)}


def test_the_wikipedia_loader_yields_every_vital_article_once(wiki: dict[str, Document]) -> None:
    assert len(wiki) == 10_033
    assert len({doc.url for doc in wiki.values()}) == 10_033
    tower = wiki["Eiffel Tower"]
    assert tower.url == "https://en.wikipedia.org/wiki/Eiffel_Tower"
    assert tower.text.startswith(
        "Short description: Tower in Paris, France. The Eiffel Tower is a lattice tower"
    )
    assert (tower.source, tower.licence, tower.topic) == (WIKIPEDIA, "CC BY-SA 4.0", "Arts")
    assert tower.fetched_at == STAMP


def test_a_wikipedia_page_opens_on_its_short_description_then_the_extract_unchanged(
    wiki: dict[str, Document],
) -> None:
    einstein = wiki["Albert Einstein"].text
    opening = "Short description: German-born theoretical physicist (1879\u20131955). "
    assert einstein.startswith(opening)
    assert einstein.removeprefix(opening).startswith("Albert Einstein was a German-born")
    # A description's own closing full stop is not doubled.
    assert wiki["Denver"].text.startswith("Short description: Capital of Colorado, U.S. Denver")
    # An article without a short description is its extract alone.
    assert wiki["African art"].text.startswith("African art")
    assert "Short description" not in wiki["African art"].text


def test_wikipedia_urls_keep_titles_readable_and_escape_only_what_breaks_a_url(
    wiki: dict[str, Document],
) -> None:
    assert wiki["AT&T"].url == "https://en.wikipedia.org/wiki/AT&T"
    assert wiki["HIV/AIDS"].url == "https://en.wikipedia.org/wiki/HIV/AIDS"
    assert wiki["Les Misérables"].url == "https://en.wikipedia.org/wiki/Les_Misérables"
    assert wikipedia_url("Why? #1 at 100%") == "https://en.wikipedia.org/wiki/Why%3F_%231_at_100%25"


def test_loading_twice_gives_identical_documents() -> None:
    first = list(itertools.islice(load_wikipedia(fetched_at=STAMP), 50))
    second = list(itertools.islice(load_wikipedia(fetched_at=STAMP), 50))
    assert first == second


def test_geonames_countries_are_fact_pages_at_their_geonames_url(geo: dict[str, Document]) -> None:
    france = geo["https://www.geonames.org/3017382"]
    assert france.title == "France (GeoNames)"
    assert (france.source, france.licence, france.topic) == (GEONAMES, "CC BY 4.0", "Geography")
    for fact in ("Its capital is Paris.", "66,987,244", "+33", "It borders Switzerland, Germany"):
        assert fact in france.text
    countries = [
        d for d in geo.values() if d.source == GEONAMES and "country or territory" in d.text
    ]
    assert len(countries) == 252


def test_a_city_page_names_its_country_population_and_capital_status(
    geo: dict[str, Document],
) -> None:
    paris = geo["https://www.geonames.org/2988507"]
    assert paris.title == "Paris, France (GeoNames)"
    assert "Its population is 2,138,551." in paris.text
    assert "It is the capital of France." in paris.text
    marseille = next(d for d in geo.values() if d.title == "Marseille, France (GeoNames)")
    assert "capital" not in marseille.text


def test_countryinfo_pages_have_stable_questweb_urls_and_the_mit_licence(
    geo: dict[str, Document],
) -> None:
    france = geo["https://countryinfo.questweb.local/fr"]
    assert france.title == "France (countryinfo)"
    assert (france.source, france.licence) == (COUNTRYINFO, "MIT")
    assert "Its demonym is French." in france.text
    pages = list(load_countryinfo(fetched_at=STAMP))
    assert len(pages) == len({page.url for page in pages}) == 251


def test_figures_on_which_the_two_sources_disagree_are_both_kept(geo: dict[str, Document]) -> None:
    geonames = geo["https://www.geonames.org/3017382"].text
    countryinfo = geo["https://countryinfo.questweb.local/fr"].text
    assert "Its area is 547,030 square kilometres." in geonames
    assert "Its area is 640,679 square kilometres." in countryinfo
    assert "Its population is 66,987,244." in geonames
    assert "Its population is 66,078,000." in countryinfo


def test_countries_with_two_countryinfo_files_get_one_page_from_the_richer_file(
    geo: dict[str, Document],
) -> None:
    palestine = geo["https://countryinfo.questweb.local/ps"]
    assert "Its capital is Ramallah." in palestine.text
    assert "Its area is 5,655 square kilometres." in palestine.text


def test_languages_are_named_with_their_codes_in_both_records(geo: dict[str, Document]) -> None:
    geonames = geo["https://www.geonames.org/3017382"].text
    countryinfo = geo["https://countryinfo.questweb.local/fr"].text
    assert "Its languages are French (fr-FR)" in geonames
    assert "Its languages are French (fr)." in countryinfo
    assert language("es-AR") == "Spanish (es-AR)"
    assert language("ne") == "Nepali (ne)"  # "(macrolanguage)" is the standard's, not a name
    assert language("zz") == "zz"  # not in ISO 639: the code as published


def test_the_city_population_threshold_decides_which_cities_are_loaded() -> None:
    big = [d for d in load_geonames(min_city_population=5_000_000) if " is a city in " in d.text]
    assert 20 < len(big) < 100
    assert big[0].title == "Shanghai, China (GeoNames)"
    populations = [_population(d.text) for d in big]
    assert populations == sorted(populations, reverse=True)
    assert min(populations) >= 5_000_000


def _population(text: str) -> int:
    figure = text.split("Its population is ", 1)[1].split(".", 1)[0]
    return int(figure.replace(",", ""))


def test_the_wikipedia_loader_can_leave_the_short_descriptions_out() -> None:
    bare = next(
        doc
        for doc in load_wikipedia(fetched_at=STAMP, short_descriptions=False)
        if doc.title == "Albert Einstein"
    )
    assert bare.text.startswith("Albert Einstein was a German-born")
    assert "Short description" not in bare.text
