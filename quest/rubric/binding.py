"""Claims bound to their subject and relation: whose fact a value is, and which fact.

A check with a `subject` (quest.rubric.checkspec) counts a value only where the answer states it
as that relation *of that subject*, and fails when the answer also states another value for the
same subject and relation. Three rules, all about position, none about a particular wording:

- **Relation** (figures: a name's relation is its check's `context`): a figure belongs to the
  relation word right after it (a unit: "95,540,395
  people"), else the nearest before it, in its clause (falling back to its sentence): "an area
  of 24,992,369 square kilometres and a population of 7,686,850" gives the first figure to
  *area* and the second to *population*. Relation words come in groups
  (quest.rubric.relations); the check's `context` names the groups it accepts.
- **Subject**: the names an answer can be about are the tree's own (every value, subject and
  `others` name of its checks). A value's subject is an owner of its own clause with no
  punctuation between them ("Belize's neighbours", "the capital of Australia"), else the first
  or the nearest name of that clause (the value's own name aside); without one, the name its
  sentence opens on ("The population of Australia …", "Canberra, the capital, …"); without
  that, one of the last two names the sentences before named ("Its population is …", a table
  row "Area | 7,686,850"). An appositive ("Estonia, a neighbour of Latvia, whose capital is
  Tallinn and a country of 45,226 km²") is said of the name its sentence opens on; a pronoun
  after a sentence that moved the topic but named the old one may mean either. Facts stated
  of another entity earn nothing; a rival value (below)
  counts only where it can be of no other subject, and never where it is itself an owner.
- **One value**: every other value the answer commits to for the same subject and relation is a
  contradiction, and the leaf fails ("the population of Australia is 24,992,369 … its
  population is 7,686,850"). A sentence that denies without naming anything ("All of the above
  is wrong") retracts every claim before it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from quest.rubric.claims import clause_spans
from quest.rubric.commitment import denies
from quest.rubric.cues import APPOSITIVE_OPENERS, Token, tokens
from quest.rubric.model import Check
from quest.rubric.names import Span, entity_mentions
from quest.rubric.numbers import find_numbers
from quest.rubric.relations import RELATIONS
from quest.text.fold import fold

_CODE = re.compile(r"^[A-Z]{3}$")
_CODES = re.compile(r"\b(?!ISO\b)[A-Z]{3}\b")  # "the ISO code RON": ISO names the standard
_YEAR = re.compile(r"^\d{4}$")
_PUNCTUATION = re.compile(r"[,;:()\[\]]")
LEAD = 4  # words before a name for the claim to open on it ("The population of Australia")
TOPICS = 2  # names a sentence that names none may continue: the last two named


def relation_groups(context: Iterable[str]) -> frozenset[str]:
    """The relation groups a check's context words name (a word of no group is its own)."""
    groups = set()
    for phrase in context:
        for word in fold(phrase).split():
            groups.add(RELATIONS.get(word, f"word:{word}"))
    return frozenset(groups)


def relation_ok(text: str, start: int, end: int, groups: frozenset[str]) -> bool:
    """The value's relation word is one of `groups`. Its relation word is, in its clause (else
    its sentence) and with no punctuation between where there is one such ("the capital of
    Vietnam is Hanoi, population …"), the word right after it ("95,540,395 people", "329,560
    km²"), else the nearest ("Sydney is its largest city"); a word next to that one shares it
    ("most populous neighbour"). A value with no relation word near it, or a check that names
    no relation, is left to the check's context rule."""
    toks = tokens(text)
    inside = [i for i, t in enumerate(toks) if t.start < end and t.end > start]
    if not inside or not groups:
        return True
    first, last = inside[0], inside[-1]
    cues = {i: RELATIONS[t.word] for i, t in enumerate(toks) if t.word in RELATIONS}
    cues = {i: g for i, g in cues.items() if not first <= i <= last}
    clause = next(((a, b) for a, b in clause_spans(text) if a <= start < b + 1), None)
    if clause is not None:
        local = {i: g for i, g in cues.items() if clause[0] <= toks[i].start < clause[1]}
        cues = local or cues
    if not cues:
        return True
    joined = [i for i in cues if not _separated(toks, i, first, last)] or list(cues)
    if last + 1 in joined:
        chosen = last + 1
    else:
        chosen = min(joined, key=lambda i: (first - i if i < first else i - last, i > last))
    near = (chosen - 1, chosen, chosen + 1)
    return any(cues.get(i) in groups for i in near)


def _separated(toks: Sequence[Token], i: int, first: int, last: int) -> bool:
    """Punctuation stands between the value and the word at i ("Hanoi, population …")."""
    between = toks[i + 1 : first] if i < first else toks[last + 1 : i]
    return any(not t.is_word and t.word not in ("'", "-") for t in between)


@dataclass
class Binder:
    """Per answer: the tree's names found in each claim, and the subjects each claim carries."""

    claims: Sequence[str]
    names: Iterable[str]
    # Per claim, the heading or lead-in ("Official languages:") a list item, table row or short
    # line stands under: its words say the relation of the values listed below it.
    leads: Sequence[str] = ()
    mentions: list[list[Span]] = field(init=False)
    topics: list[tuple[str, ...]] = field(init=False)  # the last names named before a claim
    # Per claim, whom a pronoun opening it may mean: the topic, or both when the sentence that
    # moved the topic also named the old one ("Kumasi is the largest city of Ghana. It borders
    # Togo." is read of Ghana by a reader who knows a city borders nothing).
    focus: list[tuple[str, ...]] = field(init=False)
    start: int = field(init=False)  # claims before this one are retracted

    def __post_init__(self) -> None:
        keys = sorted({k for name in self.names if (k := fold(name))}, key=len, reverse=True)
        self.mentions = [entity_mentions(text, keys) for text in self.claims]
        self.topics, self.focus = [], []
        recent: tuple[str, ...] = ()
        focus: tuple[str, ...] = ()
        for text, found in zip(self.claims, self.mentions, strict=True):
            self.topics.append(recent)
            self.focus.append(focus or recent[:1])
            # What a claim is about stays the topic ("Then there is Estonia. It borders Russia
            # and Latvia. Its capital is Tallinn."): the name it opens on, or the topic its
            # pronoun continues, then the last name it mentions.
            pronoun = bool(recent) and _opens_with_pronoun(text)
            subject = recent[0] if pronoun else _leading(text, found, (-1, -1))
            last = found[-1][2] if found else ""
            if not pronoun:
                owned = [k for k in focus or recent[:1] if k != subject and _names(found, k)]
                focus = (subject, *owned) if subject and owned else ()
            recent = tuple(dict.fromkeys(k for k in (subject, last, *recent) if k))[:TOPICS]
        self.start = 0
        for index, text in enumerate(self.claims):
            if denies(text) and not self.mentions[index] and not find_numbers(text):
                self.start = index + 1

    def live(self, index: int) -> bool:
        return index >= self.start

    def subject_of(self, index: int, start: int, end: int) -> set[str]:
        """The folded names a value at text[start:end] of claim `index` may be about: the names
        of its own clause (the first and the nearest), else the claim's lead name, else the
        subjects the claims before it named last ("Its population is …")."""
        text = self.claims[index]
        spans = [m for m in self.mentions[index] if m[1] <= start or m[0] >= end]
        clause = next(((a, b) for a, b in clause_spans(text) if a <= start < b + 1), (0, 0))
        local = [m for m in spans if clause[0] <= m[0] < clause[1] + 1]
        piece = _appositive(text, clause, start)
        if piece is not None and piece[0] > clause[0]:
            local = [m for m in local if piece[0] <= m[0] < piece[1]]
        between = [text[min(m[1], end) : max(m[0], start)] for m in local]
        owners = [
            m
            for m, gap in zip(local, between, strict=True)
            if owner_position(text, m)
            and not _PUNCTUATION.search(gap)
            and not _CONJOINED.fullmatch(gap)
        ]
        if not owners and piece is not None and piece[0] > clause[0]:
            # An appositive is said of the name the sentence opens on: "Estonia, a neighbour of
            # Russia and Latvia", "Turkey, whose capital is Ankara, a country of 780,580 km²".
            lead = _leading(text, self.mentions[index], (start, end))
            if lead:
                return {lead}
        if owners:  # "Belize's neighbours", "the capital of Australia": whose it is
            return {m[2] for m in owners}
        if self.topics[index] and _opens_with_pronoun(text[clause[0] : clause[1] + 1]):
            # "It borders Russia and Latvia": Estonia does (never the value itself).
            return set(self.focus[index]) - {fold(text[start:end])}
        if _WHOSE.match(text, clause[0]):
            # "Ghana, a country of 29 million people, whose largest city is Kumasi": the name
            # "whose" follows, or the one the sentence opens on, when a series stands between.
            lead = _leading(text, self.mentions[index], (start, end))
            before = [m for m in self.mentions[index] if m[1] <= clause[0]]
            heads = {lead, before[-1][2] if before else ""} - {"", fold(text[start:end])}
            if heads:
                return heads
        if local:
            nearest = min(local, key=lambda m: m[0] - end if m[0] >= end else start - m[1])
            return {local[0][2], nearest[2]}
        lead = _leading(text, self.mentions[index], (start, end))
        return {lead} if lead else set(self.topics[index])


_WHOSE = re.compile(r"whose\b", re.IGNORECASE)
# Between two names of one list ("a neighbour of Russia and Latvia"): neither owns the other.
_CONJOINED = re.compile(r"\s*(?:,|,?\s+(?:and|or))\s*", re.IGNORECASE)
# Where an appositive opens after a comma: "Turkey, whose capital is Ankara, a country of …".
_APPOSITIVE = re.compile(
    rf"(?:,\s+|,?\s+and\s+)(?=(?:{'|'.join(sorted(APPOSITIVE_OPENERS))})\s)", re.IGNORECASE
)


def _appositive(text: str, clause: tuple[int, int], at: int) -> tuple[int, int] | None:
    """The appositive phrase of `clause` that holds offset `at`, when the clause is cut into
    such phrases ("a country of 82,319,724 people, a neighbour of Iran"); None otherwise."""
    cuts = [m.end() for m in _APPOSITIVE.finditer(text, clause[0], clause[1] + 1)]
    if not cuts:
        return None
    bounds = [clause[0], *cuts, clause[1] + 1]
    return next(((a, b) for a, b in itertools.pairwise(bounds) if a <= at < b), None)


_PRONOUN = re.compile(r"^\W*(?:it|its|they|their|this|these|he|she|his|her)\b", re.IGNORECASE)


def _names(found: Sequence[Span], key: str) -> bool:
    return any(m[2] == key for m in found)


def _opens_with_pronoun(text: str) -> bool:
    return bool(_PRONOUN.match(text))


def _leading(text: str, found: Sequence[Span], value: tuple[int, int]) -> str:
    """The name a claim opens on (its subject, roughly: within its first LEAD words), the
    value's own name aside; "" when it opens on something else."""
    toks = tokens(text)
    for start, end, key in found:
        if start < value[1] and end > value[0]:
            continue
        words = sum(1 for t in toks if t.end <= start and t.is_word)
        return key if words <= LEAD else ""
    return ""


def owner_position(text: str, span: Span) -> bool:
    """The name at `span` is written as the owner of a relation: "Belize's neighbours", "the
    capital of Australia", "the neighbours of Belize", "the country bordering Greece"."""
    after = text[span[1] : span[1] + 2]
    before = text[max(0, span[0] - 14) : span[0]].casefold()
    previous = before.split()[-1:] or [""]
    return (
        after in ("'s", "\u2019s")
        or before.endswith((" of ", " of the "))
        # "the most populous country bordering Greece": a participle of a relation
        or (previous[0].endswith("ing") and previous[0] in RELATIONS)
    )


def rival_strings(text: str, value: str, others: Sequence[str]) -> list[Span]:
    """Other values of the same kind as `value` in a claim: the folded names `others`, or
    other three-letter codes for a code ("AUD" against "USD")."""
    if _CODE.match(value):
        return [(m.start(), m.end(), m[0]) for m in _CODES.finditer(text) if m[0] != value]
    key = fold(value)
    return [m for m in entity_mentions(text, [n for n in others if n != key]) if m[2] != key]


def tree_names(checks: Iterable[Check]) -> frozenset[str]:
    """The names a tree's answers can be about, folded: every check's subject and `others`,
    the candidates of its lists, and the value of a check that binds none (an identity). A
    bound fact's value ("Canberra" as Australia's capital) is an object, not a subject, unless
    another check makes it one."""
    names: set[str] = set()
    for check in checks:
        raw = check.params.get("subject")
        if isinstance(raw, str):
            names.add(fold(raw))
        value = check.params.get("value")
        if isinstance(value, str) and check.kind == "mentions" and raw is None:
            names.add(fold(value))
        for key in ("values", "subject_aliases", "others"):
            listed = check.params.get(key)
            if isinstance(listed, tuple):
                names.update(fold(str(v)) for v in listed)
    names.discard("")
    return frozenset(names)


def year_like(text: str) -> bool:
    return bool(_YEAR.match(text)) and 1000 <= int(text) <= 2100
