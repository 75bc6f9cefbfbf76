"""The countries every other domain joins to, as graph entities and facts; their pages are the
GeoNames and countryinfo pages the corpus already has (quest.corpus.geonames, .countryinfo).

Only current ISO 3166-1 countries are entities. A border is a fact only where both GeoNames and
countryinfo list it: GeoNames still lists the Netherlands Antilles (dissolved in 2010) as
bordering Guadeloupe, and an island's "neighbours" there can be a sea neighbour. A capital is a
fact only where both sources name the same city (accents and case aside); where they differ, or
countryinfo has no record, the fact is dropped. Facts point at the GeoNames page, which states
each one ("It borders France and Spain.", "Its capital is Paris.").
"""

from __future__ import annotations

from quest.corpus.countryinfo import countryinfo_records
from quest.corpus.domains.common import current_countries, geonames, same_place
from quest.corpus.domains.model import DomainData, Entity

NAME = "countries"


def build_countries(fetched_at: str) -> DomainData:
    """`fetched_at` is unused: this domain adds no pages, only the graph's country facts."""
    del fetched_at
    data = DomainData(NAME)
    countries = current_countries()
    records, continents, _ = geonames()
    infos = countryinfo_records()
    alpha3 = {str(r["ISO"].get("alpha3")): code for code, r in infos.items()}
    for code, why in countries.left_out.items():
        data.drop(f"country {code}", why)
    for code, country in countries.by_iso.items():
        entity, url = countries.entity_id(code), country.url
        data.entities.append(Entity(entity, "country", country.name, url))
        data.fact(entity, "iso_code", code, url)
        continent = continents.get(str(records[code].get("continentcode")))
        if continent:
            data.fact(entity, "continent", continent, url)
        info = infos.get(code)
        _capital(data, entity, country.capital, _first(info.get("capital")) if info else "", url)
        theirs = {alpha3[b] for b in (info or {}).get("borders") or () if b in alpha3}
        ours = [n for n in str(records[code].get("neighbours") or "").split(",") if n]
        for neighbour in ours:
            if countries.get(neighbour) is None:
                data.drop(f"{code} borders {neighbour}", f"{neighbour} is no current country")
            elif neighbour not in theirs:
                data.drop(f"{code} borders {neighbour}", "countryinfo does not list this border")
            else:
                data.link(entity, "borders", f"country:{neighbour}", url)
    return data


def _capital(data: DomainData, entity: str, ours: str, theirs: str, url: str) -> None:
    if not ours:
        return
    if not same_place(ours, theirs):
        data.drop(f"capital of {entity}", f"GeoNames says {ours}, countryinfo {theirs or 'none'}")
        return
    data.fact(entity, "capital", ours, url)


def _first(value: object) -> str:
    if isinstance(value, list) and value:
        return str(value[0])
    return value if isinstance(value, str) else ""
