"""The page a question describes: "Which Italian city is built on more than a hundred small
islands joined by canals?" is answered by the page whose text states most of the description,
here the page about Venice, although no single sentence of it names everything asked.

A page read is a candidate when its subject is not what the question names (the page about
the Sun does not answer "the fourth world out from the Sun"), its title is not made of the
question's own words (the page "Canal"), and it names every thing the question names outside
the answer's type ("Italian" in "which Italian city" says what the answer is, not what it is
about). It scores by the share of the question's other words its text states, more when its
first sentence says it is the kind of thing asked for ("Venice is a coastal city"). The page
the question's own first search ranked first may say its kind in other words ("Malaria:
mosquito-borne disease" for "which illness") or leave out a name the question gives; it
counts, for less.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.research.question import (
    Question,
    key_terms,
    ranked_lower,
    required,
    scoped_elsewhere,
    stem,
)
from quest.agent.research.shape import NUMBER, YEAR, Shape
from quest.agent.research.tallies import Said

MIN_HITS = 2  # a page that states one word of the description only shares a word with it
MIN_SHARE = 0.3
MIN_SHARE_RETRIEVED = 0.2
RETRIEVED = 1.5  # ranked first by the question's own searches
WEIGHT = 2.0
TYPED = 2.0  # its first sentence says it is the kind of thing asked for
UNTYPED = 0.5  # it says it is another kind of thing than the one asked for
_COPULA = r"\s+(?:is|are|was|were)\s+(?:also\s+|now\s+)?"
COPULAS = frozenset({"is", "are", "was", "were"})
ARTICLES = frozenset({"a", "an", "the"})
MAX_KIND_WORDS = 6
SUPERLATIVE = 2.0
_SUPERLATIVE = re.compile(r"\b(?:the|its|their)\s+(\w{2,}est)\b", re.IGNORECASE)
_BRACKETS = re.compile(r"\s*\([^()]*\)")
# Words that end the noun phrase saying what a thing is ("a coastal city [in] Italy").
STOPS = frozenset(
    {"in", "on", "at", "near", "from", "to", "by", "of", "between", "with", "for", "as"}
    | {"which", "that", "who", "whose", "where", "whereby", "when", "located", "situated"}
    | {"known"}
)
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
    line_score: float  # how much of the description its sentence states by itself


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


def described(
    question: str,
    said: Sequence[Said],
    exclude: Sequence[str] = (),
    *,
    retrieved: Sequence[str] = (),
) -> list[Described]:
    """The pages read that the question describes, best first. A page the question's own
    searches ranked first (`retrieved`) needs less of the description in words: a paraphrase
    shares few words with the page a dense retriever finds by meaning."""
    shape, asked = Shape(question), Question(question)
    if shape.kind in {NUMBER, YEAR} or shape.comparison is not None:
        return []
    wanted = set(asked.terms) - shape.type_words - asked.entity_terms
    needed = [set(key_terms(e)) for e in required(asked)]
    if len(wanted) < MIN_HITS:
        return []
    named = {_fold(name) for name in (*asked.entities, *exclude)}
    kinds = answer_kinds(question)
    picked = frozenset(stem(m.group(1).casefold()) for m in _SUPERLATIVE.finditer(question))
    found = []
    for url, page in _pages(said).items():
        subject_terms = set(key_terms(page.subject))
        if _fold(page.subject) in named or not subject_terms or subject_terms <= set(asked.terms):
            continue
        stated = page.terms - subject_terms
        # A superlative asked for counts where the page says its subject is one ("the
        # largest planet"), not beside something else ("its largest crater").
        hits = (wanted & stated) - (picked - page.kinds)
        hits -= scoped_elsewhere(" ".join(page.defining), asked.entities)  # "in Kenya"
        share = _weight(hits, picked) / _weight(wanted, picked)
        first = url in retrieved
        least = MIN_SHARE_RETRIEVED if first else MIN_SHARE
        top = bool(retrieved) and url == retrieved[0]
        named_all = all(n <= page.terms for n in needed)
        typed = bool(kinds & page.kinds)
        meant = first and typed  # found by meaning, and of the kind asked
        if not meant and (len(hits) < MIN_HITS or share < least or not (named_all or top)):
            continue
        if wanted & ranked_lower(page.lead):
            continue  # "the second highest mountain": not the highest
        if meant:
            share = max(share, least)
        if kinds and not typed and not top:
            continue
        best = max(page.sentences, key=lambda text: len(wanted & set(key_terms(text))))
        in_one = _weight(wanted & set(key_terms(best)), picked) / _weight(wanted, picked)
        # The first page a search by meaning found may say its kind otherwise ("a disease" for
        # "which illness") and leave out a name the question gives: it counts, for less.
        kind = (TYPED if typed else UNTYPED if kinds else 1.0) * (1.0 if named_all else UNTYPED)
        score = WEIGHT * (share + in_one) / 2 * kind * (RETRIEVED if first else 1.0)
        found.append(Described(page.subject, url, best, score, typed, WEIGHT * in_one * kind))
    return sorted(found, key=lambda d: -d.score)


@dataclass
class _Page:
    subject: str
    lead: str  # its first sentence that names its subject: what it says the subject is
    terms: set[str]
    sentences: list[str]
    kinds: set[str]  # what its sentences that open on its subject say it is
    defining: list[str]  # those sentences


def _pages(said: Sequence[Said]) -> dict[str, _Page]:
    pages: dict[str, _Page] = {}
    for item in said:
        page = pages.setdefault(item.url, _Page(item.subject, "", set(), [], set(), []))
        page.terms.update(key_terms(item.text))
        page.sentences.append(item.text)
        kinds = _kinds(item.text, item.subject)
        page.kinds.update(kinds)
        page.defining += [item.text] if kinds else []
        if not page.lead and _fold(item.subject) in _fold(item.text):
            page.lead = item.text
    return {url: page for url, page in pages.items() if page.lead and page.subject}


def what_each_is(said: Sequence[Said]) -> dict[str, set[str]]:
    """What the pages read say their subjects are, by folded subject: the nouns of the
    sentences that open on the subject ("Persian is a pluricentric language ...")."""
    kinds: dict[str, set[str]] = {}
    for item in said:
        words = item.subject.split()
        # "Persian is a language" on the page "Persian language": the page's short name
        for name in {item.subject, " ".join(words[:-1]) if len(words) > 1 else item.subject}:
            kinds.setdefault(_fold(name), set()).update(_kinds(item.text, name))
    return kinds


def _weight(terms: set[str], superlatives: frozenset[str]) -> float:
    """A superlative picks one thing out of its kind ("the tallest animal"): it counts double."""
    return sum(SUPERLATIVE if term in superlatives else 1.0 for term in terms)


def _kinds(sentence: str, subject: str) -> list[str]:
    """The nouns a sentence uses to say what its subject is: "Mount Kilimanjaro is the highest
    mountain in Africa" -> highest, mountain; "Qin Shi Huang was the founder of the Qin dynasty
    and the first emperor of China" -> founder, first, emperor; nothing from "Lesotho is
    located in the Maloti Mountains", which says where it is."""
    bare = _BRACKETS.sub("", sentence.split(";", maxsplit=1)[0])
    # "Hypertension, also known as high blood pressure, is ...": the aside goes too.
    named = re.escape(subject)
    bare = re.sub(rf"^(?:The\s+)?({named}s?),[^;]*?,\s+(?=(?:is|are|was|were)\b)", r"\1 ", bare)
    bare = re.sub(rf"^({named}):\s+", r"\1 is ", bare)  # a short description: "Lava: Molten rock"
    match = re.search(rf"(?:^|\s){re.escape(_fold(subject))}s?{_COPULA}(.*)", _fold(bare))
    if match is None:
        return []
    found: list[str] = []
    for index, part in enumerate(match.group(1).split(" and ")):
        words = part.split()
        words = words[1:] if words[:1] and words[0] in COPULAS else words
        if not words or words[0].endswith("ed") or (index and words[0] not in ARTICLES):
            continue  # "is located in ...", "and its most populous city": not what it is
        kept = list(itertools.takewhile(lambda word: word not in STOPS, words))
        found += key_terms(" ".join(kept[:MAX_KIND_WORDS]))
    return found


@functools.lru_cache(maxsize=65_536)  # the same pages, read again and again
def _fold(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())
