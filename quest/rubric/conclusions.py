"""Rival conclusions: another candidate stated as the answer anywhere a reader looks.

A reader who meets "My pick is Fiji", a heading "Final answer: Fiji", a table row "Final answer |
58", "Correction: it is Fiji" or "Australia (actually Fiji)" has been given a second answer,
whatever the `Exact answer:` line says. Two shapes, both read in what a person sees:

- **a conclusion predicate**: a conclusion noun (CONCLUSION_NOUNS, with the modifiers of
  MODIFIERS) then a copula or a colon and the candidate ("the answer is Y", "my pick: Y",
  "final answer = 58"), or the candidate then "is the answer"; a negated candidate ("the answer
  is not Y", "…, not Y") is no rival;
- **a correction**: a claim opened by a correction marker (CORRECTIONS), or an "actually" /
  "in fact" / "rather" aside, that names another candidate.

A candidate is one of the check's candidate names (its value and `others`), a capitalised
name right after a conclusion predicate, or, for a numeric answer, a number (a correction's
numbers that the question itself states, such as its year, are no candidates). The words are
data; the reading is position only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from quest.rubric.citations import Claim
from quest.text.values import name_key, parse_number

CONCLUSION_NOUNS = (
    "answer|pick|choice|conclusion|verdict|result|winner|solution|selection|guess|bet|response"
)
MODIFIERS = (
    "final|exact|correct|true|real|right|actual|best|short|revised|corrected|updated|definitive"
)
# A hedged predicate names a candidate too: "the answer may be Y" offers a second answer.
COPULAS = (
    r"is|was|would be|should be|must be|will be|remains|becomes|has to be|stays|may be|might be"
    r"|could be|is probably|is likely|is possibly|is perhaps|seems to be|appears to be|="
    r"|:|\uff1a|-|\u2013|\u2014|->|\u2192|=>"
)
ADVERBS = r"therefore|clearly|definitely|simply|thus|then|indeed|actually|in fact|really|now|still"
CORRECTIONS = (
    r"correction|corrected|erratum|errata|update|updated|revised|revision|edit|amendment|"
    r"actually|in fact|rather|instead|on second thought|on reflection"
)
_PREDICATE = re.compile(
    rf"(?<![A-Za-z])(?:(?:{MODIFIERS})[\s_]+)*(?:{CONCLUSION_NOUNS})(?![A-Za-z])[*_\s]*"
    rf"(?:{COPULAS})[*_\s]*"
    rf"(?:(?:{ADVERBS})[\s,]+)?(?P<negated>not\s+|n't\s+)?",
    re.IGNORECASE,
)
_REVERSED = re.compile(
    rf"\s+(?:is|was|would be|must be)\s+(?:(?:{ADVERBS})\s+)?(?:the|my|our)\s+"
    rf"(?:(?:{MODIFIERS})\s+)*(?:{CONCLUSION_NOUNS})\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(rf"(?:^|[(\[,;:]\s*)(?:{CORRECTIONS})\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|rather than|instead of|except|n't)\s+$", re.IGNORECASE)
_NUMBER = re.compile(r"[-\u2212]?\d[\d,.\u202f\u2009]*(?:\s*(?:thousand|million|billion))?")
_CAPITALISED = re.compile(r"[A-Z][\w'\u2019-]*(?:\s+(?:[A-Z][\w'\u2019-]*|of|the|de|la|del))*")
MAX_READ = 64  # predicates read in one claim: the cost stays linear on hostile input


def rival_conclusion(
    claims: Sequence[Claim], items: Sequence[str], names: Collection[str], question: str = ""
) -> str:
    """Why the prose concludes on another candidate than `items`, or ""."""
    committed = {name_key(i) for i in items}
    numbers = {n for i in items if (n := _number(i)) is not None}
    asked = {n for m in _NUMBER.finditer(question) if (n := _number(m[0])) is not None}
    # A numeric answer's rivals are numbers: the names a chain passes through are no answers.
    known = [] if numbers else sorted((name_key(n) for n in names), key=len, reverse=True)
    for claim in claims:
        text = _row_text(claim)
        for rival in _rivals(text, known, committed, numbers, asked):
            return f"the prose concludes on another answer ({rival!r}): {_cut(text)!r}"
    return ""


def _rivals(
    text: str, known: list[str], committed: set[str], numbers: set[object], asked: set[object]
) -> Iterator[str]:
    for count, found in enumerate(_PREDICATE.finditer(text)):
        if count >= MAX_READ:
            return
        if found["negated"]:
            continue
        rival = _candidate_at(text, found.end(), known, committed, numbers, capitalised=True)
        if rival:
            yield rival
    for found in _REVERSED.finditer(text):
        rival = _candidate_before(text, found.start(), known, committed, numbers)
        if rival:
            yield rival
    correction = _CORRECTION.search(text)
    if correction:
        yield from _named(text[correction.end() :], known, committed, numbers | asked)


def _candidate_at(
    text: str,
    at: int,
    known: list[str],
    committed: set[str],
    numbers: set[object],
    *,
    capitalised: bool,
) -> str:
    rest = text[at : at + 160].lstrip(" *_`\"'\u201c\u2018(")
    key = name_key(rest)
    for name in known:
        if (key == name or key.startswith(name + " ")) and name not in committed:
            return name
        if key == name or key.startswith(name + " "):
            return ""
    number = _NUMBER.match(rest)
    if number and numbers:
        value = _number(number[0])
        return number[0].strip() if value is not None and value not in numbers else ""
    if capitalised:
        found = _CAPITALISED.match(rest)
        if found and name_key(found[0]) not in committed:
            words = name_key(found[0]).split()
            if words and not set(words) <= {w for c in committed for w in c.split()}:
                return found[0]
    return ""


def _candidate_before(
    text: str, end: int, known: list[str], committed: set[str], numbers: set[object]
) -> str:
    head = name_key(text[max(0, end - 120) : end])
    for name in known:
        if (head == name or head.endswith(" " + name)) and name not in committed:
            return name
    tail = _NUMBER.search(text[max(0, end - 30) : end] + "\0")
    if tail and numbers and tail.end() >= len(text[max(0, end - 30) : end]):
        value = _number(tail[0])
        return tail[0] if value is not None and value not in numbers else ""
    return ""


def _named(text: str, known: list[str], committed: set[str], numbers: set[object]) -> Iterator[str]:
    """Candidates a correction names, other than the committed ones and negated ones."""
    padded = f" {name_key(text)} "
    for name in known:
        at = padded.find(f" {name} ")
        if at >= 0 and name not in committed and not _NEGATION.search(padded[:at] + " "):
            yield name
    if numbers:
        for found in _NUMBER.finditer(text):
            value = _number(found[0])
            if (
                value is not None
                and value not in numbers
                and not _NEGATION.search(text[: found.start()])
            ):
                yield found[0]


def _number(text: str) -> object:
    written = parse_number(text.strip().rstrip(".,"))
    return written.value if written is not None else None


def _row_text(claim: Claim) -> str:
    """A table row as a reader reads it: its cells in order ("Final answer: 58")."""
    if claim.kind != "row":
        return claim.text
    cells = [re.sub(r"^[^:|]{1,40}:\s*", "", cell) for cell in claim.text.split(" | ")]
    return ": ".join(cells)


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
