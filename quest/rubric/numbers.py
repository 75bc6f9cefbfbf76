"""Numbers in prose: `1,234.5 km`, `45%`, `1.2 million`, `\u22123` -> value and precision."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache

from text_to_num import text2num

from quest.text.words import NUMBER_WORDS, SCALE_WORDS, TENS_WORDS

_SCALES = {
    "thousand": 3,
    "k": 3,
    "million": 6,
    "mn": 6,
    "billion": 9,
    "bn": 9,
    "trillion": 12,
}
_NUMBER = re.compile(
    r"(?<![\w.,])(?P<sign>[-\u2212]?)"
    r"(?P<int>\d{1,3}(?:[,\u00a0\u202f\u2009]\d{3})+|\d+)"
    r"(?:\.(?P<frac>\d+))?"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn|k)\b)?",
    re.IGNORECASE,
)
# A rounded figure is only lenient when rounding moved it by at most this share of the value:
# 66.7 -> 67 passes, 1,500 -> "2 thousand" does not.
ROUNDING_SHARE = Decimal("0.1")


@dataclass(frozen=True)
class Number:
    value: Decimal
    quantum: Decimal  # the place of its last stated digit: 67 -> 1, 66.7 -> 0.1, 1.2 million -> 1e5
    start: int
    end: int


def parse_number(text: str) -> Number | None:
    """The whole of `text` as one number (used for check params such as "66.7")."""
    found = list(find_numbers(text.strip()))
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(text.strip()):
        return found[0]
    return None


def number_from_param(value: object) -> Number | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Number(Decimal(value), Decimal(1), 0, 0)
    if isinstance(value, float):
        return _from_float(value)
    if isinstance(value, str):
        return parse_number(value)
    return None


def _from_float(value: float) -> Number | None:
    if not math.isfinite(value):
        return None
    exact = Decimal(repr(value))  # repr is the shortest string that reads back as this float
    exponent = exact.as_tuple().exponent
    places = exponent if isinstance(exponent, int) else 0
    return Number(exact, Decimal(1).scaleb(min(places, 0)), 0, 0)


def find_numbers(text: str) -> Iterator[Number]:
    for match in _NUMBER.finditer(text):
        digits = re.sub(r"\D", "", match["int"])
        frac = match["frac"] or ""
        try:
            value = Decimal(f"{digits}.{frac}" if frac else digits)
        except InvalidOperation:
            continue
        exponent = _SCALES.get((match["scale"] or "").lower(), 0)
        quantum = Decimal(1).scaleb(exponent - len(frac))
        value = value.scaleb(exponent)
        if match["sign"]:
            value = -value
        yield Number(value, quantum, match.start(), match.end())


# Longest first, so "seventeen" is read whole rather than as "seven".
_NUMBER_WORDS = sorted({*NUMBER_WORDS[1:], *TENS_WORDS, *SCALE_WORDS}, key=len, reverse=True)
_WORD = rf"(?:{'|'.join(_NUMBER_WORDS)})"
_WORDS = re.compile(rf"\b{_WORD}(?:(?:[\s-]+|\s+and\s+){_WORD})*\b", re.IGNORECASE)
# A sign before a figure that makes it a bound or an estimate, not the value: "≈38", "<38".
_APPROXIMATE = re.compile(r"[\u2248~\u223c<>\u2264\u2265\u2272\u2273]\s*$")


@lru_cache(maxsize=65_536)  # the same claims are read by every numeric leaf
def numbers_in(text: str) -> tuple[Number, ...]:
    """find_numbers, kept: a claim's figures are read once however many leaves read them."""
    return tuple(find_numbers(text))


def find_word_numbers(text: str) -> Iterator[Number]:
    """Numbers written in words ("thirty-eight", "eleven", "two hundred"), parsed with
    text2num; a lone "one" is left out ("one of them" names no figure)."""
    for match in _WORDS.finditer(text):
        words = match[0].lower().replace("-", " ")
        if words == "one":
            continue
        try:
            value = text2num(words, "en")
        except ValueError:
            continue
        yield Number(Decimal(value), Decimal(1), match.start(), match.end())


def approximate(text: str, found: Number) -> bool:
    """The figure is written as an estimate or a bound ("≈38", "~38", "<38")."""
    return bool(_APPROXIMATE.search(text[max(0, found.start - 3) : found.start]))


def numbers_match(
    found: Number, expected: Number, tolerance_abs: float, tolerance_rel: float
) -> bool:
    """Equal within tolerance, or equal once both are rounded to the coarser stated precision
    (the judge rule "lenient on rounding": 66.7 matches 67 and 67 matches 66.7)."""
    gap = abs(found.value - expected.value)
    allowed = max(Decimal(repr(tolerance_abs)), Decimal(repr(tolerance_rel)) * abs(expected.value))
    if gap <= allowed:
        return True
    if not tolerance_abs and not tolerance_rel and _year(expected):
        # A year is exact; rounding is for quantities: "1.8 thousand" is no year of statehood.
        return False
    quantum = max(found.quantum, expected.quantum)
    if quantum > ROUNDING_SHARE * abs(expected.value):
        return False
    return _round(found.value, quantum) == _round(expected.value, quantum)


def _year(number: Number) -> bool:
    return number.quantum >= 1 and 1000 <= number.value <= 2100


def _round(value: Decimal, quantum: Decimal) -> Decimal:
    return (value / quantum).quantize(Decimal(1), rounding=ROUND_HALF_UP)
