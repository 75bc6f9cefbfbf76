"""Countries' first-level subdivisions from ISO 3166-2, as the `pycountry` package ships it.

One page per country (`https://subdivisions.questweb.local/<iso>`) lists its top-level
subdivisions by type, each with its ISO 3166-2 code; a subdivision is an entity
(`subdivision:FR-IDF`) joined to its country, with no page of its own (~3,600 of them would
outnumber every other domain). Second-level subdivisions (French departments under regions)
are left out, as are countries that are no current ISO 3166-1 country.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pycountry

from quest.corpus.domains.common import (
    Countries,
    Package,
    Publisher,
    current_countries,
    domain_url,
)
from quest.corpus.domains.model import DomainData, Entity
from quest.corpus.text import listing, number

NAME = "subdivisions"
PACKAGE = Package("pycountry", "pycountry", "LGPL-2.1")


def subdivisions_url(iso: str) -> str:
    return domain_url("subdivisions", iso.lower())


def build_subdivisions(fetched_at: str) -> DomainData:
    data = DomainData(NAME)
    countries = current_countries()
    site = PACKAGE.publisher("ISO 3166-2 as pycountry ships it", fetched_at, "Geography")
    by_country: dict[str, list[Any]] = defaultdict(list)
    for subdivision in pycountry.subdivisions:
        if subdivision.parent_code is None:
            by_country[str(subdivision.country_code)].append(subdivision)
    for iso in sorted(by_country):
        if countries.get(iso) is None:
            data.drop(f"subdivisions of {iso}", "not a current ISO 3166-1 country")
            continue
        _country_page(data, iso, by_country[iso], countries, site)
    return data


def _country_page(
    data: DomainData,
    iso: str,
    subdivisions: list[Any],
    countries: Countries,
    site: Publisher,
) -> None:
    country, url, entity = countries.by_iso[iso], subdivisions_url(iso), f"country:{iso}"
    by_type: dict[str, list[Any]] = defaultdict(list)
    for subdivision in sorted(subdivisions, key=lambda s: str(s.code)):
        by_type[str(subdivision.type)].append(subdivision)
    sentences = [
        f"{country.name} has {number(len(subdivisions))} first-level subdivisions in ISO 3166-2."
    ]
    data.fact(entity, "subdivision_count", len(subdivisions), url)
    for kind in sorted(by_type, key=lambda k: (-len(by_type[k]), k)):
        shown = [f"{s.name} ({s.code})" for s in by_type[kind]]
        sentences.append(f"Its subdivisions of type {kind} are {listing(shown)}.")
        for subdivision in by_type[kind]:
            sub_id = f"subdivision:{subdivision.code}"
            data.entities.append(Entity(sub_id, "subdivision", str(subdivision.name), url))
            data.link(sub_id, "subdivision_of", entity, url)
            data.fact(sub_id, "subdivision_type", kind, url)
            data.fact(sub_id, "iso_3166_2_code", str(subdivision.code), url)
    data.documents.append(
        site.page(url, f"Subdivisions of {country.name} (ISO 3166-2, pycountry)", sentences)
    )
