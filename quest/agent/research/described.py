"""Parts answered by a description, not a name: "What is a burn, what kind of burn is most
common, and where do burns mainly happen?" asks about a common noun, and the page about it
(titled "Burn") answers each part in a sentence of its own ("A burn is an injury to skin ...",
"Most burns are thermal burns ...", "Burns occur mainly in the home ..."). A named thing in
another page's sentence ("Robert Burns", "Sprat") is no answer to such a part.

Each part takes the sentence of that page that shares the most of its words (its wh-words,
articles and auxiliaries aside; "most" and "mainly" count), the earliest on a tie, and no
sentence answers two parts. A part that shares only the noun with every sentence is a
definition when it asks nothing else ("What is a burn?"), and otherwise keeps its named
answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.research.parts import AUXILIARIES, ENTITY, WH_WORDS, Part
from quest.agent.research.patterns import STRAIGHT_WORD
from quest.agent.research.question import Question, stem
from quest.agent.research.reading import page_subject
from quest.search.tokens import normalise

FUNCTION_WORDS = (
    AUXILIARIES
    | WH_WORDS
    | frozenset(
        {"a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "and", "or", "kind"}
        | {"type", "sort", "form"}
    )
)


@dataclass(frozen=True)
class Stated:
    claim: str
    url: str
    title: str


def noun_page(question: Question, title: str) -> str:
    """The common noun of the question that the page is about ("burn" for "Burn"), or ""."""
    subject = page_subject(title)
    if not subject or " " in subject.strip() or subject != title.strip():
        return ""
    term = stem(normalise(subject))
    return term if term in question.common_terms else ""


def described(
    question: Question, parts: Sequence[Part], items: Sequence[Stated]
) -> dict[int, Stated]:
    """The sentence that answers each descriptive part, from the page about its noun."""
    found: dict[int, Stated] = {}
    used: set[str] = set()
    for index, part in enumerate(parts):
        words = _words(part.text)
        pages = [item for item in items if (noun := noun_page(question, item.title)) in words]
        best = _best(pages, words, used, noun if pages else "")
        if part.kind == ENTITY and best is not None:
            found[index] = best
            used.add(best.claim)
    return found


def _best(pages: list[Stated], words: set[str], used: set[str], noun: str) -> Stated | None:
    asked = words - {noun}
    ranked = [
        (len(_words(item.claim) & words), -order, item)
        for order, item in enumerate(pages)
        if item.claim not in used and noun in _words(item.claim)
    ]
    if not ranked:
        return None
    shared, _, best = max(ranked, key=lambda entry: entry[:2])
    return best if shared >= 2 or not asked else None


def _words(text: str) -> set[str]:
    return {
        stem(normalise(word))
        for word in STRAIGHT_WORD.findall(text)
        if word.casefold() not in FUNCTION_WORDS
    }
