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
from quest.text.fold import fold
from quest.text.values import parse_number

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
_RESTATED = re.compile(
    r"^[\s:,*_-]*(?:it|this|that|the answer|the right one|the correct one)\s+"
    r"(?:is|was|should be|must be|would be)\s+",
    re.IGNORECASE,
)
_ASIDE = re.compile(
    r"[(\[]\s*(?:actually|in fact|rather|or rather|or|correction:?|i mean|sorry)\s*,?\s*"
    r"([^()\[\]]{1,80})[)\]]",
    re.IGNORECASE,
)
_HEDGED = re.compile(
    r"\b(?:probably|possibly|perhaps|maybe|likely|unlikely|may|might|could|though|although|"
    r"unless|unsure|uncertain|not sure|i think|i guess|or)\b",
    re.IGNORECASE,
)
MAX_READ = 64  # predicates read in one claim: the cost stays linear on hostile input


def hedged_conclusion(claims: Sequence[Claim]) -> str:
    """A conclusion the prose hedges ("the answer is probably X, though it may be Y"): the
    answer then commits to nothing a reader could hold it to."""
    for claim in claims:
        text = _row_text(claim)
        if _PREDICATE.search(text) and _HEDGED.search(text):
            return f"the prose hedges its conclusion: {_cut(text)!r}"
    return ""


def rival_conclusion(
    claims: Sequence[Claim], items: Sequence[str], names: Collection[str], question: str = ""
) -> str:
    """Why the prose concludes on another candidate than `items`, or ""."""
    committed = {fold(i) for i in items}
    numbers = {n for i in items if (n := _number(i)) is not None}
    asked = {n for m in _NUMBER.finditer(question) if (n := _number(m[0])) is not None}
    # A numeric answer's rivals are numbers: the names a chain passes through are no answers.
    known = [] if numbers else sorted((fold(n) for n in names), key=len, reverse=True)
    for claim in claims:
        text = _row_text(claim)
        for rival in _rivals(text, known, committed, numbers, asked):
            return f"the prose concludes on another answer ({rival!r}): {_cut(text)!r}"
    return ""


def _rivals(
    text: str, known: list[str], committed: set[str], numbers: set[object], asked: set[object]
) -> Iterator[str]:
    yield from _predicated(text, known, committed, numbers)
    for found in _REVERSED.finditer(text):
        rival = _candidate_before(text, found.start(), known, committed, numbers)
        if rival:
            yield rival
    yield from _asides(text, committed, numbers)
    correction = _CORRECTION.search(text)
    if correction:
        rest = text[correction.end() :]
        yield from _named(rest, known, committed, numbers | asked)
        restated = _RESTATED.match(rest)  # "Correction: it is Y"
        if restated and len(committed) > 1:
            rival = _other_list(rest[restated.end() :], committed)
        elif restated:
            rival = _candidate_at(rest, restated.end(), [], committed, set(), capitalised=True)
        else:
            rival = ""
        if rival:
            yield rival


def _predicated(
    text: str, known: list[str], committed: set[str], numbers: set[object]
) -> Iterator[str]:
    """Candidates a conclusion predicate names ("the answer is Y", "my pick: A; B; C")."""
    for count, found in enumerate(_PREDICATE.finditer(text)):
        if count >= MAX_READ:
            return
        if found["negated"]:
            continue
        if len(committed) > 1:  # a list: another list concluded on is a rival one
            rival = _other_list(text[found.end() :], committed)
        else:
            rival = _candidate_at(text, found.end(), known, committed, numbers, capitalised=True)
        if rival:
            yield rival


def _asides(text: str, committed: set[str], numbers: set[object]) -> Iterator[str]:
    """ "X (actually Y)": Y, whatever it is, unless it restates the committed value."""
    for aside in _ASIDE.finditer(text):
        said = fold(aside[1])
        if said and not any(said == c or said.startswith(c + " ") for c in committed):
            value = _number(aside[1])
            if value is None or value not in numbers:
                yield aside[1].strip()


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
    key = fold(rest)
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
        if found and fold(found[0]) not in committed:
            words = fold(found[0]).split()
            if words and not set(words) <= {w for c in committed for w in c.split()}:
                return found[0]
    return ""


def _other_list(rest: str, committed: set[str]) -> str:
    """The first item of a concluded list ("my pick is A; B; C") that the committed list
    does not hold."""
    sentence = re.split(r"(?<=[.!?])\s", rest, maxsplit=1)[0]
    parts = sentence.split(";") if ";" in sentence else re.split(r",|\band\b", sentence)
    for part in parts:
        item = fold(part)
        if item and item not in committed and _CAPITALISED.match(part.strip(" *_`\"'.")):
            return part.strip(" .")
    return ""


def _candidate_before(
    text: str, end: int, known: list[str], committed: set[str], numbers: set[object]
) -> str:
    head = fold(text[max(0, end - 120) : end])
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
    padded = f" {fold(text)} "
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
