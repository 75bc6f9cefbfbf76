"""Small helpers for rendering facts as readable sentences."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pycountry


def number(value: float) -> str:
    """66987244 -> "66,987,244"; 0.49 -> "0.49" (figures are shown as published)."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,}"


def listing(items: Sequence[str]) -> str:
    """["a"] -> "a"; ["a", "b", "c"] -> "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def language(code: str) -> str:
    """An ISO 639 code as a reader knows it: "es-AR" -> "Spanish (es-AR)"; a code the
    standard does not list stays a bare code ("xx")."""
    base = code.split("-", maxsplit=1)[0].casefold()
    field = "alpha_2" if len(base) == 2 else "alpha_3"
    found = pycountry.languages.get(**{field: base}) if len(base) in (2, 3) else None
    if found is None:
        return code
    name = re.sub(r"\s*\([^)]*\)", "", str(found.name)).strip()
    return f"{name} ({code})"
