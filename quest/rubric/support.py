"""Does a cited page state a claim's relation? The deterministic citation check (QUEST-SPEC §2).

A page supports a claim when one window of it, a sentence and the run of sentences right after
it that continue about the same subject ("It is …", "Its …"), holds the claim's subject and its
value or object together:

- every number of the claim (rounding allowed: 5,895 m matches 5,895.0 m, 66.7 matches 67);
- every name of the claim (capitalised words past its first word);
- most (60%) of its other content words, light inflection allowed (border/borders,
  high/highest), and the value a check asks for when there is one;
- the same polarity ("is not" on one side only is a contradiction) and no ordinal the claim lacks
  ("the second highest" does not support "the highest").

Each value is bound to its subject and its relation, in the claim and on the page alike:

- A sentence's subject is what stands before its first "is/are/was/were/has/have/had". A
  pronoun-led sentence is about the page's own subject (its title up to a comma or a bracket:
  "Canberra" for "Canberra, Australia (GeoNames)") and the subject of the sentence it continues;
  a name in that sentence's predicate ("a city in Australia") is not what "Its …" is about.
- A relation is a group of words (quest.rubric.relations: population/people/inhabitants,
  area/square/km², capital, currency, largest/biggest/most populous, border/neighbour,
  elevation/height, …). A value (a number, a name) in a sentence's predicate is bound to the
  group of the relation word nearest to it, and to those joined to that word by "and"/"or"
  ("the capital and largest city of France"); the subject is bound to every relation of its
  sentence.
- Every number the claim binds to a relation must be stated in one sentence of the window with a
  relation word of the same group nearest to it, and that sentence must be about a name of the
  claim (name it, or stand for it with a pronoun; a figure in brackets after a name, "Sydney
  (5,638,830)", is about that name alone). A ranking gives the measure it ranks by: a figure in
  "the largest cities … are Sydney (5,638,830)" is Sydney's population. "Its population is
  367,752" on Canberra's page does not support "The population of Australia is 367,752", and
  "Its area is 7,686,850 square kilometres" does not support a population of 7,686,850.
- Every name the claim binds to a relation must be stated with a relation of the same group, or
  in a sentence that states no relation ("Australia is a country in Oceania"); never as the value
  of another relation ("Its capital is Canberra" does not make Canberra the currency).

The window is quoted as evidence. True words scattered over a page no longer make a false
relation true: "Sydney is the capital of Australia" is not supported by a page that says
"Its capital is Canberra" and, later, "the largest cities … are Sydney, Melbourne …". It is
still lexical: a paraphrase with other words fails (a false negative, counted by the
benchmark), a name that shares a word with another ("Mexico City", "Mexico") stands for both,
and which of a claim's names a figure belongs to is not parsed ("Canberra, the capital of
Australia, has 24,992,369 people" passes on Australia's page, which names Australia with that
population); only a judge model reads meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Literal, TypeAlias

from quest.rubric.claims import clause_spans
from quest.rubric.documents import Document
from quest.rubric.model import ParamValue
from quest.rubric.numbers import Number, find_numbers, number_from_param, numbers_match
from quest.rubric.relations import RELATIONS
from quest.rubric.sentences import sentence_spans
from quest.rubric.words import Vocabulary, same_word
from quest.text.fold import fold, snippet
from quest.text.words import STOPWORDS, word_set

Label: TypeAlias = Literal["supported", "unsupported", "unknown"]
CONTENT_SHARE = 0.6
CLAIM_REACH = 5  # words between a claim's figure and the relation word it is bound to
MAX_RUN = 24  # pronoun-led sentences a window follows (a GeoNames record has about ten)
_PRONOUNS = word_set("it its he his she her they their this these its")
_COPULAS = word_set("is are was were has have had")
_SUBJECT_PRONOUNS = word_set("it he she they")
# Words that open a phrase with no subject of its own, before the sentence's subject pronoun.
_OPENING_PREPOSITIONS = word_set("in on at from since during after before until under near along")
# Words that carry no relation of their own: generic verbs, units, approximations, sourcing,
# and a table's "Fact | Value" header.
_NEUTRAL = word_set("""
    stands stand lies lie located situated sits sit found known called named home lying standing
    both share shares shared lists list gives give shows show puts put counts count notes
    gives describes mentions city cities town towns country countries nation nations place
    places one two three four five six seven eight nine ten see
    approximately approx about around roughly nearly almost estimated some total officially
    metres meters metre meter km kilometres kilometers miles mi ft feet square sq percent per
    cent people inhabitants residents according source sources cited page article wikipedia
    geonames countryinfo record records listed reported reports states stated says said
    fact facts value values field item uses use used using
    """)
_ORDINALS = word_set(
    "second third fourth fifth sixth seventh eighth ninth tenth 2nd 3rd 4th 5th 6th 7th 8th "
    "9th 10th former formerly ex"
)
_NEGATIONS = word_set("not never no none neither nor cannot")
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
# A ranking states the measure it ranks by: "the largest cities are Sydney (5,638,830)" gives
# Sydney's population.
_RANKED_BY = {"largest": {"largest", "population"}}
_PARTICLES = word_set("de da do del della di du la le el al of the van von")
Token: TypeAlias = "str | Number"


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
    sentence: _Sentence
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
class _Sentence:
    """A sentence's words and numbers in order. Its first `subject` tokens are what it is about:
    the words before its first copula, or for a pronoun-led sentence the subject the pronoun
    stands for, put in the pronoun's place. `owners` gives, token by token, the name a figure in
    brackets follows ("Sydney (5,638,830)"): that figure is about that name."""

    tokens: tuple[Token, ...]
    subject: int
    owners: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, text: str, stand_in: tuple[str, ...] = (), at: int = 0, drop: int = 1) -> _Sentence:
        """With `stand_in`: the `drop` tokens from `at` (a pronoun, a "Short description"
        label) replaced by the subject they stand for, which ends the sentence's subject."""
        tokens, owners = _tokens(text)
        if stand_in:
            return cls(
                tokens[:at] + stand_in + tokens[at + drop :],
                at + len(stand_in),
                owners[:at] + ((),) * len(stand_in) + owners[at + drop :],
            )
        copula = next((i for i, t in enumerate(tokens) if t in _COPULAS), 0)
        return cls(tokens, copula, owners)

    def subject_words(self) -> tuple[str, ...]:
        """The subject's words that can name it (not "the", "largest", "cities")."""
        return tuple(
            t
            for t in self.tokens[: self.subject]
            if isinstance(t, str) and not (t in RELATIONS or t in STOPWORDS or t in _NEUTRAL)
        )

    def relations_at(self, index: int, reach: int | None = None) -> frozenset[str]:
        """The relations the token at `index` is bound to: all of the sentence's for its
        subject, else the nearest relation word's (both at a tie) with those joined to it;
        with `reach`, none when that word is further off ("The capital of Australia is
        Canberra, officially named in 1913" binds 1913 to no relation)."""
        found = [(abs(i - index), i) for i, t in enumerate(self.tokens) if t in RELATIONS]
        if reach is not None:
            found = [(d, i) for d, i in found if d <= reach]
        if not found:
            return frozenset()
        if index < self.subject:
            return frozenset(RELATIONS[str(self.tokens[i])] for _, i in found)
        nearest = min(distance for distance, _ in found)
        return frozenset().union(*(self._joined(i) for d, i in found if d == nearest))

    def _joined(self, index: int) -> frozenset[str]:
        """The relation at `index` and those joined to it by 'and'/'or' ("the capital and
        largest city of France" binds France to both)."""
        groups = {RELATIONS[str(self.tokens[index])]}
        for step in (-1, 1):
            i = index
            while 0 <= i + 2 * step < len(self.tokens) and self.tokens[i + step] in ("and", "or"):
                i += 2 * step
                if self.tokens[i] not in RELATIONS:
                    break
                groups.add(RELATIONS[str(self.tokens[i])])
        return frozenset(groups)

    def given_at(self, index: int) -> frozenset[str]:
        """The relations a page gives the token at `index`: a ranking gives its measure too."""
        return frozenset().union(*(_RANKED_BY.get(g, {g}) for g in self.relations_at(index)))

    def relations_of(self, name: str) -> frozenset[str]:
        """Every relation an occurrence of `name` is bound to."""
        return frozenset().union(
            *(self.relations_at(i) for i, t in enumerate(self.tokens) if t == name)
        )

    def states_number(
        self, number: Number, relations: frozenset[str], names: tuple[str, ...]
    ) -> bool:
        """Whether the sentence gives `number` with one of `relations` (any, if none) and about
        one of `names` (anything, if none): the name its brackets follow, or the sentence's."""
        words = [t for t in self.tokens if isinstance(t, str)]
        for i, token in enumerate(self.tokens):
            if not (isinstance(token, Number) and numbers_match(token, number, 0.0, 0.0)):
                continue
            about = self.owners[i] or words
            if relations and not self.given_at(i) & relations:
                continue
            if not names or any(same_word(word, name) for word in about for name in names):
                return True
        return False

    def states_name(self, name: str, relations: frozenset[str]) -> bool:
        """Whether the sentence names `name` with one of `relations`, or with no relation."""
        return any(
            isinstance(t, str)
            and same_word(t, name)
            and (not (found := self.given_at(i)) or bool(found & relations))
            for i, t in enumerate(self.tokens)
        )


@dataclass(frozen=True)
class _Window:
    text: str
    words: tuple[str, ...]
    vocabulary: Vocabulary
    sentences: tuple[_Sentence, ...]

    # A page's windows are kept (lru_cache) and read for claim after claim: these once each.
    @cached_property
    def numbers(self) -> tuple[Number, ...]:
        return tuple(find_numbers(self.text))

    @cached_property
    def negated(self) -> bool:
        return _negated(list(self.words))


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


# A number that is part of a standard's or code's name ("ISO 4217", "ISO 3166-2") is no figure
# a page must repeat: a page says "its currency is the Lira (TRY)", not "ISO 4217".
_DESIGNATION = re.compile(r"\b[A-Z]{2,}\s+(?:\d+[-\u2010\u2011])?$")


def _fact(claim: str) -> _Fact:
    numbers = tuple(n for n in find_numbers(claim) if not _DESIGNATION.search(claim[: n.start]))
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
        sentence=_Sentence.of(claim),
        lead=tuple(w for w in dict.fromkeys(lead) if w not in names),
    )


def _without_numbers(text: str, numbers: tuple[Number, ...]) -> str:
    for number in reversed(numbers):
        text = text[: number.start] + " " + text[number.end :]
    return text


def _negated(words: list[str]) -> bool:
    count = sum(1 for w in words if w in _NEGATIONS) + sum(1 for w in words if w == "t")
    return count % 2 == 1


@lru_cache(maxsize=4096)  # at least MAX_CITATIONS pages of one answer; a batch's pages recur
def _vocabulary(text: str, title: str) -> frozenset[str]:
    return frozenset(fold(f"{title} {text}").split())


@lru_cache(maxsize=4096)
def _windows(text: str, title: str) -> tuple[_Window, ...]:
    """Each sentence, alone and with each length of the run of pronoun-led sentences after it
    (at most MAX_RUN of them: a page of a thousand "It …" sentences costs linear time)."""
    entity = tuple(fold(re.split(r"\s*[(,]", title, maxsplit=1)[0]).split())
    sentences: list[tuple[str, tuple[str, ...], bool, _Sentence]] = []
    lead: tuple[str, ...] = ()
    for start, end in sentence_spans(text):
        sentence = " ".join(text[start:end].split())
        words = tuple(fold(sentence).split())
        at, drop = _stands_for_subject(sentence, words)
        led = bool(words) and words[0] in _PRONOUNS  # continues the sentence before it
        stand_in = tuple(dict.fromkeys(entity + lead)) if drop else ()
        if words[:2] == ("short", "description"):
            stand_in = entity  # the page's own one-line description of its subject
        parsed = _Sentence.of(sentence, stand_in, at, drop)
        lead = lead if led else parsed.subject_words()
        sentences.append((sentence, words + stand_in, led, parsed))
    windows: list[_Window] = []
    for i, (sentence, words, _, parsed) in enumerate(sentences):
        windows.append(_Window(sentence, words, Vocabulary.of(words), (parsed,)))
        texts, joined, run = [sentence], list(words), [parsed]
        for following, more, led, parsed_more in sentences[i + 1 : i + 1 + MAX_RUN]:
            if not led:
                break
            texts.append(following)
            joined.extend(more)
            run.append(parsed_more)
            window = _Window(
                " ".join(texts), tuple(joined), Vocabulary.of(tuple(joined)), tuple(run)
            )
            windows.append(window)
    return tuple(windows)


def _stands_for_subject(sentence: str, words: tuple[str, ...]) -> tuple[int, int]:
    """Where the tokens that stand for the page's subject are, and how many: a leading
    pronoun ("It is …"), the label of the page's short description ("Short description:
    Capital of France."), or the pronoun that is the subject after an opening phrase with no
    subject of its own ("Located on the river Seine, it is …", "In 1889, it became …"); a
    clause with its own subject ("When the river floods, it …") is not one. (0, 0): none."""
    if not words:
        return 0, 0
    if words[0] in _PRONOUNS:
        return 0, 1
    if words[:2] == ("short", "description"):
        return 0, 2
    opening, comma, rest = sentence.partition(",")
    after = fold(rest).split()
    before = fold(opening).split()
    if not comma or not after or after[0] not in _SUBJECT_PRONOUNS or len(before) > 16:
        return 0, 0
    first = before[0]
    subjectless = first in _OPENING_PREPOSITIONS or first.endswith("ed")
    if subjectless and not _COPULAS.intersection(before):
        return len(_tokens(opening)[0]), 1
    return 0, 0


def _tokens(text: str) -> tuple[tuple[Token, ...], tuple[tuple[str, ...], ...]]:
    """The folded words and the numbers of `text` in order, with each token's owner."""
    tokens: list[Token] = []
    owners: list[tuple[str, ...]] = []
    last = 0
    for number in find_numbers(text):
        words = fold(text[last : number.start]).split()
        tokens.extend([*words, number])
        owners.extend([*((),) * len(words), _bracket_owner(text[: number.start])])
        last = number.end
    words = fold(text[last:]).split()
    tokens.extend(words)
    return tuple(tokens), tuple(owners + [()] * len(words))


def _bracket_owner(before: str) -> tuple[str, ...]:
    """The name right before the bracket a figure opens ("Ho Chi Minh City (8,993,082)")."""
    before = before.rstrip()
    if not before.endswith("("):
        return ()
    run: list[str] = []
    for word in reversed(before[:-1].split()[-8:]):
        if not (word[:1].isupper() or (run and word in _PARTICLES)):
            break
        run.append(word)
    while run and run[-1] in _PARTICLES:
        run.pop()
    return tuple(fold(" ".join(reversed(run))).split())


def _missing(fact: _Fact, window: _Window, must: ParamValue | None) -> list[str]:
    """What the window lacks to state the fact (empty when it states it)."""
    missing: list[str] = []
    page_numbers = window.numbers if fact.numbers or must is not None else ()
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
    if window.negated != fact.negated:
        missing.append("the same polarity (one side says 'not')")
    extra = _ordinals_before(window.words, fact) - fact.ordinals
    if extra:
        missing.append(f"no qualifier ('{sorted(extra)[0]}' changes the relation)")
    return missing or _unbound(fact, window)


def _unbound(fact: _Fact, window: _Window) -> list[str]:
    """The claim's values the window does not state with the claim's relation and subject."""
    claim, missing = fact.sentence, []
    for index, number in enumerate(claim.tokens):
        if not isinstance(number, Number):
            continue
        relations, figure = claim.relations_at(index, CLAIM_REACH), f"{number.value.normalize():f}"
        if any(s.states_number(number, relations, fact.names) for s in window.sentences):
            continue
        if any(s.states_number(number, relations, ()) for s in window.sentences):
            subject = " or ".join(f"'{name}'" for name in fact.names)
            missing.append(f"the figure {figure} said of {subject}")
        else:
            missing.append(f"the figure {figure} stated as {'/'.join(sorted(relations))}")
    for name in fact.names:
        relations = frozenset() if name in RELATIONS else claim.relations_of(name)
        if relations and not any(s.states_name(name, relations) for s in window.sentences):
            missing.append(f"'{name}' stated as {'/'.join(sorted(relations))}")
    return missing


def _states_value(value: ParamValue, window: _Window, numbers: tuple[Number, ...]) -> bool:
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
        if words[i] in _ORDINALS and any(same_word(words[i + 1], w) for w in wanted)
    }


def _quote(text: str) -> str:
    return snippet(text, 0, len(text), 0) if len(text) <= 600 else text[:599] + "\u2026"
