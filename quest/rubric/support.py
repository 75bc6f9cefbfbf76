"""Does a cited page state a claim's relation? The deterministic citation check (QUEST-SPEC §2).

A page supports a claim when one small window of it, a sentence or a sentence with the ones
right after it that continue about the same subject ("It is …", "Its …"), holds the claim's
subject and its value or object together:

- every number of the claim (rounding allowed: 5,895 m matches 5,895.0 m, 66.7 matches 67);
- every name of the claim (capitalised words past its first word; a pronoun-led sentence stands
  for the page's own subject, taken from its title);
- most (60%) of its other content words, light inflection allowed (border/borders,
  high/highest), and the value a check asks for when there is one;
- the same polarity ("is not" on one side only is a contradiction) and no ordinal the claim lacks
  ("the second highest" does not support "the highest").

The window is quoted as evidence. True words scattered over a page no longer make a false
relation true: "Sydney is the capital of Australia" is not supported by a page that says
"Its capital is Canberra" and, later, "the largest cities … are Sydney, Melbourne …". It is
still lexical: a paraphrase with other words fails (a false negative, counted by the
benchmark), and only a judge model reads meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, TypeAlias

import snowballstemmer

from quest.rubric.citations import sentence_spans
from quest.rubric.claims import clause_spans
from quest.rubric.documents import Document
from quest.rubric.model import ParamValue
from quest.rubric.numbers import Number, find_numbers, number_from_param, numbers_match
from quest.rubric.text import STOPWORDS, fold, snippet, word_set

Label: TypeAlias = Literal["supported", "unsupported", "unknown"]
CONTENT_SHARE = 0.6
MAX_CONTINUATION = 2  # pronoun-led sentences that may follow a window's first sentence
_PRONOUNS = word_set("it its he his she her they their this these its")
# Words that carry no relation of their own: generic verbs, units, approximations, sourcing.
_NEUTRAL = word_set("""
    stands stand lies lie located situated sits sit found known called named home lying standing
    both share shares shared lists list gives give shows show puts put counts count notes
    gives describes mentions city cities town towns country countries nation nations place
    places one two three four five six seven eight nine ten see
    approximately approx about around roughly nearly almost estimated some total officially
    metres meters metre meter km kilometres kilometers miles mi ft feet square sq percent per
    cent people inhabitants residents according source sources cited page article wikipedia
    geonames countryinfo record records listed reported reports states stated says said
    """)
_ORDINALS = word_set(
    "second third fourth fifth sixth seventh eighth ninth tenth 2nd 3rd 4th 5th 6th 7th 8th "
    "9th 10th former formerly ex"
)
_NEGATIONS = word_set("not never no none neither nor cannot")
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
_STEMMER = snowballstemmer.stemmer("english")
# A few relation words that pages and answers say in different words: word -> group.
_SYNONYMS = {
    word: group.split()[0]
    for group in (
        "largest biggest populous",
        "border borders bordering bordered neighbour neighbours neighbouring neighbor "
        "neighbors neighboring adjacent",
        "population inhabitants residents",
        "highest tallest",
    )
    for word in group.split()
}


@dataclass(frozen=True)
class Support:
    label: Label
    quote: str
    reason: str

    @property
    def supported(self) -> bool:
        return self.label == "supported"


@dataclass(frozen=True)
class _Fact:
    numbers: tuple[Number, ...]
    names: tuple[str, ...]
    content: tuple[str, ...]
    negated: bool
    ordinals: frozenset[str]
    lead: tuple[str, ...] = ()  # a capitalised first word: a name if the page has it

    def read_against(self, vocabulary: frozenset[str]) -> _Fact:
        """The first word of a sentence is capitalised whatever it is: it counts as a name
        when the page uses the word ("Sydney is …"), as a content word otherwise."""
        if not self.lead:
            return self
        names = tuple(w for w in self.lead if w in vocabulary)
        content = tuple(w for w in self.lead if w not in vocabulary)
        return replace(self, names=self.names + names, content=self.content + content, lead=())


@dataclass(frozen=True)
class _Window:
    text: str
    words: tuple[str, ...]
    vocabulary: _Vocabulary


def page_support(claim: str, page: Document, *, must: ParamValue | None = None) -> Support:
    """Whether `page` states `claim` (and `must`, a value a check asks for), with the window.
    A claim of several clauses ("its capital is X; its largest city is Y") is also supported
    when each clause is, by windows of its own."""
    fact = _fact(claim)
    if not (fact.numbers or fact.names or fact.content or fact.lead):
        return Support("unknown", "", "nothing checkable in the cited sentence")
    whole = _support(fact, page, must)
    if whole.supported:
        return whole
    parts = [_fact(claim[a:b]) for a, b in clause_spans(claim)]
    parts = [part for part in parts if part.numbers or part.names or part.content or part.lead]
    if len(parts) < 2:
        return whole
    found = [_support(part, page, None) for part in parts]
    if must is not None and not any(_support(p, page, must).supported for p in parts):
        return whole
    if all(item.supported for item in found):
        quote = " \u2026 ".join(dict.fromkeys(item.quote for item in found))
        return Support("supported", quote, "each clause is stated on the page")
    return whole


def _support(fact: _Fact, page: Document, must: ParamValue | None) -> Support:
    best: tuple[float, str, str] = (-1.0, "", "the page is empty")
    fact = fact.read_against(_vocabulary(page.text, page.title))
    for window in _windows(page.text, page.title):
        missing = _missing(fact, window, must)
        if not missing:
            return Support("supported", _quote(window.text), "the page states it")
        score = 1.0 / (1 + len(missing))
        if score > best[0]:
            best = (score, window.text, missing[0])
    reason = f"no sentence of the page states it (the closest lacks {best[2]})"
    return Support("unsupported", _quote(best[1]), reason)


def _fact(claim: str) -> _Fact:
    numbers = tuple(find_numbers(claim))
    raw_words = [w for w in _WORD.findall(_without_numbers(claim, numbers)) if w]
    names: list[str] = []
    content: list[str] = []
    lead: list[str] = []
    for position, raw in enumerate(raw_words):
        for word in fold(raw).split():
            if word in STOPWORDS or word in _NEUTRAL or word.isdigit() or len(word) < 3:
                continue
            if raw[:1].isupper():
                (names if position > 0 else lead).append(word)
            else:
                content.append(word)
    words = fold(claim).split()
    return _Fact(
        numbers=numbers,
        names=tuple(dict.fromkeys(names)),
        content=tuple(dict.fromkeys(w for w in content if w not in names)),
        negated=_negated(words),
        ordinals=frozenset(w for w in words if w in _ORDINALS),
        lead=tuple(w for w in dict.fromkeys(lead) if w not in names),
    )


def _without_numbers(text: str, numbers: tuple[Number, ...]) -> str:
    for number in reversed(numbers):
        text = text[: number.start] + " " + text[number.end :]
    return text


def _negated(words: list[str]) -> bool:
    count = sum(1 for w in words if w in _NEGATIONS) + sum(1 for w in words if w == "t")
    return count % 2 == 1


@lru_cache(maxsize=128)
def _vocabulary(text: str, title: str) -> frozenset[str]:
    return frozenset(fold(f"{title} {text}").split())


@lru_cache(maxsize=128)
def _windows(text: str, title: str) -> tuple[_Window, ...]:
    subject = tuple(fold(re.sub(r"\s*\([^)]*\)\s*$", "", title)).split())
    sentences: list[tuple[str, tuple[str, ...], bool]] = []
    for start, end in sentence_spans(text):
        sentence = " ".join(text[start:end].split())
        words = tuple(fold(sentence).split())
        led = bool(words) and words[0] in _PRONOUNS
        sentences.append((sentence, words + subject if led else words, led))
    windows: list[_Window] = []
    for i, (sentence, words, _) in enumerate(sentences):
        windows.append(_window(sentence, words))
        texts, joined = [sentence], list(words)
        for following, more, led in sentences[i + 1 : i + 1 + MAX_CONTINUATION]:
            if not led:
                break
            texts.append(following)
            joined.extend(more)
            windows.append(_window(" ".join(texts), tuple(joined)))
    return tuple(windows)


def _missing(fact: _Fact, window: _Window, must: ParamValue | None) -> list[str]:
    """What the window lacks to state the fact (empty when it states it)."""
    missing: list[str] = []
    page_numbers = list(find_numbers(window.text)) if fact.numbers or must is not None else []
    for number in fact.numbers:
        if not any(numbers_match(p, number, 0.0, 0.0) for p in page_numbers):
            missing.append(f"the figure {number.value.normalize():f}")
    vocabulary = window.vocabulary
    missing.extend(f"'{name}'" for name in fact.names if not vocabulary.has(name))
    if fact.content:
        absent = [word for word in fact.content if not vocabulary.has(word)]
        if len(fact.content) - len(absent) < CONTENT_SHARE * len(fact.content):
            missing.append(", ".join(f"'{word}'" for word in absent[:3]))
    if must is not None and not _states_value(must, window, page_numbers):
        missing.append(f"the value {must!r}")
    if _negated(list(window.words)) != fact.negated:
        missing.append("the same polarity (one side says 'not')")
    extra = _ordinals_before(window.words, fact) - fact.ordinals
    if extra:
        missing.append(f"no qualifier ('{sorted(extra)[0]}' changes the relation)")
    return missing


def _states_value(value: ParamValue, window: _Window, numbers: list[Number]) -> bool:
    if isinstance(value, str):
        needle = fold(value).split()
        words = list(window.words)
        return any(words[i : i + len(needle)] == needle for i in range(len(words)))
    expected = number_from_param(value)
    return expected is not None and any(numbers_match(n, expected, 0.0, 0.0) for n in numbers)


def _ordinals_before(words: tuple[str, ...], fact: _Fact) -> set[str]:
    """Ordinals of the window that qualify a word the fact uses ("second highest")."""
    wanted = set(fact.content) | set(fact.names)
    return {
        words[i]
        for i in range(len(words) - 1)
        if words[i] in _ORDINALS and any(_same(words[i + 1], w) for w in wanted)
    }


def _window(text: str, words: tuple[str, ...]) -> _Window:
    return _Window(text, words, _Vocabulary.of(words))


@dataclass(frozen=True)
class _Vocabulary:
    """A window's words indexed for what _same compares: exact words, Snowball stems, synonym
    groups, and the prefixes a word a few letters longer starts with."""

    words: frozenset[str]
    stems: frozenset[str]
    groups: frozenset[str]
    prefixes: frozenset[str]

    @classmethod
    def of(cls, words: tuple[str, ...]) -> _Vocabulary:
        unique = frozenset(words)
        return cls(
            unique,
            frozenset(_stem(w) for w in unique),
            frozenset(_SYNONYMS[w] for w in unique if w in _SYNONYMS),
            frozenset(w[:n] for w in unique for n in range(max(4, len(w) - 3), len(w))),
        )

    def has(self, word: str) -> bool:
        """Whether a word of the window is `word` by _same's rules, without a scan."""
        return (
            word in self.words
            or _stem(word) in self.stems
            or _SYNONYMS.get(word, "") in self.groups
            or (len(word) >= 4 and word in self.prefixes)
            or any(word[:n] in self.words for n in range(max(4, len(word) - 3), len(word)))
        )


def _same(a: str, b: str) -> bool:
    """Equal, one Snowball stem (city/cities, border/borders) or synonyms of a relation
    (largest/biggest, border/neighbour), or one extends the other by a short ending
    (high/highest, Kenya/Kenyan)."""
    if a == b or _stem(a) == _stem(b):
        return True
    if a in _SYNONYMS and _SYNONYMS[a] == _SYNONYMS.get(b):
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 3


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def _quote(text: str) -> str:
    return snippet(text, 0, len(text), 0) if len(text) <= 600 else text[:599] + "\u2026"
