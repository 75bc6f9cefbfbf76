"""Regex leaf checks without catastrophic backtracking.

Python's `re` has no timeout, so patterns are restricted instead: at most MAX_PATTERN
characters, no backreferences, no unbounded quantifier applied to a group that itself repeats
or alternates (`(a+)+`, `(a|ab)*`), at most two unbounded quantifiers in all, and the text is
searched line by line in windows of MAX_LINE characters. Together these bound a search to
O(lines x MAX_LINE^2) steps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PATTERN = 200
MAX_LINE = 2_000
MAX_UNBOUNDED = 2
# `{n,m}` with m above this behaves like `*` for backtracking purposes.
MAX_BOUNDED_REPEAT = 10
_BRACE = re.compile(r"\{(\d*)(,?)(\d*)\}")


@dataclass
class _Group:
    repeats: bool = False
    alternates: bool = False


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is refused, or None when it is safe to run."""
    if len(pattern) > MAX_PATTERN:
        return f"regex is longer than {MAX_PATTERN} characters"
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"invalid regex: {exc}"
    return _Scanner(pattern).scan()


class _Scanner:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.stack: list[_Group] = [_Group()]
        self.unbounded = 0
        self.last_closed: _Group | None = None

    def scan(self) -> str | None:
        i = 0
        while i < len(self.pattern):
            step, problem = self._token(i)
            if problem:
                return problem
            i += step
        if self.unbounded > MAX_UNBOUNDED:
            return f"regex has more than {MAX_UNBOUNDED} unbounded quantifiers"
        return None

    def _token(self, i: int) -> tuple[int, str | None]:
        ch = self.pattern[i]
        if ch == "\\":
            return self._escape(i)
        if ch == "[":
            return _class_end(self.pattern, i) - i, None
        if ch == "(":
            return self._open(i)
        if ch == ")":
            self.last_closed = self.stack.pop() if len(self.stack) > 1 else None
            if self.last_closed is not None and self.last_closed.repeats:
                self.stack[-1].repeats = True
            return 1, None
        if ch == "|":
            self.stack[-1].alternates = True
        elif ch in "*+?{":
            return self._quantifier(i)
        self.last_closed = None
        return 1, None

    def _escape(self, i: int) -> tuple[int, str | None]:
        nxt = self.pattern[i + 1 : i + 2]
        if nxt.isdigit() and nxt != "0":
            return 2, "regex backreferences are not allowed"
        self.last_closed = None
        return 2, None

    def _open(self, i: int) -> tuple[int, str | None]:
        if self.pattern.startswith("(?P=", i):
            return 1, "regex backreferences are not allowed"
        self.stack.append(_Group())
        self.last_closed = None
        return (2 if self.pattern.startswith("(?", i) else 1), None

    def _quantifier(self, i: int) -> tuple[int, str | None]:
        ch = self.pattern[i]
        length, unbounded = 1, ch in "*+"
        if ch == "{":
            brace = _BRACE.match(self.pattern, i)
            if brace is None:
                return 1, None  # a literal brace
            length = brace.end() - i
            upper = brace[3] if brace[2] else brace[1]
            unbounded = not upper or int(upper) > MAX_BOUNDED_REPEAT
        if self.pattern[i + length : i + length + 1] in ("?", "+"):
            length += 1  # lazy or possessive modifier, not a second quantifier
        closed = self.last_closed
        if unbounded and closed is not None and (closed.repeats or closed.alternates):
            return length, "regex repeats a group that itself repeats or alternates"
        self.unbounded += unbounded
        self.stack[-1].repeats = True
        self.last_closed = None
        return length, None


def _class_end(pattern: str, i: int) -> int:
    j = i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def search(pattern: str, text: str, *, ignore_case: bool = False) -> re.Match[str] | None:
    """First match of a pattern that passed pattern_problem(), line by line."""
    compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    for line in text.splitlines():
        for start in range(0, max(len(line), 1), MAX_LINE):
            match = compiled.search(line[start : start + MAX_LINE])
            if match:
                return match
    return None
