"""Regex leaf checks that cannot hang a worker.

Python's `re` has no timeout and static rules cannot bound its backtracking (two adjacent
`a*` already make a search cubic), so searches run on the `regex` module with a time limit: a
search that runs out of time gives an `error` verdict, not a failure. Patterns are also
refused up front when they are longer than MAX_PATTERN, do not compile, or use
backreferences (which make matching NP-hard and leave the time limit as the only guard).
"""

from __future__ import annotations

import regex

MAX_PATTERN = 200
SEARCH_SECONDS = 0.25
_BACKREFERENCE = regex.compile(r"\\(?:[1-9]|g<[^>]*>|k<[^>]*>)|\(\?P=")


class RegexTimeout(Exception):
    """The search ran past SEARCH_SECONDS."""


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is refused, or None when it may run."""
    if len(pattern) > MAX_PATTERN:
        return f"regex is longer than {MAX_PATTERN} characters"
    if _BACKREFERENCE.search(pattern.replace("\\\\", "")):
        return "regex backreferences are not allowed"
    try:
        regex.compile(pattern, regex.VERSION0)
    except (regex.error, OverflowError, RecursionError) as exc:
        return f"invalid regex: {exc}"
    return None


def search(pattern: str, text: str, *, ignore_case: bool = False) -> regex.Match[str] | None:
    """First match of a pattern that passed pattern_problem(); raises RegexTimeout."""
    flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0)
    try:
        return regex.search(pattern, text, flags, timeout=SEARCH_SECONDS)
    except TimeoutError:
        raise RegexTimeout from None
