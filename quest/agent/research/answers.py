"""Answer candidates, counted across sources: for each part of the question, the named things,
numbers or years that evidence offers as its answer, with the sources that state each.

A candidate is what a claim names that the question does not: in "Dhaka is the capital of
Bangladesh." asked "What is the capital of Bangladesh?", Dhaka. It is trusted when two sources
state it, or one states it in a sentence that says most of what the part asks (a strong match);
it settles its part when no rival is as well supported and either two sources state it or the
strong sentence comes from the page about it (or about what the part asks of).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from quest.agent.research.described import Stated, described, noun_page
from quest.agent.research.figures import without_identifiers
from quest.agent.research.parts import ENTITY, NUMBER, Part, split_parts
from quest.agent.research.patterns import STRAIGHT_WORD
from quest.agent.research.question import STRONG_COVERAGE, Match, Question, key_terms, phrases
from quest.agent.research.reading import page_subject, title_label

TYPED_BONUS = 0.5
LIST = 3  # names in one claim that make it a list
TYPE_WINDOW = 5  # words either side of a candidate where its type word may stand
_AMOUNT = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    r"(\s+(?:million|billion|thousand))?"
    r"(\s*(?:km2|km²|sq mi|km|mi|metres|meters|m|ft|feet|kg|people|inhabitants)(?![\w]))?"
)
_YEAR = re.compile(r"(?<![\w.,])(1\d{3}|20\d{2})(?![\w,]|\.\d)")


@dataclass
class Tally:
    """One candidate answer of one part and what supports it."""

    text: str
    by_url: dict[str, float] = field(default_factory=dict)  # source -> its best claim's score
    claims: dict[str, float] = field(default_factory=dict)  # claim -> score
    strong: bool = False
    own: bool = False  # stated directly by the page about the candidate or the part's subject
    typed: bool = False
    picks: bool = False  # some claim states the superlative the question picks by, if any

    @property
    def score(self) -> float:
        return sum(self.by_url.values()) + (TYPED_BONUS if self.typed else 0.0)

    @property
    def trusted(self) -> bool:
        """Two sources, or one strong claim; for "the largest planet", a claim that says so."""
        return (len(self.by_url) >= 2 or self.strong) and self.picks

    def best_claim(self) -> str:
        return max(self.claims, key=lambda claim: (self.claims[claim], -len(claim)))


@dataclass(frozen=True)
class _Item:
    claim: str
    url: str
    title: str


class Ledger:
    """Candidates per part, filled one claim at a time; a part that speaks of the main
    subject by pronoun is re-read when the main answer changes (rarely)."""

    def __init__(self, question: Question) -> None:
        self.question = question
        self.parts: tuple[Part, ...] = split_parts(question.text) or (
            Part(question.text, ENTITY, "", False),
        )
        self.tallies: list[dict[str, Tally]] = [{} for _ in self.parts]
        self._best: list[str | None] = [None for _ in self.parts]
        self._items: list[_Item] = []
        self._asks: dict[tuple[int, str], Question] = {}
        self._stated: list[Stated] = []  # sentences of the page about a noun the question asks of
        self._described: dict[int, Tally] = {}
        self.subject = self._subject()

    # -- filling --------------------------------------------------------------------------
    def add(self, claim: str, url: str, title: str = "") -> list[int]:
        """Counts `claim` for every part; returns the parts whose best candidate changed."""
        item = _Item(claim, url, title)
        self._items.append(item)
        changed = [index for index in range(len(self.parts)) if self._count(index, item)]
        if noun_page(self.question, title):
            changed.extend(self._describe(Stated(claim, url, title)))
        if 0 in changed and self._subject() != self.subject:
            self.subject = self._subject()
            changed.extend(self._reread())
        return sorted(set(changed))

    def _count(self, index: int, item: _Item) -> bool:
        part = self.parts[index]
        ask = self.ask(index)
        match = ask.match(self._in_context(index, item))
        if not match.relevant or (part.refers and self._names_another(item.title)):
            return False
        if part.refers and _owned_by_another(part, item.claim, self.subject):
            return False
        direct_claim = self._direct(index, match)
        about = _key(page_subject(item.title)) if item.title else None
        for text in self._ranked_first(index, self.candidates(index, item.claim, item.title)):
            direct = direct_claim or self._measured(index, match, text, item.claim)
            if part.preposition:
                direct = match.entity_hits == match.entities and _placed(part, text, item.claim)
            tally = self.tallies[index].setdefault(_key(text), Tally(text))
            stated = match.score + (1.0 if direct else 0.0)  # a direct claim counts for more
            tally.by_url[item.url] = max(tally.by_url.get(item.url, 0.0), stated)
            tally.claims[item.claim] = max(tally.claims.get(item.claim, 0.0), stated)
            own = direct and about in {_key(text), *map(_key, ask.entities)}
            tally.own = tally.own or own
            tally.strong = tally.strong or own or (direct and match.coverage >= STRONG_COVERAGE)
            tally.typed = tally.typed or _typed(part, text, item.claim)
            tally.picks = tally.picks or match.picks
        return self._rebest(index)

    def _describe(self, stated: Stated) -> list[int]:
        """Re-reads the descriptive parts (research.described) with one more sentence."""
        self._stated.append(stated)
        before = {index: tally.text for index, tally in self._described.items()}
        found = described(self.question, self.parts, self._stated)
        self._described = {index: _said(item) for index, item in found.items()}
        return [i for i, tally in self._described.items() if before.get(i) != tally.text]

    def _names_another(self, title: str) -> bool:
        """Whether the page is about a thing named after the main subject ("Paris 13
        Gobelins" for Paris): what it states of that thing is not what it states of Paris."""
        about, subject = _key(page_subject(title)).split(), _key(self.subject).split()
        return bool(subject) and len(about) > len(subject) and about[: len(subject)] == subject

    def _ranked_first(self, index: int, found: list[str]) -> list[str]:
        """A list after a superlative ("The largest cities are Sydney, Melbourne, Brisbane and
        Perth") is ranked: its first name is the largest, the others are not."""
        return found[:1] if self._ranked(index, found) else found

    def _ranked(self, index: int, found: list[str]) -> bool:
        return len(found) >= LIST and bool(self.ask(index).superlatives)

    def ranks(self, index: int, claim: str) -> bool:
        """Whether the claim is a ranked list for the part: its answer is its first name."""
        return self._ranked(index, self.candidates(index, claim))

    def _measured(self, index: int, match: Match, text: str, claim: str) -> bool:
        """A number stated of the part's subject with a unit or the measure asked for ("at
        5,895 m" for "its height in metres"): units are written too many ways to match words."""
        part = self.parts[index]
        amount = _AMOUNT.fullmatch(text)
        if part.kind != NUMBER or amount is None or match.entity_hits < match.entities:
            return False
        return bool(amount.group(3)) or (bool(part.type_word) and part.type_word in match.matched)

    def _in_context(self, index: int, item: _Item) -> str:
        """A sentence on the page about the main subject speaks of it even where it does not
        name it ("Lake Burley Griffin lies at its centre." on the page about Canberra)."""
        if self.parts[index].refers and self.on_subject_page(item.title):
            # ... and every sentence of a source is "according to" it ("(GeoNames)").
            return f"{item.claim} {self.subject} {title_label(item.title)}".strip()
        return item.claim

    def on_subject_page(self, title: str) -> bool:
        return bool(self.subject) and _key(page_subject(title)) == _key(self.subject)

    def _direct(self, index: int, match: Match) -> bool:
        """Whether a claim states what the part asks: every named thing of it, and at least
        half of what is asked about them (the answer's type word aside: "a city in India"
        answers "in which country", "a city in Australia" not "which city is the capital")."""
        ask = self.ask(index)
        asked = set(ask.terms) - ask.entity_terms - {self.parts[index].type_word}
        needed = (len(asked) + 1) // 2
        return match.entity_hits == match.entities and len(match.matched & asked) >= needed

    def _rebest(self, index: int) -> bool:
        tallies = self.tallies[index]
        best = max(tallies, key=lambda key: tallies[key].score, default=None)
        if best is None or best == self._best[index]:
            return False
        current = self._best[index]
        if current is not None and tallies[current].score >= tallies[best].score:
            return False  # ties keep the earlier answer, so the order of reading is stable
        self._best[index] = best
        return True

    def _reread(self) -> list[int]:
        later = [index for index, part in enumerate(self.parts) if part.refers]
        for index in later:
            self.tallies[index], self._best[index] = {}, None
            for item in self._items:
                self._count(index, item)
        return later

    def _subject(self) -> str:
        if 0 in self._described:
            return page_subject(self._stated[0].title)
        best = self.best(0)
        if best is not None and self.parts[0].kind == ENTITY:
            return best.text
        return self.question.entities[0] if self.question.entities else ""

    # -- reading back ---------------------------------------------------------------------
    def ask(self, index: int) -> Question:
        """Part `index` as a question of its own, naming the main subject it refers to."""
        part = self.parts[index]
        subject = self.subject if part.refers else ""
        key = (index, subject)
        if key not in self._asks:
            self._asks[key] = Question(f"{part.text} {part.measure} {subject}".strip())
        return self._asks[key]

    def candidates(self, index: int, claim: str, title: str = "") -> list[str]:
        part = self.parts[index]
        if part.kind == NUMBER:
            return _amounts(claim, self.question)
        if part.kind != ENTITY:
            return [
                y for y in dict.fromkeys(_YEAR.findall(claim)) if y not in self.question.numbers
            ]
        known = set(self.question.terms) | set(self.ask(index).terms)
        label = _key(title_label(title))
        return [
            phrase
            for phrase in phrases(claim, skip_first=False)
            if (words := key_terms(phrase))
            and not set(words) <= known
            and _key(phrase) != label
            and not phrase.replace(",", "").replace(".", "").isdigit()
        ]

    def best(self, index: int) -> Tally | None:
        if index in self._described:
            return self._described[index]
        key = self._best[index]
        return self.tallies[index][key] if key is not None else None

    def settled(self, index: int, min_sources: int) -> bool:
        best = self.best(index)
        if best is None or not best.trusted:
            return False
        rivals = (t for t in self.tallies[index].values() if t is not best and t.trusted)
        if any(len(t.by_url) >= len(best.by_url) for t in rivals):
            return False
        return len(best.by_url) >= min_sources

    def all_settled(self, min_sources: int) -> bool:
        return all(self.settled(index, min_sources) for index in range(len(self.parts)))

    def answers(self) -> list[tuple[int, Tally]]:
        """The trusted best candidate of each part that has one."""
        found = ((index, self.best(index)) for index in range(len(self.parts)))
        return [(index, tally) for index, tally in found if tally is not None and tally.trusted]

    def supports(self, claim: str) -> bool:
        return any(claim in tally.claims for _, tally in self.answers())

    def names_a_candidate(self, claim: str) -> bool:
        return any(claim in t.claims for tallies in self.tallies for t in tallies.values())


def _said(item: Stated) -> Tally:
    """A descriptive answer: the page about the noun states it, in a sentence of its own."""
    stated = 2.0
    return Tally(item.claim, {item.url: stated}, {item.claim: stated}, True, True, True, True)


def _key(text: str) -> str:
    return " ".join(text.casefold().replace(",", "").split())


def _amounts(claim: str, question: Question) -> list[str]:
    found = []
    for match in _AMOUNT.finditer(without_identifiers(claim)):
        value, scale, unit = match.group(1), match.group(2), match.group(3)
        bare = not scale and not unit and "," not in value
        if value.replace(",", "") in question.numbers or (bare and _YEAR.fullmatch(value)):
            continue
        found.append(match.group(0).strip())
    return list(dict.fromkeys(found))


def _owned_by_another(part: Part, claim: str, subject: str) -> bool:
    """Whether the claim gives what the part asks of something else: "Recife: capital city
    of Pernambuco" does not give Brazil's capital."""
    if not part.type_word:
        return False
    owner = re.search(
        rf"\b{re.escape(part.type_word)}\w*(?:\s+\w+)?\s+of\s+(?:the\s+)?([A-Z][\w'-]*)", claim
    )
    return owner is not None and owner.group(1).casefold() not in subject.casefold()


def _placed(part: Part, text: str, claim: str) -> bool:
    """Whether the claim puts the candidate where the part asks: "the country it stands in"
    is answered by "... a volcano in Tanzania", "on which river" by "on the river Seine"."""
    kind = rf"(?:{re.escape(part.type_word)}\w*\s+)?" if part.type_word else ""
    said = rf"\b{part.preposition}\s+(?:the\s+)?{kind}{re.escape(text)}\b"
    return re.search(said, claim, re.IGNORECASE) is not None


def _typed(part: Part, text: str, claim: str) -> bool:
    """Whether the claim says the candidate is of the kind asked for: "the river Seine",
    "Lake Burley Griffin", "its population is 1,234"."""
    if not part.type_word:
        return part.kind != ENTITY
    if part.type_word in key_terms(text):
        return True
    words = [w.casefold() for w in STRAIGHT_WORD.findall(claim)]
    first = STRAIGHT_WORD.findall(text)
    at = next((i for i, w in enumerate(words) if first and w == first[0].casefold()), -1)
    if at < 0:
        return False
    near = words[max(0, at - TYPE_WINDOW) : at + len(first) + TYPE_WINDOW]
    return part.type_word in key_terms(" ".join(near))
