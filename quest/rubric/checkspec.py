"""What each leaf check kind accepts. validate.py applies these to every leaf, so a tree built
in Python gets the same scrutiny as one imported from JSON.

  mentions         value: str, aliases?: [str], scope?: "answer" | "cited_pages", SLOT
  one_of           values: [str], exclusive?: bool, at_least?: int (that many different values
                   must be stated: the k-th item slot of "find k items" has at_least k), scope?,
                   SLOT
  at_most          values: [str], most: int (the answer states at most that many different
                   values: the guard of "find k items" against listing every candidate), SLOT
  number           value: number or numeric string, tolerance_abs?: >=0, tolerance_rel?: >=0,
                   scope?, SLOT
  date             value?: date, after?: date, before?: date (at least one), scope?, SLOT
  regex            pattern: str (no backreferences; runs with a time limit), ignore_case?: bool,
                   raw?: bool (match the whole answer, markup and URLs included, without the
                   claim rules: for format checks)
  cites_url        urls?: [str] (a URL, or a bare host such as "patents.google.com")
  source_supports  value: str or number, SLOT
  judge            claim: str, sources?: [http(s) URL]

SLOT is how a value must be stated to count (quest.rubric.claims): list?: bool (an item of a
list counts, for the k-th item of "find k items"), context?: [str] (the value's clause must
also say one of these, e.g. ["capital"] for "the capital is Canberra"), subject?: str and
subject_aliases?: [str] (the value must be stated of this subject, for the context's relation,
and no other value for them: quest.rubric.binding), others?: [str] (more names the answer may
be about, beside the tree's own values, so that a fact about them is told apart).

COMMITTED (mentions, one_of, at_most): committed?: bool (read only the answer's final
"Exact answer:" line, quest.rubric.commitment), max_chars?: int (a longer answer commits to
nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from quest.rubric.dates import parse_date
from quest.rubric.model import MAX_TEXT, Check, ParamValue
from quest.rubric.numbers import number_from_param
from quest.rubric.regex_guard import pattern_problem

SCOPES = ("answer", "cited_pages")
MAX_COUNT = 100
ParamRule = Callable[[ParamValue], str | None]


def _text(value: ParamValue) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "must be a non-empty string"
    return "is too long" if len(value) > MAX_TEXT else None


def _texts(value: ParamValue) -> str | None:
    if not isinstance(value, tuple) or not all(_text(item) is None for item in value):
        return "must be a list of non-empty strings"
    return None


def _nonempty_texts(value: ParamValue) -> str | None:
    return _texts(value) or ("must not be empty" if not value else None)


def _bool(value: ParamValue) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _number(value: ParamValue) -> str | None:
    return None if number_from_param(value) is not None else "must be a number"


def _count(value: ParamValue) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_COUNT
    return None if ok else f"must be a whole number from 1 to {MAX_COUNT}"


def _length(value: ParamValue) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_LENGTH
    return None if ok else f"must be a whole number of characters from 1 to {MAX_LENGTH:,}"


def _tolerance(value: ParamValue) -> str | None:
    ok = (
        isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < float("inf")
    )
    return None if ok else "must be a non-negative number"


def _date(value: ParamValue) -> str | None:
    ok = isinstance(value, str) and parse_date(value) is not None
    return None if ok else "must be a date such as 2024-03-05, 2024-03 or 2024"


def _scope(value: ParamValue) -> str | None:
    return None if value in SCOPES else f"must be one of {', '.join(SCOPES)}"


def _pattern(value: ParamValue) -> str | None:
    if not isinstance(value, str) or not value:
        return "must be a non-empty string"
    return pattern_problem(value)


def _value(value: ParamValue) -> str | None:
    return _text(value) if isinstance(value, str) else _number(value)


def _urls(value: ParamValue) -> str | None:
    if _texts(value) is not None:
        return "must be a list of URLs"
    assert isinstance(value, tuple)
    bad = [str(url) for url in value if not str(url).startswith(("http://", "https://"))]
    return f"must be http(s) URLs, got {bad[0][:80]!r}" if bad else None


MAX_LENGTH = 10_000_000  # characters: a limit on an answer's length
_SLOT: dict[str, tuple[ParamRule, bool]] = {
    "list": (_bool, False),
    "context": (_texts, False),
    "subject": (_text, False),
    "subject_aliases": (_texts, False),
    "others": (_texts, False),
}
_COMMITTED: dict[str, tuple[ParamRule, bool]] = {
    "committed": (_bool, False),
    "max_chars": (_length, False),
}

# kind -> param -> (rule, required)
SPECS: dict[str, dict[str, tuple[ParamRule, bool]]] = {
    "mentions": {
        "value": (_text, True),
        "aliases": (_texts, False),
        "scope": (_scope, False),
        **_SLOT,
        **_COMMITTED,
    },
    "one_of": {
        "values": (_nonempty_texts, True),
        "exclusive": (_bool, False),
        "at_least": (_count, False),
        "scope": (_scope, False),
        **_SLOT,
        **_COMMITTED,
    },
    "at_most": {
        "values": (_nonempty_texts, True),
        "most": (_count, True),
        **_SLOT,
        **_COMMITTED,
    },
    "number": {
        "value": (_number, True),
        "tolerance_abs": (_tolerance, False),
        "tolerance_rel": (_tolerance, False),
        "scope": (_scope, False),
        **_SLOT,
    },
    "date": {
        "value": (_date, False),
        "after": (_date, False),
        "before": (_date, False),
        "scope": (_scope, False),
        **_SLOT,
    },
    "regex": {"pattern": (_pattern, True), "ignore_case": (_bool, False), "raw": (_bool, False)},
    "cites_url": {"urls": (_texts, False)},
    "source_supports": {"value": (_value, True), **_SLOT},
    "judge": {"claim": (_text, True), "sources": (_urls, False)},
}
KINDS = tuple(SPECS)


def check_problems(check: Check) -> list[str]:
    """Every problem with a check's kind and params, as `check.<param> ...` phrases."""
    spec = SPECS.get(check.kind)
    if spec is None:
        return [f"unknown check kind {check.kind[:40]!r} (expected one of {', '.join(KINDS)})"]
    problems = [
        f"check.{key[:40]} is not a parameter of {check.kind}"
        for key in check.params
        if key not in spec
    ]
    for key, (rule, required) in spec.items():
        if key not in check.params:
            if required:
                problems.append(f"check.{key} is required for {check.kind}")
            continue
        problem = rule(check.params[key])
        if problem:
            problems.append(f"check.{key} {problem}")
    return problems + _cross_field(check.kind, check.params)


def _cross_field(kind: str, params: Mapping[str, ParamValue]) -> list[str]:
    if kind != "date":
        return []
    if not any(key in params for key in ("value", "after", "before")):
        return ["check needs value, after or before for date"]
    after, before = params.get("after"), params.get("before")
    if isinstance(after, str) and isinstance(before, str):
        first, last = parse_date(after), parse_date(before)
        if first and last and first.first > last.last:
            return ["check.after is later than check.before"]
    return []
