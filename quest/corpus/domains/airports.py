"""Airports from the `airportsdata` package's CSV (ICAO, IATA, name, city, country, elevation).

The file lists ~28,000 airfields, most of them private strips. A page is kept for an airport
that has an IATA code, is not a military or helicopter field, lies in a current country, and
shows a sign of scheduled service: its name says "International", or the city it serves is a
GeoNames city of at least 100,000 people in the same country (its page is then joined), or its
country has at most three IATA airports (so small countries keep theirs). Each page is
`https://airports.questweb.local/<IATA>`; each country with kept airports also gets a page
listing them from the highest to the lowest, which states the country's highest and lowest
kept airport: aggregates over airports are over this kept set, never over all airfields.
Elevations are published in feet; pages add metres rounded to whole metres.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Mapping, Sequence

from quest.corpus.domains.common import (
    Countries,
    Package,
    Publisher,
    current_countries,
    domain_url,
    folded,
    geonames,
)
from quest.corpus.domains.model import DomainData, Entity
from quest.corpus.geonames import geonames_url
from quest.corpus.model import CorpusError
from quest.corpus.packages import package_file
from quest.corpus.text import number

NAME = "airports"
PACKAGE = Package("airportsdata", "airportsdata", "MIT")
SMALL_COUNTRY = 3  # a country with at most this many IATA airports keeps them all
FEET_PER_METRE = 3.28084
MILITARY = ("air base", "air force", "airbase", "raf ", "army", "naval", "heliport", "afb")

Row = Mapping[str, str]


def airport_url(iata: str) -> str:
    return domain_url("airports", iata.upper())


def country_airports_url(iso: str) -> str:
    return domain_url("airports", f"country/{iso.lower()}")


def build_airports(fetched_at: str) -> DomainData:
    data = DomainData(NAME)
    countries = current_countries()
    site = PACKAGE.publisher("airportsdata's airports.csv", fetched_at, "Aviation")
    cities = _cities()
    kept = _kept(data, _rows(), countries, cities)
    by_country: dict[str, list[Row]] = defaultdict(list)
    for row in kept:
        by_country[row["country"]].append(row)
        _airport(data, row, countries, cities, site)
    for iso in sorted(by_country):
        _country_page(data, iso, by_country[iso], countries, site)
    return data


def _rows() -> list[Row]:
    path = package_file("airportsdata", "airports.csv", pip_name=PACKAGE.pip_name)
    try:
        with path.open(encoding="utf-8", newline="") as file:
            return list(csv.DictReader(file))
    except (OSError, csv.Error) as exc:
        raise CorpusError(f"{PACKAGE.pip_name}: cannot read airports.csv: {exc}") from None


def _cities() -> dict[tuple[str, str], tuple[str, str]]:
    """(country, folded city name) -> (GeoNames URL, name) of the largest such city with a
    GeoNames page, for the join from an airport to the city it serves."""
    _, _, cities = geonames()
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for city in cities:  # largest first: the first namesake wins
        key = (str(city["countrycode"]), folded(str(city["name"])))
        found.setdefault(key, (geonames_url(city["geonameid"]), " ".join(city["name"].split())))
    return found


def _kept(
    data: DomainData,
    rows: Sequence[Row],
    countries: Countries,
    cities: Mapping[tuple[str, str], tuple[str, str]],
) -> list[Row]:
    with_iata = [r for r in rows if r["iata"]]
    per_country: dict[str, int] = defaultdict(int)
    for row in with_iata:
        per_country[row["country"]] += 1
    kept = []
    for row in with_iata:
        label = f"{row['iata']} {row['name']}"
        if countries.get(row["country"]) is None:
            data.drop(label, f"country {row['country']} is not a current ISO 3166-1 country")
        elif any(word in row["name"].lower() + " " for word in MILITARY):
            continue  # military and helicopter fields: no scheduled service
        elif (
            "international" in row["name"].lower()
            or (row["country"], folded(row["city"])) in cities
            or per_country[row["country"]] <= SMALL_COUNTRY
        ):
            kept.append(row)
    return kept


def _feet(row: Row) -> int:
    return int(float(row["elevation"]))


def _elevation(feet: int) -> str:
    return f"{number(feet)} feet ({number(round(feet / FEET_PER_METRE))} metres)"


def _airport(
    data: DomainData,
    row: Row,
    countries: Countries,
    cities: Mapping[tuple[str, str], tuple[str, str]],
    site: Publisher,
) -> None:
    iata, name = row["iata"], row["name"]
    country = countries.by_iso[row["country"]]
    url = airport_url(iata)
    entity = f"airport:{iata}"
    data.entities.append(Entity(entity, "airport", name, url))
    sentences = [
        f"{name} is an airport in {country.name} serving {row['city']}.",
        f"Its IATA code is {iata} and its ICAO code is {row['icao']}.",
        f"Its elevation is {_elevation(_feet(row))} above sea level.",
        f"It lies at latitude {row['lat']} and longitude {row['lon']}.",
    ]
    data.link(entity, "located_in", f"country:{country.iso}", url)
    data.fact(entity, "iata_code", iata, url)
    data.fact(entity, "icao_code", row["icao"], url)
    data.fact(entity, "serves_city", row["city"], url)
    data.fact(entity, "elevation", _feet(row), url, "ft")
    if row["subd"]:
        sentences.append(f"It is in {row['subd']}.")
        data.fact(entity, "subdivision_name", row["subd"], url)
    city = cities.get((row["country"], folded(row["city"])))
    if city is not None:
        city_id = f"city:{city[0].rsplit('/', 1)[1]}"
        data.entities.append(Entity(city_id, "city", city[1], city[0]))
        data.link(entity, "serves", city_id, url)
    data.documents.append(
        site.page(url, f"{name} ({iata}), {country.name} (airportsdata)", sentences)
    )


def _country_page(
    data: DomainData,
    iso: str,
    rows: list[Row],
    countries: Countries,
    site: Publisher,
) -> None:
    country = countries.by_iso[iso]
    url = country_airports_url(iso)
    ranked = sorted(rows, key=lambda r: (-_feet(r), r["iata"]))
    entity = f"country:{iso}"
    listed = "; ".join(f"{r['name']} ({r['iata']}), {number(_feet(r))} feet" for r in ranked)
    sentences = [
        f"This corpus keeps {len(ranked)} airports in {country.name}: those with an IATA code "
        "and a sign of scheduled service.",
        f"From the highest to the lowest they are {listed}.",
    ]
    data.fact(entity, "airport_count", len(ranked), url)
    if len(ranked) > 1 and _feet(ranked[0]) > _feet(ranked[1]):
        top = ranked[0]
        sentences.append(
            f"The highest of them is {top['name']} ({top['iata']}) at {_elevation(_feet(top))}."
        )
        data.link(entity, "highest_airport", f"airport:{top['iata']}", url)
    if len(ranked) > 1 and _feet(ranked[-1]) < _feet(ranked[-2]):
        low = ranked[-1]
        sentences.append(
            f"The lowest of them is {low['name']} ({low['iata']}) at {_elevation(_feet(low))}."
        )
        data.link(entity, "lowest_airport", f"airport:{low['iata']}", url)
    data.documents.append(site.page(url, f"Airports of {country.name} (airportsdata)", sentences))
