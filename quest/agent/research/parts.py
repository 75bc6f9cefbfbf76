"""The parts of a question and the kind of answer each wants, read without any model.

"Name the highest mountain in Africa, give its height in metres and the country it stands in."
has three parts: a thing (a mountain), a number (a height) and a thing (a country); the last two
speak of the first part's answer by pronoun. A part's `kind` says what an answer looks like (a
named thing, a number or a year) and its `type_word` the head noun an answer should be ("which
lake" -> "lake"), which evidence can confirm.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from quest.agent.research.patterns import WORD
from quest.agent.research.question import stem
from quest.search.tokens import normalise
from quest.text.sentences import split_sentences
from quest.text.words import STOPWORDS

ENTITY, NUMBER, YEAR = "entity", "number", "year"
WH_WORDS = frozenset({"which", "what", "who", "whom", "whose", "where", "when", "how"})
IMPERATIVES = frozenset({"name", "give", "list", "state", "tell", "say", "identify", "find"})
# "there" stands for a place an earlier part names: "how many people live there".
PRONOUNS = frozenset({"it", "its", "they", "their", "them", "he", "his", "she", "her", "there"})
AUXILIARIES = frozenset({"is", "are", "was", "were", "did", "does", "do", "has", "have", "had"})
ARTICLES = frozenset({"the", "a", "an", "its", "their", "his", "her", "me", "us"})
# Head nouns whose answer is a measurement, and adjectives that ask for one after "how".
MEASURES = frozenset(
    {"height", "length", "population", "area", "depth", "elevation", "distance", "width"}
    | {"weight", "size", "altitude", "temperature", "speed", "age", "number", "count", "mass"}
    | {"diameter", "volume", "capacity", "density", "inhabitant"}
)
HOW_MEASURES = frozenset({"many", "much", "tall", "long", "high", "far", "big", "large", "old"})
TIMES = frozenset({"year", "when", "date", "century"})
# "how many people live there" asks for a population, the word pages state it with.
HEADCOUNTS = frozenset({"people", "inhabitants", "residents", "persons"})
POPULATION = "population"
PLACINGS = frozenset({"in", "on", "at", "near", "from"})
_BOUNDARY = re.compile(r",?\s+and\s+|,\s*|;\s*")


@dataclass(frozen=True)
class Part:
    text: str
    kind: str  # ENTITY, NUMBER or YEAR
    type_word: str  # the answer's head noun as a key term ("mountain"), or ""
    refers: bool  # names the main subject by pronoun ("its height", "was it named")
    measure: str = ""  # the measure asked for when the part does not name it ("population")
    # Where the answer stands to the subject: "on which river does it lie" -> "on", "the
    # country it stands in" -> "in"; a page states the answer after it ("on the river Seine").
    preposition: str = ""


def split_parts(question: str) -> tuple[Part, ...]:
    """The question's parts in order; a fragment that does not start a question of its own
    ("Washington, D.C.", "the Earth and the Moon") stays with the part before it."""
    fragments: list[str] = []
    for number, sentence in enumerate(split_sentences(question)):
        for fragment in _BOUNDARY.split(sentence.strip().rstrip("?.!").strip()):
            words = [w.lower() for w in WORD.findall(fragment)]
            if _starts_a_part(words) or (words and not fragments):
                fragments.append(fragment)
            elif fragments and words and number == 0:
                joiner = ", " if fragment[:1].isupper() else " and "
                fragments[-1] = f"{fragments[-1]}{joiner}{fragment}"
    # A later sentence that asks nothing ("Cite your sources.") is an instruction, not a part.
    return tuple(_part(text, index > 0) for index, text in enumerate(fragments))


def _starts_a_part(words: list[str]) -> bool:
    if not words:
        return False
    opening = words[1:] if words[0] in {"in", "on", "at", "by", "for", "from", "of"} else words
    if not opening:
        return False
    if opening[0] in WH_WORDS or opening[0] in IMPERATIVES or opening[0] in {"its", "their"}:
        return True
    # "the country it stands in": a noun phrase with a clause of its own about the subject
    return opening[0] == "the" and any(word in PRONOUNS for word in opening[2:4])


def _part(text: str, later: bool) -> Part:
    words = [w.lower() for w in WORD.findall(text)]
    head = _head(words)
    refers = later and any(word in PRONOUNS for word in words)
    if head in TIMES or "when" in words[:2]:
        return Part(text, YEAR, "", refers)
    if refers and words and (words[0] in PLACINGS or words[-1] in PLACINGS):
        placing = words[0] if words[0] in PLACINGS else words[-1]
        return Part(text, ENTITY, "" if head in STOPWORDS else stem(head), refers, "", placing)
    asks_how = any(a == "how" and b in HOW_MEASURES for a, b in itertools.pairwise(words))
    if asks_how and any(a == "many" and b in HEADCOUNTS for a, b in itertools.pairwise(words)):
        return Part(text, NUMBER, stem(POPULATION), refers, POPULATION)
    if head in MEASURES or asks_how:
        return Part(text, NUMBER, stem(head) if head in MEASURES else "", refers)
    return Part(text, ENTITY, "" if head in STOPWORDS else stem(head), refers)


def _head(words: list[str]) -> str:
    """ "which lake lies ..." -> lake; "what is the capital city of ..." -> city; "name the
    highest mountain in ..." -> mountain: the word after which/what, else the last word of the
    first run of content words."""
    start = next(
        (i for i, w in enumerate(words) if w in WH_WORDS or w in IMPERATIVES or w == "the"), 0
    )
    rest = words[start + 1 :]
    if words and words[start] in {"which", "what"} and rest and rest[0] not in AUXILIARIES:
        return normalise(rest[0])
    run: list[str] = []
    for word in rest:
        if word in AUXILIARIES or word in ARTICLES:
            if run:
                break
            continue
        if word in STOPWORDS or word in PRONOUNS:
            break
        run.append(word)
    return normalise(run[-1]) if run else ""
