"""Country facts from the `countryinfo` package, as readable fact pages.

One JSON file per country in the package's `data/` folder, read directly (the package is never
imported). A page's URL is `https://countryinfo.questweb.local/<iso2, lower case>`: countryinfo
has no web pages of its own, so questweb names them under a host it owns, stable across loads.
Source `countryinfo`, licence MIT. Figures are shown as published, even where GeoNames gives
others (France's area is 640,679 km² here and 547,030 km² in GeoNames): both pages are kept.
A few countries have two files (Curaçao, Palestine, the Holy See): the file with more facts is
used, ties broken by file name, so the choice is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from quest.corpus.model import COUNTRYINFO, LICENCES, CorpusError, Document
from quest.corpus.packages import package_dir, utc_now
from quest.corpus.text import language, listing, number

PIP_NAME = "countryinfo"
URL_PREFIX = "https://countryinfo.questweb.local/"

Record = Mapping[str, Any]


def countryinfo_url(iso2: str) -> str:
    return URL_PREFIX + iso2.lower()


def load_countryinfo(*, fetched_at: str | None = None) -> Iterator[Document]:
    """One page per ISO alpha-2 code, in code order."""
    records = _records()
    names = {str(r["ISO"].get("alpha3")): _name(r) for r in records.values()}
    stamp = fetched_at or utc_now()
    for code in sorted(records):
        yield _page(records[code], names, stamp)


def _records() -> dict[str, Record]:
    folder = package_dir("countryinfo", pip_name=PIP_NAME) / "data"
    chosen: dict[str, tuple[int, str, Record]] = {}
    for path in sorted(folder.glob("*.json")):
        record = _read(path)
        code = str((record.get("ISO") or {}).get("alpha2") or "")
        if not code or "name" not in record:
            continue
        rank = (-len(record), path.name)
        if code not in chosen or rank < chosen[code][:2]:
            chosen[code] = (*rank, record)
    return {code: record for code, (_, _, record) in chosen.items()}


def _read(path: Path) -> Record:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{PIP_NAME}: cannot read data/{path.name}: {exc}") from None
    return data if isinstance(data, dict) else {}


def _page(record: Record, names: Mapping[str, str], fetched_at: str) -> Document:
    name = _name(record)
    sentences = [
        f"{name} is a country or territory in {_region(record)}, according to countryinfo.",
        *_identity(record),
        *_figures(record),
        *_borders(record, names),
        *_lists(record),
        "Source: the countryinfo package.",
    ]
    return Document(
        url=countryinfo_url(str(record["ISO"]["alpha2"])),
        title=f"{name} (countryinfo)",
        text=" ".join(sentences),
        source=COUNTRYINFO,
        licence=LICENCES[COUNTRYINFO],
        fetched_at=fetched_at,
        topic="Geography",
    )


def _name(record: Record) -> str:
    return " ".join(str(record["name"]).split())


def _region(record: Record) -> str:
    parts = [str(record.get(key) or "") for key in ("subregion", "region")]
    return ", ".join(part for part in parts if part) or "an unlisted region"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, Sequence):
        return [str(item) for item in value if item]
    return []


def _identity(record: Record) -> list[str]:
    iso = record["ISO"]
    facts = [f"Its ISO 3166-1 codes are {iso.get('alpha2')} and {iso.get('alpha3')}."]
    if record.get("nativeName"):
        facts.append(f"Its native name is {record['nativeName']}.")
    capitals = _strings(record.get("capital"))
    if capitals:
        facts.append(f"Its capital is {listing(capitals)}.")
    if record.get("demonym"):
        facts.append(f"Its demonym is {record['demonym']}.")
    return facts


def _figures(record: Record) -> list[str]:
    facts = []
    if isinstance(record.get("area"), int | float) and record["area"]:
        facts.append(f"Its area is {number(record['area'])} square kilometres.")
    if isinstance(record.get("population"), int | float) and record["population"]:
        facts.append(f"Its population is {number(record['population'])}.")
    return facts


def _borders(record: Record, names: Mapping[str, str]) -> list[str]:
    codes = _strings(record.get("borders"))
    if not codes:
        return []
    return [f"It borders {listing([names.get(code, code) for code in codes])}."]


def _lists(record: Record) -> list[str]:
    labelled = (
        ("currencies", "Its currencies are"),
        ("languages", "Its languages are"),
        ("callingCodes", "Its calling codes are"),
        ("tld", "Its internet top-level domains are"),
        ("timezones", "Its time zones are"),
        ("provinces", "Its provinces or regions are"),
        ("altSpellings", "It is also known as"),
    )
    facts = []
    for key, label in labelled:
        items = _strings(record.get(key))
        if key == "languages":
            items = [language(code) for code in items]
        if items:
            facts.append(f"{label} {listing(items)}.")
    return facts


def countryinfo_records() -> dict[str, Record]:
    """The records the pages are written from, by ISO alpha-2 code (the same file choice)."""
    return _records()
