"""Figures written in a claim, read with their precision, so that two sources giving the same
number in different forms ("47.6 million", "47,564,296") agree and two giving different numbers
for the same thing ("47.6 million", "52.4 million") disagree.

A figure is what the text writes, scaled by a following "thousand"/"million"/"billion"/
"trillion"; its tolerance is half the unit of its last written digit ("47.6 million" is
47,600,000 +/- 50,000; "330" is 330 +/- 0.5). Two figures are the same when they differ by no
more than the larger tolerance. A plain four-digit number from 1000 to 2100 is read as a year.
A number that names a record rather than measuring anything is no figure: one inside an address
("https://www.geonames.org/2077456") or after an identifier word ("GeoNames record 2172517",
"ISBN 0140449132").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FIGURE = re.compile(
    r"\b(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\b(?:\s*(thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)
# An address, or an identifier word and the number it labels: both name a record, not a value.
_NOT_A_FIGURE = re.compile(
    r"\b(?:https?://|www\.)\S+"
    r"|\b(?:record|id|identifier|isbn|issn|doi|no\.|code|number)\s*:?\s*#?\d[\d-]*",
    re.IGNORECASE,
)
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
FIRST_YEAR, LAST_YEAR = 1000, 2100
_EPSILON = 1e-9


@dataclass(frozen=True)
class Figure:
    text: str  # as written: "47.6 million"
    value: float
    tolerance: float
    year: bool

    def same(self, other: Figure) -> bool:
        return abs(self.value - other.value) <= max(self.tolerance, other.tolerance) + _EPSILON


def figures(text: str, *, leave_out: frozenset[str] = frozenset()) -> tuple[Figure, ...]:
    """The figures of `text`, in order, except those written as in `leave_out` (the numbers a
    question already states are not what a source answers)."""
    found = []
    for match in _FIGURE.finditer(without_identifiers(text)):
        whole, decimals, scale = match.group(1), match.group(2) or "", match.group(3) or ""
        if _plain(whole, decimals) in leave_out:
            continue
        multiplier = _SCALE.get(scale.lower(), 1.0)
        value = float(f"{whole.replace(',', '')}.{decimals or '0'}") * multiplier
        tolerance = 0.5 * 10 ** -len(decimals) * multiplier
        year = not decimals and not scale and "," not in whole and FIRST_YEAR <= value <= LAST_YEAR
        found.append(Figure(match.group(0), value, tolerance, year))
    return tuple(found)


def without_identifiers(text: str) -> str:
    """`text` with every address and labelled record number blanked out."""
    return _NOT_A_FIGURE.sub(_blank, text)


def _blank(match: re.Match[str]) -> str:
    """The identifier written over with spaces, so the other figures keep their places."""
    return " " * len(match.group(0))


def _plain(whole: str, decimals: str) -> str:
    """The form quest.agent.research.question.numbers gives: "1,083" -> "1083"."""
    value = float(f"{whole.replace(',', '')}.{decimals or '0'}")
    return f"{value:g}" if value != int(value) else str(int(value))


def share_a_figure(a: tuple[Figure, ...], b: tuple[Figure, ...]) -> bool:
    return any(x.same(y) for x in a for y in b)


def disagree(a: tuple[Figure, ...], b: tuple[Figure, ...]) -> bool:
    """Whether two claims about the same attribute give different figures for it. Amounts are
    compared when both give one; claims dated to different years are not in conflict (a
    population in 2009 and one in 2019 may both be right). Claims giving only years compare
    those."""
    amounts_a = tuple(f for f in a if not f.year)
    amounts_b = tuple(f for f in b if not f.year)
    years_a = tuple(f for f in a if f.year)
    years_b = tuple(f for f in b if f.year)
    if amounts_a and amounts_b:
        other_dates = bool(years_a) and bool(years_b) and not share_a_figure(years_a, years_b)
        return not other_dates and not share_a_figure(amounts_a, amounts_b)
    if amounts_a or amounts_b:
        return False
    return bool(years_a) and bool(years_b) and not share_a_figure(years_a, years_b)
