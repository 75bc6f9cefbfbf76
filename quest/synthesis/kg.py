"""The knowledge graph the offline synthesizer reasons over: GeoNames countries and cities and
countryinfo's country facts, read from the same package records the corpus pages are written
from (quest.corpus.geonames, quest.corpus.countryinfo), so every fact has a page that states it
in the words the checks look for.

Where the two sources disagree (populations, areas, capitals), a fact is taken from GeoNames
and its question says so; constraints that compare against a threshold use only thresholds
both sources put the country on the same side of (`agrees`).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from quest.corpus.countryinfo import countryinfo_records, countryinfo_url
from quest.corpus.geonames import country_name, geonames_records, geonames_url
from quest.corpus.text import number


@dataclass(frozen=True)
class City:
    name: str
    country: str  # ISO alpha-2
    population: int
    url: str


@dataclass(frozen=True)
class Country:
    iso: str
    name: str
    continent: str
    url: str  # its GeoNames page
    capital: str = ""
    capital_city: City | None = None  # the capital's page, when GeoNames has one
    population: int = 0
    area: float = 0.0
    currency_code: str = ""
    currency_name: str = ""
    neighbours: tuple[str, ...] = ()  # ISO alpha-2, as GeoNames lists them
    largest_cities: tuple[City, ...] = ()  # the five its page lists, largest first
    # countryinfo's figures and page, when it has the country
    ci_url: str = ""
    ci_name: str = ""
    ci_population: int = 0
    ci_area: float = 0.0
    ci_capital: str = ""
    ci_neighbours: frozenset[str] = field(default_factory=frozenset)
    ci_currencies: tuple[str, ...] = ()

    @property
    def largest_city(self) -> City | None:
        return self.largest_cities[0] if self.largest_cities else None

    def population_text(self) -> str:
        return number(self.population)

    def area_text(self) -> str:
        return number(self.area)


class KnowledgeGraph:
    def __init__(self, countries: Iterable[Country]) -> None:
        self.countries: dict[str, Country] = {c.iso: c for c in countries}

    @classmethod
    @functools.cache
    def load(cls) -> KnowledgeGraph:
        """Every GeoNames country with a name, a continent and a population."""
        records, continents, cities = geonames_records()
        infos = countryinfo_records()
        alpha3 = {str(r["ISO"].get("alpha3")): code for code, r in infos.items()}
        by_country: dict[str, list[City]] = defaultdict(list)
        for c in cities:
            city = City(
                str(c["name"]).strip(),
                str(c["countrycode"]),
                int(c["population"]),
                geonames_url(c["geonameid"]),
            )
            by_country[city.country].append(city)
        countries = []
        for code, record in records.items():
            if not record.get("population") or not record.get("continentcode"):
                continue
            info = infos.get(code, {})
            capital = str(record.get("capital") or "")
            namesakes = [c for c in by_country[code] if c.name == capital]
            countries.append(
                Country(
                    iso=code,
                    name=country_name(record),
                    continent=continents.get(str(record["continentcode"]), ""),
                    url=geonames_url(record["geonameid"]),
                    capital=capital,
                    capital_city=namesakes[0] if namesakes else None,
                    population=int(record["population"]),
                    area=float(record.get("areakm2") or 0),
                    currency_code=str(record.get("currencycode") or ""),
                    currency_name=str(record.get("currencyname") or ""),
                    neighbours=tuple(
                        n for n in str(record.get("neighbours") or "").split(",") if n
                    ),
                    largest_cities=tuple(by_country[code][:5]),
                    ci_url=countryinfo_url(code) if info else "",
                    ci_name=" ".join(str(info.get("name") or "").split()) if info else "",
                    ci_population=int(info.get("population") or 0) if info else 0,
                    ci_area=float(info.get("area") or 0) if info else 0.0,
                    ci_capital=_first(info.get("capital")) if info else "",
                    ci_neighbours=frozenset(
                        alpha3[b] for b in info.get("borders") or () if b in alpha3
                    )
                    if info
                    else frozenset(),
                    ci_currencies=tuple(info.get("currencies") or ()) if info else (),
                )
            )
        return cls(countries)

    def get(self, iso: str) -> Country:
        return self.countries[iso]

    def neighbours(self, country: Country) -> list[Country]:
        return [self.countries[n] for n in country.neighbours if n in self.countries]

    def in_continent(self, continent: str) -> list[Country]:
        return sorted(
            (c for c in self.countries.values() if c.continent == continent),
            key=lambda c: c.iso,
        )

    def continents(self) -> list[str]:
        return sorted({c.continent for c in self.countries.values() if c.continent})


def agrees(country: Country, attribute: str, threshold: float, above: bool) -> bool:
    """Both sources put the country on the same side of `threshold` (or countryinfo has no
    figure): a constraint "population above 10 million" then holds whichever page is read."""
    ours = country.population if attribute == "population" else country.area
    theirs = country.ci_population if attribute == "population" else country.ci_area
    side = ours > threshold
    if side != above and not theirs:
        return True
    return not theirs or (theirs > threshold) == side


def robust_threshold(
    values: Sequence[tuple[float, float]], candidates: Sequence[float]
) -> float | None:
    """The first candidate threshold that no country's two figures straddle."""
    for threshold in candidates:
        if all(not b or (a > threshold) == (b > threshold) for a, b in values):
            return threshold
    return None


def _first(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        return str(value[0])
    return ""
