"""Small helpers for rendering facts as readable sentences."""

from __future__ import annotations

from collections.abc import Sequence


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
