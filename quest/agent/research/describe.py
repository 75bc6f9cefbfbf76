"""The page a question describes: "Which Italian city is built on more than a hundred small
islands joined by canals?" is answered by the page whose text states most of the description,
here the page about Venice, although no single sentence of it names everything asked.

A page read is a candidate when its subject is not what the question names (the page about
the Sun does not answer "the fourth world out from the Sun"), its title is not made of the
question's own words (the page "Canal"), and it names every thing the question names outside
the answer's type ("Italian" in "which Italian city" says what the answer is, not what it is
about). It scores by the share of the question's other words its text states, more when its
first sentence says it is the kind of thing asked for ("Venice is a coastal city").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.research.extract import Said, required
from quest.agent.research.question import Question, key_terms
from quest.agent.research.shape import NUMBER, YEAR, Shape

MIN_HITS = 2  # a page that states one word of the description only shares a word with it
MIN_SHARE = 0.3
WEIGHT = 2.0
TYPED = 2.0  # its first sentence says it is the kind of thing asked for
_ASKED_NOUN = re.compile(
    r"(?i)(?:what|who|which)\s+(?:is|was|are|were)\s+the\s+([\w\s-]+?)\s+(?:of|for|in|on)\s"
)


@dataclass(frozen=True)
class Described:
    subject: str
    url: str
    sentence: str  # the page's sentence that states most of the description
    score: float
    typed: bool


def answer_kinds(question: str) -> frozenset[str]:
    """What the question says its answer is: its type words ("which river"), else the noun it
    asks for ("What is the official language of Iran?" -> language), else nothing ("What do we
    call ...")."""
    shape, asked = Shape(question), Question(question)
    typed = shape.type_words - asked.entity_terms
    if typed:
        return typed
    match = _ASKED_NOUN.match(question.strip())
    return frozenset(key_terms(match.group(1))[-1:]) if match else frozenset()


def described(question: str, said: Sequence[Said], exclude: Sequence[str] = ()) -> list[Described]:
    """The pages read that the question describes, best first."""
    shape, asked = Shape(question), Question(question)
    if shape.kind in {NUMBER, YEAR} or shape.comparison is not None:
        return []
    wanted = set(asked.terms) - shape.type_words - asked.entity_terms
    needed = [set(key_terms(e)) for e in required(asked)]
    if len(wanted) < MIN_HITS:
        return []
    named = {_fold(name) for name in (*asked.entities, *exclude)}
    kinds = answer_kinds(question)
    found = []
    for url, page in _pages(said).items():
        subject_terms = set(key_terms(page.subject))
        if _fold(page.subject) in named or not subject_terms or subject_terms <= set(asked.terms):
            continue
        stated = page.terms - subject_terms
        hits = wanted & stated
        share = len(hits) / len(wanted)
        if len(hits) < MIN_HITS or share < MIN_SHARE or not all(n <= page.terms for n in needed):
            continue
        typed = bool(kinds & set(key_terms(page.lead.split(";")[0])))
        if kinds and not typed:
            continue
        best = max(page.sentences, key=lambda text: len(wanted & set(key_terms(text))))
        in_one = len(wanted & set(key_terms(best))) / len(wanted)
        score = WEIGHT * (share + in_one) / 2 * (TYPED if typed else 1.0)
        found.append(Described(page.subject, url, best, score, typed))
    return sorted(found, key=lambda d: -d.score)


@dataclass
class _Page:
    subject: str
    lead: str  # its first sentence that names its subject: what it says the subject is
    terms: set[str]
    sentences: list[str]


def _pages(said: Sequence[Said]) -> dict[str, _Page]:
    pages: dict[str, _Page] = {}
    for item in said:
        page = pages.setdefault(item.url, _Page(item.subject, "", set(), []))
        page.terms.update(key_terms(item.text))
        page.sentences.append(item.text)
        if not page.lead and _fold(item.subject) in _fold(item.text):
            page.lead = item.text
    return {url: page for url, page in pages.items() if page.lead and page.subject}


def _fold(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())
