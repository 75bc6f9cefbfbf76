"""The direct answer to a question, taken from the sentences of the pages already read.

Every sentence that names what the question names (or stands on the page about it) and states
some of what it asks is evidence; each candidate answer in it (a named thing the question does
not name, the page's own subject, a number or a year, by the question's shape) scores by how
much of the question the sentence states, how close the candidate stands to those words, and
whether the words around it say it is the kind of thing asked for ("the river Seine" for
"which river"). Scores add up across pages, so an answer two pages state beats one that one
page mentions in passing. A comparison finds each option's figure for the attribute compared
and names the winner (research.compare).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quest.agent.research.compare import compare
from quest.agent.research.describe import answer_kinds, described, what_each_is
from quest.agent.research.patterns import WORD, YEAR_FIGURE
from quest.agent.research.question import (
    Question,
    key_terms,
    phrases,
    ranked_lower,
    required,
    scoped_elsewhere,
)
from quest.agent.research.roles import alias_of_asked, asks_person, doer, in_chain
from quest.agent.research.shape import ATTRIBUTES, NUMBER, PERSON, PLACE, YEAR, Shape
from quest.agent.research.tallies import (
    AMOUNT,
    Found,
    Said,
    Tally,
    count,
    fold,
    merge_aliases,
    merge_codes,
    merge_short_names,
    ranked_found,
)

TYPE_BONUS = 1.0
PROXIMITY = 6.0  # words: a candidate this far from the question's words counts half
TYPE_WINDOW = 4
OWN_PAGE = 2.0  # a sentence on the page about what the question names
LEAD = 1.5  # a page's first sentence says what matters most about its subject
BRACKETED = 0.5  # "7,088 km (4,404 mi)": the bracketed amount converts the other
NAMED, DEFINED = 2, 3  # typed by the words beside it ("the river Seine"), by its own page
UNSTATED = 0.25  # a sentence about what the question names, stating none of what it asks
_PERSONAL = re.compile(r"^(He|She|They)\s+(?=[a-z])|^(His|Her|Their)\s+(?=[a-z])")
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_AFTER = re.compile(rf"\s+(?:{_MONTHS})\b")
_MONTH_BEFORE = re.compile(rf"\b(?:{_MONTHS})\s+$")
DEMONYM_ENDINGS = ("ian", "ean", "ese", "ish")
OWN_PRONOUNS = frozenset({"it", "its"})  # in a page's sentence: the page's subject
DOER = 2.0  # a "who" question's candidate that acts in the sentence
# A year of someone's life ("born in 1451"): an answer only when the question asks for one.
_LIFE_YEAR = re.compile(r"\b(?:born|died)(?:\s+(?:in|on|c\.))?\s*$")
_MARGIN = re.compile(r"(?:±|\+/-|\d\s*[/\u2044])\s*$")  # a margin, or a fraction's denominator
_FRACTION = re.compile(r"\s*[/\u2044]\s*\d")  # a numerator
_SOURCE = re.compile(r"\b(?:recorded|listed|according|reported|published|cited)\s+(?:by|to)\s+$")
_DEGREES = re.compile(r"\s?°")
_DEGREES_BEFORE = re.compile(r"°\s*$")  # the minutes of "66° 34'"
ANGLE_WORDS = frozenset(
    {"degree", "degrees", "temperature", "hot", "cold", "latitude", "longitude"}
)
_PERCENT = re.compile(r"\s?(?:%|per ?cent)")
HEADS = frozenset({"people", "inhabitants"})
_CHUNK = re.compile(r"[^,;:()\[\]\"“”]+")
_ORDINARY = re.compile(r"(?:ed|ing|ly)$|^(?:In|On|At|By|For|With|From|After|Before|During)$")
_LEADING_THE = re.compile(r"^(?:The|A|An|Its|His|Her|Their|This|These|Those)\s+")
_POSSESSIVE = re.compile(r"['\u2019]s$")
UNIT_NAMES = {
    "m": "metres",
    "meters": "metres",
    "metre": "metres",
    "km": "kilometres",
    "kilometers": "kilometres",
    "mi": "miles",
    "ft": "feet",
    "foot": "feet",
    "km2": "square kilometres",
    "km²": "square kilometres",
}
AREA_UNITS = frozenset({"km2", "km²", "square kilometres"})
LENGTH_UNITS = (frozenset(UNIT_NAMES) | frozenset(UNIT_NAMES.values())) - AREA_UNITS
LENGTH_WORDS = LENGTH_UNITS | {"kilometre", "mile"}  # a question's "in kilometres"
CALENDAR = frozenset(
    {"january", "february", "march", "april", "may", "june", "july", "august", "september"}
    | {"october", "november", "december", "monday", "sunday", "bc", "bce", "ad", "ce"}
)
NUMBER_WORDS = {
    word: str(index + 1)
    for index, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    )
}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def person_resolved(sentence: str, subject: str) -> str:
    """ "He is best known for Don Quixote." on the page about Cervantes -> "Miguel de
    Cervantes is best known for Don Quixote."."""
    match = _PERSONAL.match(sentence)
    if match is None or not subject:
        return sentence
    owner = f"{subject}'s " if match.group(2) else f"{subject} "
    return owner + sentence[match.end() :]


def extract(
    question: str,
    said: Sequence[Said],
    exclude: Sequence[str] = (),
    *,
    retrieved: Sequence[str] = (),
) -> Found | None:
    """The best-supported answer to `question` in `said`, or None; `retrieved` lists the pages
    the question's own searches ranked first (research.describe)."""
    shape = Shape(question)
    if shape.comparison is not None:
        return compare(shape, said)
    found = ranked(question, said, exclude, retrieved=retrieved)
    return found[0] if found else None


def ranked(
    question: str,
    said: Sequence[Said],
    exclude: Sequence[str] = (),
    *,
    typed_only: bool = True,
    retrieved: Sequence[str] = (),
) -> list[Found]:
    """Every candidate answer to a question that is not a comparison, best first; `exclude`
    names things that cannot be the answer (what an earlier hop asked about). For a question
    that asks for a kind of thing ("which river"), `typed_only` keeps the candidates said to be
    one, by their own page if any is, else by the words around them."""
    shape, asked = Shape(question), Question(question)
    kinds = answer_kinds(question)  # "which river", or the noun asked for: "the language of"
    tallies: dict[str, Tally] = {}
    defined = _definitions(said)
    what_is = what_each_is(said)  # "Persian is a pluricentric language" -> {language, ...}
    entities = {fold(entity) for entity in asked.entities}
    excluded = {fold(name) for name in exclude}
    previous = ""
    for item in said:
        weight, hits = _relevance(asked, shape, item)
        lead, previous = item.url != previous, item.url
        if weight <= 0:
            continue
        own = fold(item.subject) in entities
        if own:
            weight *= OWN_PAGE * (LEAD if lead else 1.0)  # the page about what is asked
        found = _candidates(asked, shape, item)
        candidates = [(text, at) for text, at in found if fold(text) not in excluded]
        acting = doer(item.text, candidates) if asks_person(shape) else None
        for text, at in candidates:
            factor, strength = _typed(shape, item.text, text, at, language="language" in kinds)
            if acting is not None:
                factor *= DOER if text == acting else 1.0 / DOER
            key = fold(text)
            if shape.type_words & defined.get(key, frozenset()) or kinds & what_is.get(key, set()):
                factor, strength = factor * (1.0 + TYPE_BONUS), DEFINED  # "The heart is an organ"
            if shape.kind in {NUMBER, YEAR} and not own:
                factor *= _closeness(item.text, at, asked.entity_terms)  # whose figure it is
            if shape.kind == NUMBER and not own and owned_elsewhere(item, at, asked):
                continue  # "At 7,088 km long, it is ... such as the Amazon": the Nile's length
            if _bracketed(item.text, at):
                factor *= BRACKETED
            size = len(WORD.findall(text))
            score = weight * _closeness(item.text, at, hits, size) * factor
            count(tallies, text, item, score, strength)
    _count_described(tallies, question, shape, asked, said, exclude, retrieved)
    if shape.kind != PLACE:
        merge_short_names(tallies)
    if not {"code", "codes"} & set(shape.words):
        merge_codes(tallies, said)  # unless the code is what is asked for
    merge_aliases(tallies, said)
    strongest = max((t.typed for t in tallies.values()), default=0)
    if typed_only and shape.type_words and strongest >= NAMED:
        floor = DEFINED if strongest >= DEFINED else NAMED
        tallies = {k: t for k, t in tallies.items() if t.typed >= floor}
    return ranked_found(tallies)


def _count_described(
    tallies: dict[str, Tally],
    question: str,
    shape: Shape,
    asked: Question,
    said: Sequence[Said],
    exclude: Sequence[str],
    retrieved: Sequence[str],
) -> None:
    """Counts the subjects of the pages the question describes (research.describe)."""
    for page in described(question, said, exclude, retrieved=retrieved):
        stated = Said(page.sentence, page.url, page.subject)
        if asks_person(shape):
            acting = doer(page.sentence, _candidates(asked, shape, stated))
            if acting is not None and fold(acting) != fold(page.subject):
                continue  # "The Principia is a book by Isaac Newton": the book did nothing
        typed = DEFINED if page.typed else 0
        count(tallies, page.subject, stated, page.score, typed, line_score=page.line_score)


def _definitions(said: Sequence[Said]) -> dict[str, frozenset[str]]:
    """What each page's subject is, by the words of the page's first sentence that names it."""
    defined: dict[str, frozenset[str]] = {}
    for item in said:
        key = fold(item.subject)
        if key and key not in defined and key in fold(item.text):
            defined[key] = frozenset(key_terms(item.text))
    return defined


def _relevance(asked: Question, shape: Shape, item: Said) -> tuple[float, frozenset[str]]:
    """How much of the question the sentence states (0 when it is not about what the
    question names), and the question's words it uses."""
    words = set(key_terms(f"{item.text} {item.subject}"))
    entities = required(asked)
    named = [e for e in entities if set(key_terms(e)) <= words]
    if entities and not named:
        return 0.0, frozenset()
    wanted = set(asked.terms) - asked.entity_terms - shape.type_words
    wanted |= _measure_cues(shape)
    hits = frozenset(wanted & set(key_terms(item.text))) - ranked_lower(item.text)
    hits -= scoped_elsewhere(item.text, asked.entities)  # "the highest in Kenya", for Africa
    if not named and not hits:
        return 0.0, hits
    share = len(hits) / max(1, len(wanted))
    stated = len(named) / len(entities) if entities else 0.0
    return share + UNSTATED * stated, hits


def _measure_cues(shape: Shape) -> set[str]:
    words = set(shape.words)
    cues: set[str] = set()
    for _, (asks, states) in ATTRIBUTES.items():
        if asks & words:
            cues |= set(key_terms(" ".join(states)))
    return cues if shape.kind in {NUMBER, YEAR} else set()


def _candidates(asked: Question, shape: Shape, item: Said) -> list[tuple[str, int]]:
    """(candidate, word position) pairs of the sentence for the question's kind of answer."""
    if shape.kind == YEAR:
        years = ((m.group(m.lastindex or 1), m.start()) for m in YEAR_FIGURE.finditer(item.text))
        lives = bool({"born", "died", "die", "birth", "death"} & set(shape.words))
        return [
            (y, _position(item.text, at))
            for y, at in years
            if y not in asked.numbers and (lives or not _LIFE_YEAR.search(item.text[:at]))
        ]
    if shape.kind == NUMBER:
        return _amounts(asked, shape, item.text)
    found = []
    known = set(asked.terms)
    described_at = len(item.subject) + 2 if item.text.startswith(f"{item.subject}: ") else -1
    for phrase, offset in _names(item.text):
        if offset == described_at:
            continue  # "Leonardo da Vinci: Italian polymath": what he was, not another name
        name = _POSSESSIVE.sub("", _LEADING_THE.sub("", phrase))
        terms = key_terms(name)
        if not terms or set(terms) <= known or name.casefold() in CALENDAR:
            continue
        if any(f" {fold(e)} " in f" {fold(name)} " for e in asked.entities):
            continue  # "Islamic Republic of Iran" is Iran, not what is asked about it
        if alias_of_asked(item, name, asked):
            continue  # "Argentina, officially the Argentine Republic": Argentina again
        if _SOURCE.search(item.text[:offset]):
            continue  # "as recorded by GeoNames": who says it, not what is said
        if name.replace(",", "").replace(".", "").isdigit():
            continue
        found.append((name, _position(item.text, offset)))
    subject, folded = item.subject, item.text.casefold()
    if subject and subject.casefold() in folded and not set(key_terms(subject)) <= known:
        found.append((subject, _position(item.text, folded.find(subject.casefold()))))
    return found


def _names(text: str) -> list[tuple[str, int]]:
    """Capitalised names with their offsets, never across punctuation ("Agra, India" is two)
    and never a sentence's first word alone when it reads as an ordinary word ("Located")."""
    found = []
    for chunk in _CHUNK.finditer(text):
        for phrase in phrases(chunk.group(0), skip_first=False):
            offset = chunk.start() + chunk.group(0).find(phrase)
            single = " " not in phrase
            if single and offset == 0 and _ORDINARY.search(phrase):
                continue
            found.append((phrase, offset))
    return found


def _amounts(asked: Question, shape: Shape, text: str) -> list[tuple[str, int]]:
    """The amounts of the sentence an answer could be: no day of a date, no percentage, no
    year, no angle unless one is asked for, for a head count no amount with a unit of length
    or area, and for a length asked in a unit only an amount with a unit of length."""
    words = set(shape.words)
    counts = shape.measure == "population" or bool({"people", "inhabitants"} & words)
    angles = bool(ANGLE_WORDS & words)
    # "in kilometres": the answer is a length ("12,742 km"), not bare ("153") nor "20 °C"
    lengths = bool(LENGTH_WORDS & words) and not {"square", "area"} & words
    found = []
    for match in AMOUNT.finditer(text):
        value, scale, unit = match.group(1), match.group(2), match.group(3)
        start, end, unit_name = match.start(), match.end(), (unit or "").strip()
        bare = not scale and not unit and "," not in value
        if value.replace(",", "") in asked.numbers or (bare and YEAR_FIGURE.fullmatch(value)):
            continue
        if _PERCENT.match(text, end) or (counts and unit not in {None, *HEADS}):
            continue
        if lengths and unit_name not in LENGTH_UNITS:
            continue
        angle = unit_name.startswith("°") or _DEGREES.match(text, end)
        if (angle or _DEGREES_BEFORE.search(text[:start])) and not angles:
            continue  # "at about 66° 34' N": a latitude, neither of its numbers a length
        if _MONTH_AFTER.match(text, match.end()) or _MONTH_BEFORE.search(text[: match.start()]):
            continue  # "26 June 1945": a day of a date
        if _MARGIN.search(text[: match.start()]) or _FRACTION.match(text, match.end()):
            continue  # "10,935 ± 6 meters": a margin of error; "1/299792458": a fraction
        found.append((match.group(0).strip(), _position(text, match.start())))
    if found or "many" not in shape.words:
        return found
    return [(m.group(1).lower(), _position(text, m.start())) for m in _NUMBER_WORD.finditer(text)]


def _position(text: str, offset: int) -> int:
    return len(WORD.findall(text[: max(0, offset)]))


def owned_elsewhere(item: Said, at: int, asked: Question) -> bool:
    """Whether an amount on a page about something else belongs to that page's subject: it
    does when, of the mentions of that subject ("it", "its", its name) and of what the question
    names, the nearest before the amount (else the nearest after it) is the subject's. "Earth's
    inner core has a radius of 1,230 km" is no radius of the Earth; "The mean diameter, 6,779
    km, of Mars is about half the Earth's" is no diameter of the Earth. A year is left alone:
    an event dates everything in it."""
    own_terms = set(key_terms(item.subject)) - set(asked.terms)
    if not own_terms:
        return False  # "Voyages of Christopher Columbus": about what is asked
    mentions = []
    for i, word in enumerate(w.casefold() for w in WORD.findall(item.text)):
        stems = set(key_terms(word))
        if stems & asked.entity_terms:
            mentions.append((i, False))
        elif word in OWN_PRONOUNS or stems & own_terms:
            mentions.append((i, True))
    before = [(at - i, own) for i, own in mentions if i < at]
    after = [(i - at, own) for i, own in mentions if i > at]
    nearest = min(before or after, default=None)
    return nearest is not None and nearest[1]


def _closeness(text: str, at: int, hits: frozenset[str], size: int = 1) -> float:
    """1 next to one of the question's words, half at PROXIMITY words, less further. The
    candidate's own words do not count: "Maloti Mountains" is not near "mountain" by itself."""
    words = WORD.findall(text)
    positions = [
        i
        for i, w in enumerate(words)
        if set(key_terms(w)) & hits and not (size > 1 and at <= i < at + size)
    ]
    if not positions:
        return 0.5
    distance = min(abs(at - p) for p in positions)
    return 1.0 / (1.0 + distance / PROXIMITY)


def _typed(
    shape: Shape, text: str, candidate: str, at: int, *, language: bool = False
) -> tuple[float, int]:
    """A score factor, and how surely the words around the candidate say it is what is asked
    for: 2 by the type word ("the river Seine"), 1 by its form ("in Agra", "by Leonardo da
    Vinci", an amount with a unit), 0 not at all."""
    words = [w.casefold() for w in WORD.findall(text)]
    size = len(WORD.findall(candidate))
    before = words[max(0, at - TYPE_WINDOW) : at]
    after = words[at + size : at + size + TYPE_WINDOW]
    head = words[at + size - 1 : at + size]  # "Seine River", not "Food preservation"
    named = shape.type_words & set(key_terms(" ".join([*before, *head, *after])))
    ends = {words[i] for i in {at, at + size - 1} if size > 1 and i < len(words)}
    if shape.type_words & set(key_terms(" ".join(ends))):
        return 1.0 + TYPE_BONUS, DEFINED  # its own name says what it is: "River Thames"
    before = before[-2:]
    strength = 2 if named else 0
    if shape.kind == PLACE and not strength and any(w in {"in", "on", "at"} for w in before):
        strength = 1
    if shape.kind == PLACE and not named:
        place = in_chain(text, candidate, shape.type_words)
        if place is not None:
            return (1.0 + TYPE_BONUS, NAMED) if place else (0.5, 0)
    if shape.kind == PERSON:
        strength = 1 if "by" in before or len(candidate.split()) >= 2 else 0
    if shape.kind == NUMBER:
        strength = 1 if re.search(r"[a-zA-Z²]", candidate) else 0
        unit = _unit(candidate)
        if unit and shape.units:
            return ((1.0 + TYPE_BONUS) * 2.0, 2) if unit in shape.units else (0.5, 0)
    # "Kenyan" says where, not what; asked for a language, the same form names one ("Persian")
    demonym = not language and " " not in candidate and candidate.endswith(DEMONYM_ENDINGS)
    factor = 1.0 + TYPE_BONUS * strength / 2
    return factor * (0.3 if demonym else 1.0), strength


def _bracketed(text: str, at: int) -> bool:
    """Whether the word at `at` stands inside brackets: "7,088 km (4,404 mi)" converts."""
    starts = [match.start() for match in WORD.finditer(text)]
    before = text[: starts[at]] if at < len(starts) else text
    return before.count("(") > before.count(")")


def _unit(amount: str) -> str:
    """The unit of an amount, in the words a question would use ("km" -> "kilometres")."""
    last = amount.rsplit(maxsplit=1)[-1].casefold() if amount.split() else ""
    found = re.sub(r"^[\d.,]+", "", last)
    return UNIT_NAMES.get(found, found)
