"""Other names an answer may go by: a country's ISO 3166 short, common and official names
(pycountry) and its usual other spellings (countryinfo's, "East Timor" for Timor-Leste, "Ivory
Coast" for Côte d'Ivoire; ISO codes left out), so "The Czech Republic" commits to Czechia and
"Bolivia" to "Bolivia, Plurinational State of"; a name two countries share is nobody's alias.
Data read from the packages, never written by hand."""

from __future__ import annotations

from functools import lru_cache

import countryinfo
import pycountry

from quest.text.values import name_key


@lru_cache(maxsize=1)
def _country_names() -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    shared: set[str] = set()
    spellings = _other_spellings()
    for country in pycountry.countries:
        names = {
            str(getattr(country, field))
            for field in ("name", "common_name", "official_name")
            if getattr(country, field, None)
        } | spellings.get(country.alpha_3, set())
        group = frozenset(names)
        for key in {name_key(name) for name in names}:
            if key in table and table[key] != group:
                shared.add(key)
            table[key] = group
    # A name two countries share names neither: committing to it commits to nothing.
    return {key: group for key, group in table.items() if key not in shared}


def _other_spellings() -> dict[str, set[str]]:
    """countryinfo's other spellings by ISO alpha-3 code, the codes themselves left out."""
    found: dict[str, set[str]] = {}
    for country in countryinfo.all_countries():
        code = (country.iso() or {}).get("alpha3")
        names = {n for n in country.alt_spellings() or () if not _is_code(n)}
        if code and names:
            found.setdefault(code, set()).update(names)
    return found


def _is_code(name: str) -> bool:
    return name.isascii() and name.isupper() and len(name) <= 3


def aliases(name: str) -> frozenset[str]:
    """The other names of `name` (itself included); just itself when none are known."""
    return _country_names().get(name_key(name), frozenset()) | {name}
