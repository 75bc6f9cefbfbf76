"""Chemical elements from the `mendeleev` package's SQLite database, read with sqlite3 (the
package itself pulls SQLAlchemy, pandas and more, and is never imported).

One page per element (`https://elements.questweb.local/<symbol>`): atomic number, symbol,
group, period, block, series, atomic weight, density, melting and boiling points, discovery
(year, discoverers, where) and the origin of its name. Figures are shown as mendeleev publishes
them, rounded only where the stored float carries noise (13.989999999999952 K → 13.99 K).
Discoverer names keep mendeleev's spelling ("Joseph Priestly"). A discovery place joins to a
country only where the name is a current country ("Sweden"); "England", "USSR" stay text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from quest.corpus.domains.common import Package, Publisher, country_iso, domain_url
from quest.corpus.domains.model import DomainData, Entity
from quest.corpus.model import CorpusError
from quest.corpus.packages import package_file
from quest.corpus.text import listing, number

NAME = "elements"
PACKAGE = Package("mendeleev", "mendeleev", "MIT")
ANCIENT = "known to the ancients"

Row = Mapping[str, Any]

_QUERY = """
select e.atomic_number, e.name, e.symbol, e.group_id, e.period, e.block, e.atomic_weight,
       e.density, e.discoverers, e.discovery_year, e.discovery_location, e.name_origin,
       s.name as series, p.melting_point, p.boiling_point
from elements e
left join series s on s.id = e.series_id
left join (select atomic_number, melting_point, boiling_point from phasetransitions
           where allotrope is null group by atomic_number having count(*) = 1) p
       on p.atomic_number = e.atomic_number
order by e.atomic_number
"""


def element_url(symbol: str) -> str:
    return domain_url("elements", symbol.lower())


def build_elements(fetched_at: str) -> DomainData:
    data = DomainData(NAME)
    site = PACKAGE.publisher("mendeleev's elements.db", fetched_at, "Chemistry")
    for row in _rows():
        _element(data, row, site)
    return data


def _rows() -> Iterator[Row]:
    path = package_file("mendeleev", "elements.db", pip_name=PACKAGE.pip_name)
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
            connection.row_factory = sqlite3.Row
            rows = [dict(row) for row in connection.execute(_QUERY)]
    except sqlite3.Error as exc:
        raise CorpusError(f"{PACKAGE.pip_name}: cannot read elements.db: {exc}") from None
    yield from rows


def _element(data: DomainData, row: Row, site: Publisher) -> None:
    name, symbol = str(row["name"]), str(row["symbol"])
    url = element_url(symbol)
    entity = f"element:{symbol}"
    data.entities.append(Entity(entity, "element", name, url))
    sentences = [
        f"{name} (symbol {symbol}) is the chemical element with atomic number "
        f"{row['atomic_number']}."
    ]
    data.fact(entity, "symbol", symbol, url)
    data.fact(entity, "atomic_number", int(row["atomic_number"]), url)
    sentences += _placement(data, entity, row, url)
    sentences += _properties(data, entity, row, url)
    sentences += _discovery(data, entity, row, url)
    if row["name_origin"]:
        sentences.append(f"Its name comes from {str(row['name_origin']).rstrip('.')}.")
    data.documents.append(site.page(url, f"{name} (mendeleev)", sentences))


def _placement(data: DomainData, entity: str, row: Row, url: str) -> list[str]:
    sentences = []
    if row["group_id"] is not None:
        sentences.append(f"It is in group {row['group_id']} of the periodic table.")
        data.fact(entity, "group", int(row["group_id"]), url)
    sentences.append(f"It is in period {row['period']}, in the {row['block']}-block.")
    data.fact(entity, "period", int(row["period"]), url)
    data.fact(entity, "block", str(row["block"]), url)
    if row["series"]:
        series = str(row["series"]).lower()
        sentences.append(f"It belongs to the {series} series.")
        data.fact(entity, "series", series, url)
    return sentences


def _properties(data: DomainData, entity: str, row: Row, url: str) -> list[str]:
    sentences = []
    measured = (
        ("atomic_weight", "Its standard atomic weight is {}.", ""),
        ("density", "Its density is {} g/cm³.", "g/cm3"),
        ("melting_point", "Its melting point is {} K.", "K"),
        ("boiling_point", "Its boiling point is {} K.", "K"),
    )
    for column, sentence, unit in measured:
        if row[column] is None:
            continue
        value = _clean(float(row[column]))
        sentences.append(sentence.format(number(value)))
        data.fact(entity, column, value, url, unit)
    return sentences


def _clean(value: float) -> float:
    """Stored floats carry noise (0.0013080000000000001); ten significant digits hold every
    figure mendeleev publishes."""
    return float(f"{value:.10g}")


def _discovery(data: DomainData, entity: str, row: Row, url: str) -> list[str]:
    credited = str(row["discoverers"] or "").strip()
    name = str(row["name"])
    if credited.rstrip(".").casefold() == ANCIENT:
        data.fact(entity, "known_since_antiquity", "yes", url)
        return [f"{name} has been known since ancient times."]
    people = discoverers(credited)
    year = row["discovery_year"]
    sentence = f"{name} was discovered"
    if year is not None:
        sentence += f" in {year}"
        data.fact(entity, "discovery_year", int(year), url, "year")
    if people:
        sentence += f" by {listing(people)}"
        for person in people:
            data.fact(entity, "discovered_by", person, url)
    sentences = [sentence + "."] if year is not None or people else []
    places = [p.strip() for p in str(row["discovery_location"] or "").split("/") if p.strip()]
    if places:
        sentences.append(f"It was discovered in {listing(places)}.")
        for place in places:
            data.fact(entity, "discovery_location", place, url)
            iso = country_iso(place)
            if iso is not None:
                data.link(entity, "discovered_in", f"country:{iso}", url)
    return sentences


def discoverers(credited: str) -> list[str]:
    """ "Sir William Ramsay; M. W. Travers" -> two names; "Pierre and Marie Curie" stays one
    credit, as written; "et al" is not a name."""
    parts = credited.replace(";", ",").split(",")
    return [p.strip() for p in parts if p.strip() and p.strip().casefold() != "et al"]
