"""Other names an answer may go by: a country's ISO 3166 short, common and official names
(pycountry), so "The Czech Republic" commits to Czechia and "Bolivia" to "Bolivia,
Plurinational State of"; a name two countries share is nobody's alias. Data read from the
package, never written by hand."""

from __future__ import annotations

from functools import lru_cache

import pycountry

from quest.text.values import name_key


@lru_cache(maxsize=1)
def _country_names() -> dict[str, frozenset[str]]:
    table: dict[str, frozenset[str]] = {}
    shared: set[str] = set()
    for country in pycountry.countries:
        names = {
            str(getattr(country, field))
            for field in ("name", "common_name", "official_name")
            if getattr(country, field, None)
        }
        group = frozenset(names)
        for key in {name_key(name) for name in names}:
            if key in table and table[key] != group:
                shared.add(key)
            table[key] = group
    # A name two countries share names neither: committing to it commits to nothing.
    return {key: group for key, group in table.items() if key not in shared}


def aliases(name: str) -> frozenset[str]:
    """The other names of `name` (itself included); just itself when none are known."""
    return _country_names().get(name_key(name), frozenset()) | {name}
