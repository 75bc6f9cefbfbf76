"""What the domains share: the current countries they join to, page building with a provenance
line, and the name comparison used to decide whether two sources agree."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import pycountry

from quest.corpus.geonames import (
    MIN_CITY_POPULATION,
    Record,
    country_name,
    geonames_records,
    geonames_url,
)
from quest.corpus.model import CorpusError, Document
from quest.text.fold import strip_accents

HOST = "questweb.local"


def domain_url(host: str, path: str) -> str:
    """`https://<host>.questweb.local/<path>`: these packages have no web pages of their own, so
    questweb names them under a host it owns, stable across loads (as countryinfo's are)."""
    return f"https://{host}.{HOST}/{path}"


def package_version(pip_name: str) -> str:
    try:
        return metadata.version(pip_name)
    except metadata.PackageNotFoundError:
        raise CorpusError(f"package {pip_name} is not installed (pip install {pip_name})") from None


def provenance(pip_name: str, detail: str, licence: str) -> str:
    """The page's last sentence: where its facts come from and under which licence."""
    return (
        f"Source: {detail}, from the {pip_name} package version {package_version(pip_name)}; "
        f"licence {licence}."
    )


@dataclass(frozen=True)
class Publisher:
    """What every page of one domain shares: its source, licence, provenance footer, load time
    and topic."""

    source: str
    licence: str
    footer: str
    fetched_at: str
    topic: str

    def page(self, url: str, title: str, sentences: Sequence[str]) -> Document:
        return Document(
            url=url,
            title=title,
            text=" ".join([*sentences, self.footer]),
            source=self.source,
            licence=self.licence,
            fetched_at=self.fetched_at,
            topic=self.topic,
        )


@dataclass(frozen=True)
class Package:
    """The installed package a domain reads: its name for pip, the source its pages name (the
    package's own, or the data set it ships) and the licence of that data."""

    pip_name: str
    source: str
    licence: str

    def publisher(self, detail: str, fetched_at: str, topic: str) -> Publisher:
        """The domain's publisher; `detail` says what of the package its facts come from."""
        footer = provenance(self.pip_name, detail, self.licence)
        return Publisher(self.source, self.licence, footer, fetched_at, topic)


@functools.lru_cache(maxsize=65_536)  # the same names, looked up again and again
def folded(name: str) -> str:
    """ "Hagåtña" and "Hagatna" are one name: accents, case and spacing aside."""
    return " ".join(strip_accents(name).casefold().replace("-", " ").split())


def same_place(a: str, b: str) -> bool:
    """Two spellings of one place name: "St Peter Port" and "St. Peter Port", "Sanaa" and
    "Sana'a", "Washington" and "Washington D.C.", "San Marino" and "City of San Marino".
    "Bujumbura" and "Gitega" are two places: a disagreement."""
    first, second = _words(a), _words(b)
    if not first or not second:
        return False
    short, long = sorted((first, second), key=len)
    return long[: len(short)] == short and len(long) - len(short) <= 2


def _words(name: str) -> list[str]:
    plain = "".join(
        c if c.isalnum() or c == " " else " " if c in "-." else "" for c in folded(name)
    )
    words = ["saint" if word == "st" else word for word in plain.split()]
    return words[2:] if words[:2] == ["city", "of"] else words


@dataclass(frozen=True)
class Country:
    iso: str
    name: str  # as GeoNames writes it, the name its pages use
    url: str  # its GeoNames page
    capital: str


@dataclass(frozen=True)
class Countries:
    """The countries the domains join to: GeoNames countries whose code is a current ISO 3166-1
    code. Dissolved ones (AN Netherlands Antilles, CS Serbia and Montenegro) and codes ISO does
    not assign (XK) are left out, with the facts that would point at them."""

    by_iso: Mapping[str, Country]
    left_out: Mapping[str, str]  # code -> why

    def get(self, iso: str) -> Country | None:
        return self.by_iso.get(iso.upper())

    def entity_id(self, iso: str) -> str:
        return f"country:{iso.upper()}"


@functools.cache
def geonames() -> tuple[dict[str, Record], dict[str, str], list[Record]]:
    """GeoNames' countries, continents and cities of at least 100,000 people, read once for
    every domain that joins to them (the records are shared: callers must not change them)."""
    return geonames_records(min_city_population=MIN_CITY_POPULATION)


@functools.cache
def current_countries() -> Countries:
    records, _, _ = geonames()
    kept: dict[str, Country] = {}
    left_out: dict[str, str] = {}
    for code, record in sorted(records.items()):
        if pycountry.countries.get(alpha_2=code) is None:
            left_out[code] = _why_not_current(code)
            continue
        capital = str(record.get("capital") or "")
        kept[code] = Country(code, country_name(record), geonames_url(record["geonameid"]), capital)
    return Countries(kept, left_out)


def _why_not_current(code: str) -> str:
    historic: Any = pycountry.historic_countries.get(alpha_2=code)
    if historic is not None:
        return f"{historic.name} was withdrawn from ISO 3166-1 on {historic.withdrawal_date}"
    return "not an ISO 3166-1 code"


def country_iso(name: str) -> str | None:
    """The current ISO code of a country named in a source ("Russia", "United States"), by its
    GeoNames or ISO name, or None for a name that is no current country ("USSR", "England")."""
    countries = current_countries()
    for country in countries.by_iso.values():
        if folded(country.name) == folded(name):
            return country.iso
    try:
        found = pycountry.countries.lookup(name)
    except LookupError:
        return None
    code = str(found.alpha_2)
    return code if code in countries.by_iso else None
