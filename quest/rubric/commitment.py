"""The committed answer: what an objective task's answer says its answer is, and nothing else.

The task asks for the answer in one checkable form (BrowseComp's "Exact Answer" discipline):
the answer's **last** `Exact answer: <value>` line is its commitment (the label bold or not, with
a colon, a full-width colon, or as the first cell of a table row whose next cell is the value).
Identity leaves (`committed: true` on `mentions`, `one_of` and `at_most`) read this value only.
Everything is read in what a person sees (quest.text.visible): HTML, code, footnotes, alt text
and reference notes are prose; hidden elements are not.

The value must be, **as a whole**, one value of the asked type (quest.text.values): a name equal
to the answer under its aliases, a number (separators, number words, a sign, a unit the
question uses), or, for a list question, names separated by ";" (commas when no ";"). Anything
else on the line — a bracket, a symbol, a second value, a hedge or a word of denial — commits to
nothing. Nothing is committed either when:
- there is no `Exact answer:` line;
- the prose states another candidate as a conclusion anywhere, before or after the line: "the
  answer is Y", "my pick is Y", "Final answer: Y" as a heading, label or table row, "Correction:
  … Y", "X (actually Y)" (quest.rubric.conclusions);
- a claim denies the committed value ("X is wrong", "forget X", "X (false)") or retracts all
  that was said ("All of the above is wrong");
- the committed value is struck out anywhere (`~~X~~`, `<del>X</del>`);
- the answer holds the protocol's own tags (`<ANSWER>`, `</answer>`, `<think>` in any case).
Length is no reason: a long correct report keeps its commitment.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from quest.rubric.citations import Claim
from quest.rubric.conclusions import hedged_conclusion, rival_conclusion
from quest.text.fold import fold
from quest.text.values import name_key
from quest.text.words import word_set

LABEL = re.compile(r"^[*_#>\s]*exact\s+answer[*_\s]*[:\uff1a\ufe55][*_\s]*", re.IGNORECASE)
_ROW_LABEL = re.compile(r"^(?:[^:|]{1,40}:\s*)?[*_\s]*exact\s+answer[*_\s]*$", re.IGNORECASE)
# The protocol's own tags inside an answer, in any case: the answer smuggles a second one.
_PROTOCOL_TAG = re.compile(r"</?\s*(?:answer|tool_call|tool_response|think)\s*>", re.IGNORECASE)
# Emphasis and quotes around a value are how it is shown, not what it says.
_WRAPPING = ' \t*_`"\u201c\u201d\u2018\u2019\u00ab\u00bb'
_HEDGES = word_set(
    """or either maybe perhaps probably possibly likely unlikely unsure unknown uncertain
    unclear undecided guess not no none cannot neither nor whether might could isn aren
    approximately about around roughly circa nearly almost estimated"""
)
_HEDGE_PHRASES = ("one of", "not sure", "some of", "any of", "i think", "i believe")
# Predicates that deny what a claim names: a small list, backed by the structural rules above.
DENIALS = word_set(
    """wrong incorrect false untrue mistaken erroneous invalid inaccurate retract retracted
    disregard ignore forget scratch rejected wrongly"""
)
# What a name, a number or a list may be written with; any other sign (≠, ¬, ~, ≈, <, %) on the
# line makes it something other than the answer.
_SYMBOL = re.compile(r"[^\w\s'\u2019.,&;:()+\-\u2010-\u2014\u2212]")
# Struck text as shown and as written (nested strikes hide each other's marks in the rendering).
_DELETED = re.compile(r"~~(.+?)~~|<(?:del|s|strike)\b[^>]*>(.*?)</(?:del|s|strike)\s*>", re.DOTALL)
DENIAL_REACH = 4  # words either side of a name that a denial must fall within
_DENIAL_PHRASES = ("ruled out", "rule out", "not the answer", "not correct", "not right")


@dataclass(frozen=True)
class Commitment:
    items: tuple[str, ...]  # the committed values, as written (one unless a list is asked)
    line: str  # the claim that commits ("" when there is none)
    problem: str = ""  # why nothing is committed; "" when something is

    @property
    def committed(self) -> bool:
        return not self.problem


def read_commitment(
    claims: Sequence[Claim],
    *,
    as_list: bool = False,
    answer: str = "",
    shown: str = "",
    names: Collection[str] = (),
    question: str = "",
) -> Commitment:
    """The answer's commitment, read from its claims (what a person sees, in order); `answer`,
    the raw text, is searched for protocol tags; `shown`, what a reader sees, for struck-out
    text; `names` are the candidates the prose may conclude on instead; `question` says which
    numbers are the task's own."""
    tag = _PROTOCOL_TAG.search(answer)
    if tag:
        return Commitment((), "", f"the answer holds the protocol tag {tag[0]!r}")
    lines = [(i, value) for i, c in enumerate(claims) if (value := line_value(c)) is not None]
    if not lines:
        return Commitment((), "", "the answer has no 'Exact answer:' line")
    index, raw = lines[-1]
    line = claims[index].text
    value = clean_value(raw)
    problem = _value_problem(value, as_list)
    if problem:
        return Commitment((), line, problem)
    items = split_items(value) if as_list else (value,)
    others = [c for i, c in enumerate(claims) if i != index]
    problem = (
        _struck(f"{shown}\n{answer}", items)
        or _denied(others, items)
        or _retracted(others)
        or rival_conclusion(others, items, names, question)
        or hedged_conclusion(others)
        or _earlier_lines(lines[:-1], items)
    )
    return Commitment((), line, problem) if problem else Commitment(items, line)


def line_value(claim: Claim) -> str | None:
    """The value a claim commits to when it is an `Exact answer:` line, else None."""
    found = LABEL.match(claim.text)
    if found:
        return claim.text[found.end() :]
    if claim.kind == "row":
        cells = claim.text.split(" | ")
        if len(cells) == 2 and _ROW_LABEL.match(cells[0]):
            return re.sub(r"^[^:|]{1,40}:\s*", "", cells[1])
    return None


def clean_value(text: str) -> str:
    value = text.strip().strip(_WRAPPING)
    return value[:-1].strip(_WRAPPING) if value.endswith((".", "!")) else value


def split_items(value: str) -> tuple[str, ...]:
    parts = value.split(";") if ";" in value else re.split(r",|\band\b", value)
    return tuple(p for part in parts if (p := clean_value(part)))


def same_name(written: str, name: str) -> bool:
    """A committed value names `name`: equal as whole names (quest.text.values.name_key)."""
    return name_key(clean_value(written)) == name_key(name) != ""


def _value_problem(value: str, as_list: bool) -> str:
    if not value:
        return "the 'Exact answer:' line is empty"
    if "?" in value:
        return "the 'Exact answer:' line asks instead of answering"
    words = fold(value).split()
    hedge = next((w for w in words if w in _HEDGES | DENIALS), None)
    if hedge is None and "/" in value:
        hedge = "/"
    joined = f" {' '.join(words)} "
    if hedge is None:
        hedge = next((p for p in _HEDGE_PHRASES if f" {p} " in joined), None)
    if hedge is not None:
        return f"the 'Exact answer:' line hedges or negates ({hedge!r}): it commits to nothing"
    if not as_list and ";" in value:
        return "the 'Exact answer:' line gives several answers where one is asked"
    symbol = _SYMBOL.search(value)
    if symbol:
        return f"the 'Exact answer:' line carries {symbol[0]!r}: it is more than the answer"
    return ""


def denies(text: str) -> str:
    """The denial word or phrase of a claim, or ""."""
    words = fold(text).split()
    found = next((w for w in words if w in DENIALS), None)
    if found:
        return found
    joined = f" {' '.join(words)} "
    return next((p for p in _DENIAL_PHRASES if f" {p} " in joined), "")


def _denied(claims: Sequence[Claim], items: Sequence[str]) -> str:
    """A claim that denies a committed value within a few words of naming it ("X is wrong",
    "forget X", "X (false)", "I ruled out X"). Far apart, the denial is about something else
    ("some pages wrongly give Sydney; the capital is Canberra")."""
    keys = [k.split() for item in items if (k := fold(item))]
    for claim in claims:
        if not denies(claim.text):
            continue
        words = fold(claim.text).split()
        for key in keys:
            for at in range(len(words) - len(key) + 1):
                if words[at : at + len(key)] != key:
                    continue
                near = " ".join(words[max(0, at - DENIAL_REACH) : at + len(key) + DENIAL_REACH])
                cue = denies(near)
                if cue:
                    return f"the answer denies what it commits to ({cue!r}): {_cut(claim.text)!r}"
    return ""


_RETRACTION = re.compile(
    r"\b(?:all|everything|each|any|most|some|none)\b[^.!?]{0,30}\b(?:above|before|previous|said|"
    r"written|this)\b[^.!?]{0,20}\b(?:is|are|was|were)\b[^.!?]{0,10}\b(?:wrong|incorrect|false|"
    r"mistaken|invalid|inaccurate)\b"
    r"|\b(?:disregard|ignore|forget|scratch|discard|retract)\b[^.!?]{0,20}\b(?:above|everything|"
    r"all|this|that|my answer|the answer|previous)\b",
    re.IGNORECASE,
)


def _retracted(claims: Sequence[Claim]) -> str:
    """A claim that takes back everything said ("All of the above is wrong"): the answer then
    says two things, and a reader cannot tell which it means."""
    for claim in claims:
        found = _RETRACTION.search(claim.text)
        if found:
            return f"the answer retracts what it said: {_cut(claim.text)!r}"
    return ""


def _earlier_lines(lines: Sequence[tuple[int, str]], items: Sequence[str]) -> str:
    """An earlier `Exact answer:` line with another value: the answer gave two answers."""
    wanted = {name_key(i) for i in items}
    for _, raw in lines:
        value = clean_value(raw)
        if {name_key(i) for i in split_items(value)} - wanted and name_key(value) not in wanted:
            return f"the answer gives another 'Exact answer:' line: {value[:80]!r}"
    return ""


def _struck(shown: str, items: Sequence[str]) -> str:
    """A committed value the answer also strikes out (`~~X~~`): it took the value back."""
    keys = [f" {k} " for item in items if (k := name_key(item))]
    for struck in _DELETED.finditer(shown):
        inner = f" {name_key(struck[1] or struck[2] or '')} "
        if any(key in inner for key in keys):
            return "the answer strikes out what it commits to"
    return ""


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
