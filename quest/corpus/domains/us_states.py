"""US states, the District of Columbia and the inhabited territories, from the `us` package
(Sunlight Labs' table of names, capitals, statehood years, FIPS codes and time zones).

One page per state or territory (`https://us-states.questweb.local/<abbr>`). States join to the
United States (`country:US`) and to their ISO 3166-2 subdivision (`subdivision:US-CA`);
territories that ISO lists as countries of their own (Puerto Rico, Guam, …) also join to that
country. A capital is checked against GeoNames where GeoNames records one (a territory's
country record): where the two disagree the capital is dropped, not guessed. A capital that
GeoNames has a city page for in the same state joins to it. Obsolete entries (Dakota, Orleans,
the Philippine Islands) are not loaded.
"""

from __future__ import annotations

from typing import Any

from quest.corpus.domains.common import (
    Package,
    Publisher,
    current_countries,
    domain_url,
    folded,
    geonames,
    same_place,
)
from quest.corpus.domains.model import DomainData, Entity
from quest.corpus.geonames import geonames_url
from quest.corpus.text import listing

NAME = "us_states"
PACKAGE = Package("us", "us", "BSD-3-Clause")


def us_state_url(abbr: str) -> str:
    return domain_url("us-states", abbr.lower())


def build_us_states(fetched_at: str) -> DomainData:
    import us  # small: its one dependency is jellyfish, for fuzzy name lookup

    data = DomainData(NAME)
    site = PACKAGE.publisher("the us package's table of states", fetched_at, "Geography")
    cities = _state_cities()
    for state in [*us.states.STATES, us.states.DC, *us.states.TERRITORIES]:
        _state(data, state, cities, site)
    for state in us.states.OBSOLETE:
        data.drop(str(state.name), "no longer a state or territory")
    return data


def _state_cities() -> dict[tuple[str, str], str]:
    """(state abbreviation, folded name) -> GeoNames page of the largest such city."""
    _, _, cities = geonames()
    found: dict[tuple[str, str], str] = {}
    for city in cities:
        if city["countrycode"] == "US":
            key = (str(city["admin1code"]), folded(str(city["name"])))
            found.setdefault(key, geonames_url(city["geonameid"]))
    return found


def _state(
    data: DomainData,
    state: Any,
    cities: dict[tuple[str, str], str],
    site: Publisher,
) -> None:
    name, abbr = str(state.name), str(state.abbr)
    url, entity = us_state_url(abbr), f"us_state:{abbr}"
    kind = _kind(state)
    data.entities.append(Entity(entity, "us_state", name, url))
    sentences = [f"{name} is {kind} of the United States.", f"Its postal abbreviation is {abbr}."]
    data.link(entity, "part_of", "country:US", url)
    data.link(entity, "same_as", f"subdivision:US-{abbr}", url)
    data.fact(entity, "kind", kind.split(maxsplit=1)[1], url)
    data.fact(entity, "postal_abbreviation", abbr, url)
    if state.fips:
        sentences.append(f"Its FIPS code is {state.fips}.")
        data.fact(entity, "fips_code", str(state.fips), url)
    sentences += _capital(data, entity, state, cities, url)
    if state.statehood_year:
        sentences.append(f"{name} became a state in {state.statehood_year}.")
        data.fact(entity, "statehood_year", int(state.statehood_year), url, "year")
    if state.time_zones:
        zones = list(state.time_zones)
        label = "Its time zone is" if len(zones) == 1 else "Its time zones are"
        sentences.append(f"{label} {listing(zones)}.")
        for zone in state.time_zones:
            data.fact(entity, "time_zone", str(zone), url)
    if state.is_territory and current_countries().get(abbr) is not None:
        data.link(entity, "same_as", f"country:{abbr}", url)
    data.documents.append(site.page(url, f"{name} (us)", sentences))


def _kind(state: Any) -> str:
    if state.is_territory:
        return "a territory"
    if state.abbr == "DC":
        return "the federal district"
    return "a state"


def _capital(
    data: DomainData, entity: str, state: Any, cities: dict[tuple[str, str], str], url: str
) -> list[str]:
    capital = str(state.capital or "")
    if not capital:
        return []
    country = current_countries().get(str(state.abbr)) if state.is_territory else None
    if country is not None and country.capital and not same_place(country.capital, capital):
        data.drop(
            f"capital of {state.name}",
            f"us says {capital}, GeoNames says {country.capital}",
        )
        return []
    data.fact(entity, "capital", capital, url)
    city = cities.get((str(state.abbr), folded(capital)))
    if city is not None:
        city_id = f"city:{city.rsplit('/', 1)[1]}"
        data.entities.append(Entity(city_id, "city", capital, city))
        data.link(entity, "capital_city", city_id, url)
    return [f"Its capital is {capital}."]
