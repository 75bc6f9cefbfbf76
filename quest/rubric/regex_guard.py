r"""Regex leaf checks that cannot hang a worker.

Python's `re` has no timeout and static rules cannot bound all backtracking (two adjacent `a*`
already make a search cubic), so searches run on the `regex` module with a time limit, and one
evaluation of an answer shares a total budget across all its regex leaves (checks.py): a
search that runs out of time gives an `error` verdict, not a failure, and a tree of forty slow
leaves costs one budget, not forty limits. Patterns are refused up front when they are longer
than MAX_PATTERN, do not compile, use backreferences (NP-hard matching), or are catastrophic:
an unbounded repeat around another unbounded repeat (`(a+)+`, `(\w+\s?)*`) or around
alternatives that can start alike (`(a|aa)*`), whose backtracking is exponential.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import regex

with warnings.catch_warnings():  # the standard library's own parser, under its typed name
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants as sre
    import sre_parse

MAX_PATTERN = 200
SEARCH_SECONDS = 0.25  # one search
EVALUATION_SECONDS = 1.0  # all the regex leaves of one answer together
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
    return catastrophic(pattern)


def catastrophic(pattern: str) -> str | None:
    """Why the pattern backtracks exponentially, or None. Read with the standard library's
    parser; a pattern only the `regex` module understands is left to the time limits."""
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, OverflowError, RecursionError):
        return None
    return _risk(parsed.data)


def _risk(items: list[Any]) -> str | None:
    for op, arg in items:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            _, high, body = arg
            if high == sre.MAXREPEAT and _unbounded(list(body)):
                return "regex nests unbounded repeats, like (a+)+, which backtrack exponentially"
            if high == sre.MAXREPEAT and _overlapping_branches(list(body)):
                return "regex repeats alternatives that can start alike, like (a|aa)*"
            found = _risk(list(body))
        elif op == sre.SUBPATTERN:
            found = _risk(list(arg[-1]))
        elif op == sre.BRANCH:
            found = next((r for b in arg[1] if (r := _risk(list(b)))), None)
        else:
            found = None
        if found:
            return found
    return None


def _unbounded(items: list[Any]) -> bool:
    for op, arg in items:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and (
            arg[1] == sre.MAXREPEAT or _unbounded(list(arg[2]))
        ):
            return True
        if op == sre.SUBPATTERN and _unbounded(list(arg[-1])):
            return True
        if op == sre.BRANCH and any(_unbounded(list(b)) for b in arg[1]):
            return True
    return False


def _overlapping_branches(items: list[Any]) -> bool:
    """A choice in the repeated body between alternatives that can start alike, or that may
    be empty (the parser factors (a|aa) into a(|a)): one text, many ways through."""
    for op, arg in items:
        if op == sre.SUBPATTERN and _overlapping_branches(list(arg[-1])):
            return True
        if op == sre.BRANCH:
            firsts = [_first(list(b)) for b in arg[1]]
            if any(
                a is None or b is None or a & b
                for i, a in enumerate(firsts)
                for b in firsts[i + 1 :]
            ):
                return True
    return False


def _first(items: list[Any]) -> set[int] | None:
    """Code points a branch can start with (None: could be anything, or unknown)."""
    if not items:
        return None
    op, arg = items[0]
    if op == sre.LITERAL:
        return {arg}
    if op == sre.IN and all(kind == sre.LITERAL for kind, _ in arg):
        return {value for _, value in arg}
    if op == sre.SUBPATTERN:
        return _first(list(arg[-1]))
    return None


MAX_MATCHES = 50


def finditer(
    pattern: str, text: str, *, ignore_case: bool = False, seconds: float = SEARCH_SECONDS
) -> list[tuple[int, int]]:
    """(start, end) of up to MAX_MATCHES matches, all within one time limit; raises
    RegexTimeout."""
    flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0)
    spans: list[tuple[int, int]] = []
    try:
        for match in regex.finditer(pattern, text, flags, timeout=seconds):
            spans.append(match.span())
            if len(spans) >= MAX_MATCHES:
                break
    except TimeoutError:
        raise RegexTimeout from None
    return spans
