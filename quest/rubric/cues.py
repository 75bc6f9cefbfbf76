"""The words and tokens the commitment rules read (quest.rubric.claims): a claim's tokens, and
the vocabularies of negation, contrast, hedging, lists, ranges and bounds, each a small list
written out so that a reader can see exactly what counts."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeAlias

from quest.text.fold import strip_accents
from quest.text.words import word_set

Reading: TypeAlias = Literal[
    "affirmed",
    "question",
    "negated",
    "contrasted",
    "hedged",
    "listed",
    "range",
    "bound",
    "off_topic",
    "retracted",
    "other_relation",
    "other_subject",
]

TOKEN = re.compile(
    r"\d+(?:[.,\u00a0\u202f]\d+)*|[^\W\d_]+(?:['\u2019][^\W\d_]+)*|[^\w\s]", re.UNICODE
)
HARD = frozenset(";!?|\u2014\u2026")
# An em dash or a table cell border sets off more about the same thing: a slot's context may
# stand on its other side ("Kilimanjaro - the highest peak", "Capital | Canberra").
APPOSITIVE = frozenset("\u2014\u2013|")
OPEN = frozenset("([{")
CLOSE = frozenset(")]}")
DASHES = frozenset("-\u2013\u2012\u2212")
CONTRASTIVE = word_set(
    "but whereas while although though yet nevertheless nonetheless however instead unlike "
    "than versus vs except"
)
CLAUSE_WORDS = word_set(
    "but whereas while although though yet nevertheless nonetheless meanwhile instead"
)
# After a comma or "and", these start a new clause rather than continue a list.
CLAUSE_STARTERS = word_set(
    "it its it's this that these those which who whose whom where when he she they there we "
    "i you not but so because since unless"
)
NEGATORS = word_set(
    "not never no nothing none nobody nowhere neither nor cannot false untrue incorrect "
    "wrong wrongly falsely mistaken mistakenly erroneously myth misconception"
)
NOT_NEGATION = {  # "not only X but also Y", "no doubt X": these affirm
    "not": word_set("only just merely simply least"),
    "no": word_set("doubt matter less"),
}
CONTRASTS: tuple[tuple[str, ...], ...] = (
    ("rather", "than"),
    ("instead", "of"),
    ("as", "opposed", "to"),
    ("other", "than"),
    ("except", "for"),
    ("apart", "from"),
    ("in", "contrast", "to"),
    ("in", "contrast", "with"),
    ("contrary", "to"),
    ("compared", "to"),
    ("compared", "with"),
    ("unlike",),
    ("than",),
    ("except",),
    ("excluding",),
    ("besides",),
    ("versus",),
    ("vs",),
)
HEDGES = word_set(
    "could might possibly possible perhaps maybe probably probable likely unlikely presumably "
    "supposedly allegedly apparently seemingly seems seem guess unsure uncertain unclear "
    "either whether if assuming suppose supposing candidate candidates alternatively "
    "speculated rumoured rumored conceivably"
)
HEDGE_PHRASES: tuple[tuple[str, ...], ...] = (
    ("may", "be"),
    ("may", "have"),
    ("may", "well"),
    ("appears", "to"),
    ("appear", "to"),
    ("not", "sure"),
    ("not", "certain"),
    ("i", "think"),
    ("i", "believe"),
    ("we", "think"),
    ("we", "believe"),
    ("believed", "to"),
    ("thought", "to"),
    ("said", "to"),
    ("some", "say"),
    ("some", "believe"),
    ("some", "sources"),
    ("or", "so"),
)
# Words an appositive opens with after a comma ("Kumasi, a city of …", "Turkey, whose capital …").
APPOSITIVE_OPENERS = frozenset(("a", "an", "whose"))
AMONG: tuple[tuple[str, ...], ...] = (("one", "of"), ("among",), ("amongst",))
MEMBERSHIP: tuple[tuple[str, ...], ...] = (
    ("including",),
    ("include",),
    ("includes",),
    ("included",),
    ("such", "as"),
)
COPULAS = word_set(
    "is are was were be been being do does did has have had can could will would shall should "
    "must may might remains remained became becomes"
)
CONTRACTED = word_set(
    "isn't aren't wasn't weren't doesn't don't didn't hasn't haven't hadn't can't couldn't "
    "won't wouldn't shouldn't mustn't"
)
DETERMINERS = word_set("the a an its their his her our mount mt lake river")
PREPOSITIONS = word_set(
    "in on at of by from near with into onto over under about for to within across along "
    "around through between behind beyond"
)
RANGE_OPEN = word_set("between from")
RANGE_JOIN = word_set("and to through until till")
BOUNDS: tuple[tuple[str, ...], ...] = (
    ("more", "than"),
    ("less", "than"),
    ("fewer", "than"),
    ("greater", "than"),
    ("at", "least"),
    ("at", "most"),
    ("up", "to"),
    ("no", "more", "than"),
    ("over",),
    ("above",),
    ("under",),
    ("below",),
    ("exceeds",),
    ("exceeding",),
    (">",),
    ("<",),
    ("\u2265",),
    ("\u2264",),
)
JOINS = frozenset((",", "and", "&", "or", "nor", "/"))
ITEM_STARTS = COPULAS | word_set("either include includes including as")
LIST_ITEM_MAX_WORDS = 5
CONTRAST_REACH = 6
AFTER_REACH = 4


@dataclass(frozen=True)
class Token:
    word: str  # folded: lower case, no accents, curly apostrophes straightened
    start: int
    end: int
    raw: str

    @property
    def is_word(self) -> bool:
        return self.word[:1].isalnum()

    @property
    def is_number(self) -> bool:
        return self.word[:1].isdigit()


@dataclass(frozen=True)
class Judgement:
    reading: Reading
    cue: str = ""  # the words that decided it, quoted in the check's reasoning

    @property
    def commits(self) -> bool:
        return self.reading == "affirmed"


@lru_cache(maxsize=512)
def tokens(text: str) -> tuple[Token, ...]:
    out = []
    for match in TOKEN.finditer(text):
        raw = match[0]
        out.append(Token(fold_word(raw), match.start(), match.end(), raw))
    return tuple(out)


@functools.lru_cache(maxsize=65_536)  # a page's words, read claim after claim
def fold_word(word: str) -> str:
    return strip_accents(word.replace("\u2019", "'")).casefold()


def phrase_at(
    toks: Sequence[Token], i: int, phrases: tuple[tuple[str, ...], ...], stop: int
) -> tuple[str, ...] | None:
    """The first of `phrases` written at toks[i:] (ending by `stop`), or None."""
    for phrase in by_first_word(phrases).get(toks[i].word, ()):
        end = i + len(phrase)
        if end <= stop and all(toks[i + k].word == word for k, word in enumerate(phrase)):
            return phrase
    return None


@lru_cache(maxsize=32)
def by_first_word(
    phrases: tuple[tuple[str, ...], ...],
) -> dict[str, tuple[tuple[str, ...], ...]]:
    index: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        index.setdefault(phrase[0], []).append(phrase)
    return {word: tuple(group) for word, group in index.items()}
