"""How a value is written, read as a whole: a name compared as a person compares names, and a
number with its sign, separators, number words and magnitude words.

A name's key folds case, accents (anyascii) and the punctuation inside names (hyphens,
apostrophes, full stops, commas, "&"), and a leading "the"; every other symbol stays, so "≠ X",
"~X" or "X (wrong)" is never the key of X. A number is parsed only when the whole text is one
number (with an optional unit of words): "\u221257" (a minus sign) is minus fifty-seven, "1.8
thousand" is 1,800 written to the hundred (not an exact year), "fifty-seven" is 57.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from anyascii import anyascii
from text_to_num import text2num

_NAME_PUNCTUATION = re.compile(r"[-\u2010\u2011\u2012\u2013\u2014'\u2019\u2018.,&\s]+")
_MINUS = "-\u2212\u2013\u2012\u2010\ufe63\uff0d"
_NUMBER = re.compile(
    rf"^(?P<sign>[{_MINUS}+]|minus\s|plus\s)?\s*"
    r"(?P<digits>\d{1,3}(?:(?P<sep>[,\u00a0\u202f\u2009' ])\d{3})(?:(?P=sep)\d{3})*|\d+)"
    r"(?P<fraction>\.\d+)?"
    r"(?:\s*(?P<magnitude>thousand|million|billion|k|m|bn)\b)?"
    r"(?P<unit>(?:\s*[a-z\u00b2]+\.?){0,4})$",
    re.IGNORECASE,
)
_MAGNITUDES = {
    "thousand": 3,
    "k": 3,
    "million": 6,
    "m": 6,
    "billion": 9,
    "bn": 9,
}


@lru_cache(maxsize=65_536)
def name_key(text: str) -> str:
    """A name as names are compared: "The  São-Tomé" and "sao tome" share one key."""
    folded = anyascii(unicodedata.normalize("NFKC", text)).casefold()
    words = _NAME_PUNCTUATION.sub(" ", folded).split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


@dataclass(frozen=True)
class WrittenNumber:
    value: Decimal
    exact: bool  # False when a magnitude word rounds it ("1.8 thousand")
    unit: tuple[str, ...]  # the words after it ("feet", "public holidays")


def parse_number(text: str) -> WrittenNumber | None:
    """The number `text` is as a whole (with an optional unit of up to four words), or None."""
    cleaned = " ".join(unicodedata.normalize("NFKC", text).replace("\u2212", "-").split())
    found = _NUMBER.match(cleaned)
    if found is None:
        return _number_words(cleaned)
    digits = found["digits"]
    if found["sep"]:
        digits = digits.replace(found["sep"], "")
    try:
        value = Decimal(digits + (found["fraction"] or ""))
    except InvalidOperation:
        return None
    exact = True
    magnitude = (found["magnitude"] or "").lower()
    if magnitude:
        value = value.scaleb(_MAGNITUDES[magnitude])
        exact = False
    sign = (found["sign"] or "").strip().lower()
    if sign and sign not in ("+", "plus"):
        value = -value
    unit = tuple(w.lower().rstrip(".") for w in (found["unit"] or "").split())
    return WrittenNumber(value, exact, unit)


def _number_words(text: str) -> WrittenNumber | None:
    """ "fifty-seven", "eleven public holidays", "minus three": number words then a unit."""
    words = text.replace("-", " ").split()
    sign = 1
    if words and words[0].lower() == "minus":
        sign, words = -1, words[1:]
    for cut in range(len(words), 0, -1):
        head, unit = " ".join(words[:cut]), words[cut:]
        if len(unit) > 4 or not all(w.isalpha() for w in unit):
            continue
        try:
            value = text2num(head.lower(), "en")
        except ValueError:
            continue
        return WrittenNumber(Decimal(sign * value), True, tuple(w.lower() for w in unit))
    return None


def plain_number(value: object) -> Decimal | None:
    """A check's value as a number, when it is one (an int, a float or a numeric string)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Decimal(str(value))
    if isinstance(value, str):
        written = parse_number(value)
        if written is not None and written.exact and not written.unit:
            return written.value
    return None
