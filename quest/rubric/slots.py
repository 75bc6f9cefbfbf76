"""Facts read as slots (subject, relation, value) where the answer's words are not the page's:
the figures a claim states, in digits or words, and whether a cited page states a check's slot
(its subject, its value and a wording of its relation) whatever the answer's wording."""

from __future__ import annotations

import re
from functools import lru_cache

from quest.rubric.documents import Document
from quest.rubric.model import Check
from quest.rubric.numbers import (
    Number,
    find_word_numbers,
    number_from_param,
    numbers_in,
    numbers_match,
)
from quest.rubric.reading import context_of
from quest.rubric.support import Support, page_support
from quest.text.fold import fold
from quest.text.words import STOPWORDS

_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*)*")
MAX_SLOT_WORDINGS = 6  # wordings of a relation tried against one cited page


@lru_cache(maxsize=65_536)  # every numeric leaf reads the same claims
def written_numbers(text: str) -> tuple[Number, ...]:
    """The figures of a claim, in digits or in words ("element number thirty-eight")."""
    return (*numbers_in(text), *find_word_numbers(text))


def slot_support(check: Check, claim: str, page: Document) -> Support:
    """The page states the claim, or, read as a slot, states the check's fact: its subject with
    its value and a wording of its relation. The answer's own words do not have to be the
    page's ("achieved statehood in 1787" against "became a state in 1787")."""
    value = check.params["value"]
    found = page_support(claim, page, must=value)
    if found.supported:
        return found
    subject = check.params.get("subject")
    written = f"{value:,}" if isinstance(value, int) else str(value)
    wordings = context_of(check)[:MAX_SLOT_WORDINGS]
    if not isinstance(subject, str):
        if not wordings:  # no subject and no relation: there is no slot to read
            return found
        # No subject named: the claim's own names stand for it ("Copenhagen Roskilde Airport
        # (RKE), an airport in Denmark").
        names = [n for n in _CAPITALISED.findall(claim) if fold(n) not in STOPWORDS]
        subject = " ".join(n for n in names if fold(n) != fold(written))
    for phrase in wordings or ((),):
        slot = page_support(f"{subject} {' '.join(phrase)} {written}", page, must=value)
        if slot.supported:
            return slot
    return found


def states_slot(check: Check, fact: str) -> bool:
    """A cited fact names the check's subject and states its value (as written or as a
    number): the citation then vouches for that slot."""
    subject, value = check.params.get("subject"), check.params.get("value")
    folded = f" {fold(fact)} "
    if not isinstance(subject, str) or f" {fold(subject)} " not in folded:
        return False
    if isinstance(value, str):
        return f" {fold(value)} " in folded
    expected = number_from_param(value)
    return expected is not None and any(
        numbers_match(n, expected, 0.0, 0.0) for n in written_numbers(fact)
    )
