"""Dates in prose as day ranges: `March 5, 2024` is a day, `March 2024` a month, `2024` a year."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"

# Most specific first: a day-level match hides the month and year matches inside it.
_PATTERNS = [
    re.compile(r"\b" + _YEAR + r"[-/.](?P<mnum>\d{1,2})[-/.]" + r"(?P<day>\d{1,2})\b"),
    re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR + r"\b", re.IGNORECASE),
    re.compile(r"\b" + _DAY + r"(?:\s+of)?\s+" + _MONTH + r",?\s+" + _YEAR + r"\b", re.IGNORECASE),
    re.compile(r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b", re.IGNORECASE),
    re.compile(r"\b" + _YEAR + r"-(?P<mnum>\d{2})\b(?![-/.]\d)"),
    re.compile(r"(?<![\d.,-])(?P<year>1\d{3}|2[01]\d{2})(?![\d.,]\d)"),
]


@dataclass(frozen=True)
class DateSpan:
    first: date
    last: date
    start: int
    end: int

    def within(self, first: date, last: date) -> bool:
        return first <= self.first and self.last <= last


def find_dates(text: str) -> list[DateSpan]:
    taken: list[tuple[int, int]] = []
    spans: list[DateSpan] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            span = _span(match)
            if span is not None:
                taken.append((match.start(), match.end()))
                spans.append(span)
    return sorted(spans, key=lambda span: span.start)


def parse_date(text: str) -> DateSpan | None:
    """`text` as exactly one date of any supported form (used for check params)."""
    stripped = text.strip()
    spans = find_dates(stripped)
    if len(spans) == 1 and spans[0].start == 0 and spans[0].end == len(stripped):
        return spans[0]
    return None


def _span(match: re.Match[str]) -> DateSpan | None:
    groups = match.groupdict()
    year = int(groups["year"])
    month_text = groups.get("month")
    month = _MONTHS[month_text.lower()] if month_text else _int(groups.get("mnum"))
    day = _int(groups.get("day"))
    try:
        if month is None:
            first, last = date(year, 1, 1), date(year, 12, 31)
        elif day is None:
            first = date(year, month, 1)
            last = date(year, month, calendar.monthrange(year, month)[1])
        else:
            first = last = date(year, month, day)
    except ValueError:  # 2024-13-01, February 30: not a date, so not a match
        return None
    return DateSpan(first, last, match.start(), match.end())


def _int(value: str | None) -> int | None:
    return int(value) if value else None
