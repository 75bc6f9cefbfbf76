"""The committed answer: what an objective task's answer says its answer is, and nothing else.

The task asks for the answer in one checkable form: the answer's **last line of prose** reads
`Exact answer: <value>` (the convention of BrowseComp; bold or italic label allowed, only a
reference list may follow it). For a "find k items" task the value lists the items separated
by ";" (commas too when no ";" is written). Identity leaves (`committed: true` on `mentions`,
`one_of` and `at_most`) read this value only, never a mention anywhere else, so a dossier of
every candidate's facts, a comparison with the right entity or a hedge over neighbours commits
to nothing.

Nothing is committed when:
- there is no `Exact answer:` line, or it is not the last line of prose (a retraction after it);
- there are two `Exact answer:` lines (it is written once, whatever they say);
- the value asks, hedges or negates ("Is it X?", "X or Y", "one of", "probably X", "not X");
- a claim of the answer denies the committed value ("X is wrong", "forget X", "X (false)");
- a claim calls another of the tree's names "the answer" ("Correction: the answer is Niue");
- the answer is longer than the check's `max_chars` (bulk is no answer: see quest.rubric.checks);
- the answer holds the protocol's own tags (`<ANSWER>`, `</answer>`, `<think>` in any case).

Struck-out text (`~~X~~`, `<del>`, `<s>`) is no prose (quest.rubric.citations), so it is never
committed to. Values are compared as whole names after folding (case, accents, punctuation, a
leading "the" and a trailing parenthesis): "Sudan" is not "South Sudan".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from quest.rubric.citations import Claim
from quest.rubric.claims import judge_occurrence
from quest.rubric.names import entity_mentions
from quest.rubric.text import fold, word_set

LABEL = re.compile(r"^\W*exact\s+answer\W*?:\W*", re.IGNORECASE)
# The protocol's own tags inside an answer, in any case: the answer smuggles a second one.
_PROTOCOL_TAG = re.compile(r"</?\s*(?:answer|tool_call|tool_response|think)\s*>", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`\"\u201c\u201d\u2018\u2019]+")
_TRAILING_BRACKET = re.compile(r"\s*\([^()]*\)\s*$")
# Words that make a value something other than one committed answer.
_HEDGES = word_set(
    """or either maybe perhaps probably possibly likely unlikely unsure unknown uncertain
    unclear undecided guess not no none cannot neither nor whether might could isn aren"""
)
_HEDGE_PHRASES = ("one of", "not sure", "some of", "any of", "i think", "i believe")
# Predicates that deny what a claim names: a small list, backed by the structural rules above
# (last line, one value) that do not depend on any word.
DENIALS = word_set(
    """wrong incorrect false untrue mistaken erroneous invalid inaccurate retract retracted
    disregard ignore forget scratch rejected wrongly"""
)
_DELETED = re.compile(r"~~(.+?)~~|<(del|s|strike)\b[^>]*>(.*?)</\2\s*>", re.IGNORECASE | re.DOTALL)
_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019-]*(?:\s+(?:[A-Z][\w'\u2019-]*|of|the|de|la|del))*")
MAX_NAMES = 16  # names read in one claim that speaks of the answer (the cost stays linear)
ANSWER_WORD = "answer"  # "the answer is X" in the prose names an answer as the line does
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
    names: Collection[str] = (),
) -> Commitment:
    """The answer's commitment, read from its claims (prose only, in order); `answer`, the
    raw text, is searched for protocol tags (an answer holding another `<answer>` block shows
    one thing and means another, so it commits to nothing); `names` (folded) are the other
    answers the prose may name as "the answer"."""
    tag = _PROTOCOL_TAG.search(answer)
    if tag:
        return Commitment((), "", f"the answer holds the protocol tag {tag[0]!r}")
    struck = [fold(m.group(1) or m.group(3) or "") for m in _DELETED.finditer(answer)]
    lines = [(i, c.text) for i, c in enumerate(claims) if LABEL.match(c.text)]
    if not lines:
        return Commitment((), "", "the answer has no 'Exact answer:' line")
    index, line = lines[-1]
    value = _clean(LABEL.sub("", line, count=1))
    problem = _line_problem(claims, lines, value, as_list)
    if problem:
        return Commitment((), line, problem)
    items = split_items(value) if as_list else (value,)
    problem = (
        _struck(struck, items)
        or _denied(claims[:index], items)
        or _other_answer(claims[:index], items, names)
    )
    return Commitment((), line, problem) if problem else Commitment(items, line)


def _line_problem(
    claims: Sequence[Claim], lines: Sequence[tuple[int, str]], value: str, as_list: bool
) -> str:
    index = lines[-1][0]
    if index != len(claims) - 1:
        after = claims[index + 1].text
        return f"text follows the 'Exact answer:' line: {_cut(after)!r}"
    if len(lines) > 1:
        return "the answer gives several 'Exact answer:' lines: the line is written once"
    if not value:
        return "the 'Exact answer:' line is empty"
    return _not_committal(value, as_list)


def split_items(value: str) -> tuple[str, ...]:
    parts = value.split(";") if ";" in value else re.split(r",|\band\b", value)
    return tuple(p for part in parts if (p := _clean(part)))


def same_name(written: str, name: str) -> bool:
    """A committed value names `name`: equal as whole names once folded."""
    return _key(written) == _key(name) != ""


def _key(text: str) -> str:
    folded = fold(_TRAILING_BRACKET.sub("", _clean(text)))
    return folded.removeprefix("the ").strip()


def _clean(text: str) -> str:
    return _MARKUP.sub("", text).strip().rstrip(".!").strip()


def _not_committal(value: str, as_list: bool) -> str:
    if "?" in value:
        return "the 'Exact answer:' line asks instead of answering"
    words = fold(value).split()
    hedge = next((w for w in words if w in _HEDGES), None)
    if hedge is None and "/" in value:
        hedge = "/"
    if hedge is None:
        hedge = next((p for p in _HEDGE_PHRASES if f" {p} " in f" {' '.join(words)} "), None)
    if hedge is not None:
        return f"the 'Exact answer:' line hedges or negates ({hedge!r}): it commits to nothing"
    if not as_list and ";" in value:
        return "the 'Exact answer:' line gives several answers where one is asked"
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
    keys = [k.split() for item in items if (k := _key(item))]
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


def _struck(struck: Sequence[str], items: Sequence[str]) -> str:
    """A committed value the answer also strikes out (`~~X~~`, `<del>X</del>`): it took the
    value back, whatever the line says."""
    for item in items:
        key = f" {_key(item)} "
        if any(key in f" {text} " for text in struck):
            return f"the answer strikes out what it commits to ({item!r})"
    return ""


def _other_answer(claims: Sequence[Claim], items: Sequence[str], names: Collection[str]) -> str:
    """A claim that calls another name the answer ("Correction: the answer is Niue", "The
    answer is Austria"): the prose then gives two answers, and the line commits to neither. A
    name the claim negates ("the answer is Australia, not New Zealand") is no second answer."""
    committed = {_key(item) for item in items}
    rivals = sorted((n for n in names if n not in committed), key=len, reverse=True)
    for claim in claims:
        if ANSWER_WORD not in fold(claim.text).split():
            continue
        spans = entity_mentions(claim.text, rivals) + _named_after_answer(claim.text, committed)
        for start, end in sorted((a, b) for a, b, *_ in spans)[:MAX_NAMES]:
            if judge_occurrence(claim.text, start, end, allow_list=True).commits:
                named = claim.text[start:end]
                return f"the prose gives another answer ({named!r}): {_cut(claim.text)!r}"
    return ""


def _named_after_answer(text: str, committed: set[str]) -> list[tuple[int, int]]:
    """Capitalised names after the word "answer" in its sentence ("the answer is Kairouan",
    "the answer is Armenia; Iran"), other than the committed ones and their words."""
    at = re.search(r"\banswer\b", text, re.IGNORECASE)
    if at is None:
        return []
    words = {w for key in committed for w in key.split()}
    found = []
    for match in _CAPITALISED.finditer(text, at.end()):
        key = _key(match[0])
        if key and key not in committed and not set(key.split()) <= words:
            found.append((match.start(), match.end()))
    return found


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
