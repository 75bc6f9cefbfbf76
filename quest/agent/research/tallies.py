"""Candidate answers counted across the sentences read (research.extract fills them): each
candidate's support per page and the sentence that shows it best, merged where two candidates
are one ("Mozart" and "Wolfgang Amadeus Mozart", "JPY" and "the Yen (JPY)", "Chinggis Khan" and
"Genghis Khan"), then ranked and written as report lines that give the answer by itself first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.research.reading import full_name_of

MAX_CLAIM_NUMBERS = 3
CODE = re.compile(r"[A-Z]{2,3}")
_CAPITALISED = r"[A-Z][\w'\u2019-]*"
_NAME_WORDS = rf"{_CAPITALISED}(?:\s+{_CAPITALISED}){{0,3}}"
# Another name a sentence gives its subject: "..., also known as Chinggis Khan, ...".
_ALIAS = re.compile(
    r"\b(?:also|commonly|better|formerly|sometimes|often)\s+(?:known|called|spelled|spelt)"
    rf"\s+as\s+(?:the\s+)?({_NAME_WORDS})(?=\s*[,;.()]|\s+(?:or|and)\b)"
)
AMOUNT = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s*(million|billion|thousand)\b)?"
    r"(?:\s*(km2|km²|sq mi|square kilometres|square kilometers|km|kilometres|kilometers|mi|miles"
    r"|metres|meters|m|ft|feet|kg|°C|°F|AU|km/s|m/s|people|inhabitants)(?![\w]))?"
)


@dataclass(frozen=True)
class Said:
    """A sentence of a page that was read, with the page's subject and address."""

    text: str
    url: str
    subject: str


@dataclass(frozen=True)
class Found:
    answer: str
    line: str  # the direct answer as written in a report, without citation marks
    urls: tuple[str, ...]
    score: float


@dataclass
class Tally:
    text: str
    by_url: dict[str, float]
    best: tuple[float, str, str]  # (score, sentence, its page)
    typed: int = 0  # how surely some sentence says it is the kind of thing asked for


def _key(text: str) -> str:
    """A candidate's key: its words, casefolded."""
    return " ".join(text.casefold().split())


def fold(text: str) -> str:
    """Casefolded words without punctuation: the key two spellings of one name share."""
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def count(
    tallies: dict[str, Tally],
    text: str,
    item: Said,
    score: float,
    typed: int,
    *,
    line_score: float | None = None,
) -> None:
    """Adds a candidate's support from one sentence; `line_score`, when given, is how well the
    sentence states the answer by itself (the line a report shows), apart from the support."""
    tally = tallies.setdefault(_key(text), Tally(text, {}, (0.0, "", "")))
    tally.typed = max(tally.typed, typed)
    tally.by_url[item.url] = max(tally.by_url.get(item.url, 0.0), score)
    shown = score if line_score is None else line_score
    if shown > tally.best[0]:
        tally.best = (shown, item.text, item.url)


def merge_short_names(tallies: dict[str, Tally]) -> None:
    """A one-word candidate that ends one longer candidate only is that one by its last name:
    "Mozart" in "two months before Mozart's death" is "Wolfgang Amadeus Mozart"."""
    for key in [k for k in tallies if " " not in k]:
        longer = [k for k in tallies if full_name_of(tallies[k].text, key)]
        if len(longer) != 1:
            continue
        _absorb(tallies[longer[0]], tallies.pop(key))


def merge_codes(tallies: dict[str, Tally], said: Sequence[Said]) -> None:
    """A code candidate ("JPY", from "The currencies of Japan are JPY.") is the name another
    sentence read gives it in brackets ("Its currency is the Yen (JPY)."): the name answers,
    with the code's support and the naming sentence as its line."""
    for key in [k for k, t in tallies.items() if CODE.fullmatch(t.text)]:
        code = tallies[key].text
        naming = re.compile(rf"\b(?:the\s+)?({_NAME_WORDS})\s+\({code}\)")
        named = next(((m.group(1), item) for item in said if (m := naming.search(item.text))), None)
        if named is None or CODE.fullmatch(named[0]):
            continue
        name, item = named
        short = tallies.pop(key)
        full = tallies.setdefault(_key(name), Tally(name, {}, (0.0, "", "")))
        _absorb(full, short)
        full.by_url[item.url] = max(full.by_url.get(item.url, 0.0), short.best[0])
        if short.best[0] >= full.best[0]:
            full.best = (short.best[0], item.text, item.url)


def merge_aliases(tallies: dict[str, Tally], said: Sequence[Said]) -> None:
    """Another name a page gives its subject is that subject: "Genghis Khan, also known as
    Chinggis Khan, was ..." makes the candidate "Chinggis Khan" into "Genghis Khan", the name
    the page goes by, with the other name's support and line."""
    for item in said:
        if not item.subject or fold(item.subject) not in fold(item.text[: len(item.subject) + 4]):
            continue
        for alias in (m.group(1) for m in _ALIAS.finditer(item.text)):
            key, own = _key(alias), _key(item.subject)
            if key not in tallies or key == own:
                continue
            short = tallies.pop(key)
            full = tallies.setdefault(own, Tally(item.subject, {}, (0.0, "", "")))
            _absorb(full, short)
            if short.best[0] >= full.best[0]:
                full.best = short.best


def _absorb(full: Tally, short: Tally) -> None:
    """The support of one candidate counted for another that is the same thing."""
    full.typed = max(full.typed, short.typed)
    for url, score in short.by_url.items():
        full.by_url[url] = max(full.by_url.get(url, 0.0), score)


def ranked_found(tallies: dict[str, Tally]) -> list[Found]:
    """The candidates, best supported first, each with its report line and pages."""
    order = sorted(tallies.values(), key=lambda t: (-sum(t.by_url.values()), len(t.text), t.text))
    found = []
    for tally in order:
        # The page of the sentence shown is cited first, then the others by support.
        shown = tally.best[2]
        urls = tuple(sorted(tally.by_url, key=lambda url: (url != shown, -tally.by_url[url])))
        line = answer_line(tally.text, tally.best[1])
        found.append(Found(tally.text, line, urls, sum(tally.by_url.values())))
    return found


def answer_line(answer: str, claim: str) -> str:
    """ "Seine. Located on the river Seine, ...": the answer by itself first, always, so that
    the line says which name of its claim is the answer ("Canberra. Canberra is the capital
    city of Australia."); the claim is cut to its clause about the answer when it states many
    other numbers."""
    claim = claim.strip()
    if len(AMOUNT.findall(claim)) > MAX_CLAIM_NUMBERS:
        clauses = re.split(r"[,;]\s+", claim)
        claim = next((c for c in clauses if answer in c), answer)
    return f"{answer}. {claim}"
