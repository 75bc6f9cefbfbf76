"""The fields a page states of its subject, and the field a question asks for.

A record page states its subject's attributes a clause each, and prose states some the same way:
"Its IATA code is RKV and its ICAO code is BIRK." (research.reading writes an opening "Its"
before a lower-case word out as "The elevation of Reykjavik Airport is ..."), "Gold (symbol Au)
is the chemical element with atomic number 79.", "It is in group 11 of the periodic table.",
"... with a summit elevation of 6,967.15 metres", "rising 5,642 m (18,510 ft) above sea level".
`stated_fields` reads those as (owner, attribute, value) fields.

A question asks for a field when it names the attribute's head noun ("code", "number") and
whatever word it puts right before that noun is one of the attribute's own ("IATA code" is not
asked by "its ICAO code", nor "ISO 3166-1 codes" by "its IATA code"); a measure may be asked in
other words ("How high" asks for an elevation, research.shape.ATTRIBUTES). The field answers
when its owner is what the question names: every word of the owner's name is in the question
("Reykjavik Airport" for "Which airport serves Reykjavik"), or, for a part that speaks of the
first part's answer by pronoun ("what is its IATA code"), the owner is named by the question
and is the kind of thing the first part asks for (an airport). The most specific field wins: the
one that matches most of the attribute's words, then the owner with the longest name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.research.describe import what_each_is
from quest.agent.research.parts import ENTITY, NUMBER, YEAR, Part, split_parts
from quest.agent.research.patterns import LEADING_ARTICLE, STRAIGHT_WORD
from quest.agent.research.question import Question, key_terms
from quest.agent.research.shape import ATTRIBUTES, Shape
from quest.agent.research.tallies import Found, Said, answer_line, fold
from quest.search.tokens import normalise

MAX_ATTRIBUTE_WORDS = 5
MAX_VALUE_WORDS = 12  # longer is prose about the attribute, not its value
SYNONYM = 0.5  # an attribute asked in other words ("How high") counts for less
UNMATCHED = 0.25  # each word of the attribute the question does not use
_COPULA = r"(?:is|are)"
_ATTRIBUTE = r"[^,;:()]+?"
# "Its IATA code is RKV", "its ICAO code is BIRK" (after "and"), "The capital of Iceland is
# Reykjavik": one clause each.
_ITS = re.compile(rf"^[Ii]ts\s+(?P<attribute>{_ATTRIBUTE})\s+{_COPULA}\s+(?P<value>.+)$")
_OF = re.compile(
    rf"^The\s+(?P<attribute>{_ATTRIBUTE})\s+of\s+(?:the\s+)?(?P<owner>[A-Z][^,;:]*?)\s+"
    rf"{_COPULA}\s+(?P<value>.+)$"
)
_CLAUSES = re.compile(r"\s+and\s+(?=its\s)|;\s+")
# A sentence the splitter left joined to the next after a unit that reads as an initial:
# "Its melting point is 1,337.33 K. Its boiling point is 3,109.15 K. Gold has been known ..."
_SENTENCE_GAP = re.compile(r"(?<=\d\s[A-Z]\.)\s+(?=[A-Z])|(?<=\.)\s+(?=(?:Its|It|The)\s)")
# Where a value ends: a relative clause or an aside after it, or another attribute ("its
# chemical symbol is Au and atomic number 79").
_VALUE_END = re.compile(
    r",\s+(?:which|who|where|while|whose|although|but|making|with)\b"
    r"|\s+and\s+(?!(?:the|a|an)\b)(?=[a-z])"
)
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_CONVERSION = r"(?:\s*\([^()]*\d[^()]*\))?"  # "20,310 feet (6,190 m)"
_AMOUNT = rf"{_NUMBER}(?:\s+(?:million|billion|thousand))?(?:\s*[^\W\d][\w²/]*)?{_CONVERSION}"
_SYMBOL = rf"{_NUMBER}|[A-Z][A-Z0-9]{{0,3}}|[A-Z][a-z]"
_AFTER = r"(?=\s*(?:[.,;()]|$)|\s+(?:and|above|below|at|in)\b)"
# "with atomic number 79", "with a summit elevation of 6,967.15 metres", "and a topographic
# isolation of 4,621.1 miles": an amount after "of", a number or a symbol without it.
_WITH = re.compile(
    r"\b(?:[Ww]ith|and)\s+(?:(?:a|an|the)\s+)?"
    r"(?P<attribute>(?:[\w-]+\s+){0,3}?[a-z][\w-]*)\s+"
    rf"(?:of\s+(?P<amount>{_AMOUNT})|(?P<bare>{_SYMBOL})){_AFTER}"
)
_BRACKETED = re.compile(rf"\((?P<attribute>[a-z]+(?:\s+[a-z]+)?)\s+(?P<value>{_SYMBOL})\)")
_PLACED = re.compile(r"\bis in (?P<attribute>[a-z]+) (?P<value>\d+)\b(?!\s*(?:%|per\b))")
# "rising 5,642 m (18,510 ft) above sea level": the height of what the sentence is about.
_SEA_LEVEL = re.compile(
    rf"(?P<value>{_NUMBER}\s*(?:m|ft|metres|meters|feet){_CONVERSION})"
    r"\s+above\s+(?:mean\s+)?sea\s+level"
)
SEA_LEVEL = "elevation"
_BRACKETS = re.compile(r"\s*\([^()]*\)")
_YEAR = re.compile(r"\b\d{3,4}\b")


@dataclass(frozen=True)
class Field:
    owner: str  # whose attribute it is, as the page names it
    attribute: str  # "IATA code", "atomic number", "elevation"
    value: str  # "RKV", "79", "48 feet (15 metres) above sea level"
    line: str  # the sentence that states it, about its owner by name
    url: str


def stated_fields(item: Said) -> list[Field]:
    """The fields one sentence read states, the first of each attribute of each owner."""
    found = [
        field
        for text in _SENTENCE_GAP.split(" ".join(item.text.split()))
        for field in _sentence_fields(text, item)
    ]
    kept: dict[tuple[str, str], Field] = {}
    for field in found:
        kept.setdefault((fold(field.owner), fold(field.attribute)), field)
    return list(kept.values())


def _sentence_fields(text: str, item: Said) -> list[Field]:
    line = _resolved(text, item.subject)
    found: list[Field] = []
    for clause in _CLAUSES.split(text):
        # A later clause's "its" is the page's subject where the clause before it stated a
        # field of it ("Its IATA code is RKV and its ICAO code is BIRK").
        fields = _clause_field(clause, item, line)
        if not fields:
            break
        found += fields
    if _about(text, item.subject):
        found += _prose_fields(text, item)
    return found


def _clause_field(clause: str, item: Said, line: str) -> list[Field]:
    own = _ITS.match(clause)
    named = _OF.match(clause) if own is None else None
    match = own or named
    if match is None or not item.subject:
        return []
    attribute, value = match.group("attribute"), _value(match.group("value"))
    if not value or len(attribute.split()) > MAX_ATTRIBUTE_WORDS:
        return []
    owner = named.group("owner") if named is not None else item.subject
    return [Field(owner, attribute, value, line, item.url)]


def _resolved(sentence: str, subject: str) -> str:
    """ "Its IATA code is RKV ..." -> "The IATA code of Reykjavik Airport (RKV) is RKV ...",
    as research.reading writes out an "Its" before a lower-case word."""
    own = _ITS.match(sentence)
    if own is None or not subject or not sentence.startswith("Its "):
        return sentence
    attribute = own.group("attribute")
    return f"The {attribute} of {subject} {sentence[len(f'Its {attribute} ') :]}"


def _prose_fields(text: str, item: Said) -> list[Field]:
    found = []
    for match in _WITH.finditer(text):
        value = match.group("amount") or match.group("bare")
        found.append(Field(item.subject, match.group("attribute"), value, text, item.url))
    for pattern in (_BRACKETED, _PLACED):
        for match in pattern.finditer(text):
            attribute, value = match.group("attribute"), match.group("value")
            found.append(Field(item.subject, attribute, value, text, item.url))
    for match in _SEA_LEVEL.finditer(text):
        found.append(Field(item.subject, SEA_LEVEL, match.group("value"), text, item.url))
    return found


def _about(text: str, subject: str) -> bool:
    """Whether the sentence is about the page's subject: it opens on its name ("Gold (symbol
    Au) is ...", "Gold: chemical element ..."), or names it as what an opening phrase is of
    ("With a summit elevation of 6,967.15 metres, it is ...", where "it" is the page's subject)."""
    name = _bare(subject)
    if not name:
        return False
    opening = re.escape(name)
    verbs = r"(?:is|are|was|were|has|have|lies|stands|rises)\b"
    return re.match(rf"{opening}\b", text) is not None or (
        re.search(rf",\s+(?:{opening}|it),?\s+{verbs}", text) is not None
    )


def _value(raw: str) -> str:
    value = _VALUE_END.split(raw.strip().rstrip("."), maxsplit=1)[0].strip()
    value = LEADING_ARTICLE.sub("", value)
    return value if len(value.split()) <= MAX_VALUE_WORDS else ""


def _bare(name: str) -> str:
    """A name without its bracketed qualifier: "Reykjavik Airport (RKV)" -> "Reykjavik
    Airport"."""
    return " ".join(_BRACKETS.sub("", name).split())


# -- questions --------------------------------------------------------------------------------
def field_answers(question: str, said: Sequence[Said]) -> dict[int, Found]:
    """The answer a stated field gives each part of the question that asks for one, by the
    part's index; the first part, when a later one asks for a field of what it asks for
    ("Which airport serves Reykjavik and what is its IATA code?"), is answered by the field's
    owner, as its page says what it is."""
    if Shape(question).comparison is not None:
        return {}
    parts = split_parts(question) or (Part(question, ENTITY, "", False),)
    fields = [field for item in said for field in stated_fields(item)]
    if not fields:
        return {}
    kinds = what_each_is(said)
    found: dict[int, Found] = {}
    owner: Field | None = None  # a field of what the first part asks for
    for index, part in enumerate(parts):
        typed = parts[0].type_word if part.refers and index > 0 else ""
        if part.refers and not typed:
            continue  # "when was he born": who he is, no field says
        best = _best(part, question if typed else part.text, typed, fields, kinds)
        if best is not None:
            found[index] = _found(best, fields)
            owner = owner or (best if typed else None)
    if owner is not None and 0 not in found:
        found[0] = _owner_found(owner, said)
    return found


def _best(
    part: Part, scope: str, typed: str, fields: Sequence[Field], kinds: dict[str, set[str]]
) -> Field | None:
    words = _words(part.text)
    scope_terms = set(key_terms(scope))
    entities = [set(key_terms(name)) for name in Question(scope).entities]
    # "Which scientist ...", "What currency ...": the answer is a thing of that kind, so only an
    # attribute named by it is asked.
    kind_words = Shape(part.text).type_words if part.kind == ENTITY else frozenset()
    ranked = []
    for order, field in enumerate(fields):
        if kind_words and not set(key_terms(field.attribute)[-1:]) <= kind_words:
            continue
        asked = _asked(words, field.attribute, part.kind)
        if asked <= 0 or not _fits(field.value, part.kind):
            continue
        owner, attribute = set(key_terms(_bare(field.owner))), set(key_terms(field.attribute))
        if not owner or not owner <= scope_terms or owner <= attribute:
            continue
        if any(owner < named - attribute for named in entities):
            continue  # Reykjavík's population is not Reykjavik Airport's
        if typed and not _is_a(field.owner, typed, kinds):
            continue
        ranked.append((asked, len(owner), -order, field))
    return max(ranked, key=lambda entry: entry[:3])[3] if ranked else None


def _words(text: str) -> list[str]:
    """The text's words as terms, in order; "" for a word that carries no content."""
    return [terms[0] if (terms := key_terms(word)) else "" for word in STRAIGHT_WORD.findall(text)]


def _asked(words: list[str], attribute: str, kind: str) -> float:
    """How surely the question's words ask for the attribute; 0 when they do not."""
    attribute_terms = key_terms(attribute)
    if not attribute_terms:
        return 0.0
    head, weight = attribute_terms[-1], 1.0
    at = next((i for i, word in enumerate(words) if word == head), -1)
    if at < 0 and kind == NUMBER:
        others = _synonyms(head)
        at = next((i for i, word in enumerate(words) if word in others), -1)
        weight = SYNONYM
    if at < 0:
        return 0.0
    before = words[at - 1] if at > 0 else ""
    if before and before not in attribute_terms:
        return 0.0  # "its IATA code" does not ask for the ICAO code
    matched = set(words) & set(attribute_terms)
    if weight == SYNONYM:
        matched.add(head)
    if 2 * len(matched) < len(attribute_terms):
        return 0.0
    unmatched = len(attribute_terms) - len(matched)
    return weight * len(matched) - UNMATCHED * unmatched


def _synonyms(head: str) -> set[str]:
    """The words a question asks for a measure with, when the attribute's head is one of them
    ("elevation": "high", "tall", "height", ...)."""
    found: set[str] = set()
    for name, (asks, _) in ATTRIBUTES.items():
        stems = {term for word in (name, *asks) for term in key_terms(normalise(word))}
        if head in stems:
            found |= stems
    return found


def _fits(value: str, kind: str) -> bool:
    """A number or a year is asked for: the value states one."""
    if kind == NUMBER:
        return any(c.isdigit() for c in value)
    if kind == YEAR:
        return _YEAR.search(value) is not None
    return True


def _is_a(owner: str, kind: str, kinds: dict[str, set[str]]) -> bool:
    """Whether the owner is the kind of thing asked for, by its name ("Reykjavik Airport")
    or by what its page says it is."""
    name = _bare(owner)
    return kind in key_terms(name) or kind in kinds.get(fold(name), set())


def _found(field: Field, fields: Sequence[Field]) -> Found:
    """The field's value first, then the sentence that states it, citing every page that
    states the same value of the same owner's attribute."""
    same = [
        other.url
        for other in fields
        if fold(other.owner) == fold(field.owner)
        and fold(other.attribute) == fold(field.attribute)
        and fold(other.value) == fold(field.value)
    ]
    urls = tuple(dict.fromkeys([field.url, *same]))
    return Found(field.value, answer_line(field.value, field.line), urls, float(len(urls)))


def _owner_found(field: Field, said: Sequence[Said]) -> Found:
    """The field's owner as the answer, with its page's first sentence that names it."""
    name = _bare(field.owner)
    lead = next(
        (item.text for item in said if item.url == field.url and item.text.startswith(name)),
        field.line,
    )
    return Found(name, lead, (field.url,), 1.0)
