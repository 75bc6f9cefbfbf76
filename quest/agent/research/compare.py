"""Comparing two options ("Kenya or Peru, which has the larger population?"): each option's
figure for the attribute compared, read from the sentences about it (its own page first), and
the option that wins named first in the answer.

A figure is the amount nearest a word that states the attribute ("population", "km2",
"elevation") in a sentence about the option; for a birth or death, the year. Amounts in the
units the attribute is usually given in are preferred, so that "580,367 km2" is compared with
"1,285,216 km2" and not with "224,081 sq mi".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.research.patterns import WORD, YEAR_FIGURE
from quest.agent.research.question import key_terms
from quest.agent.research.reading import full_name_of
from quest.agent.research.shape import ATTRIBUTES, YEARS, Comparison, Shape
from quest.agent.research.tallies import AMOUNT, Found, Said

SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
# The units each attribute is most often stated in; an amount in one of them is preferred.
UNITS = {
    "area": frozenset({"km2", "km²", "square kilometres", "square kilometers"}),
    "height": frozenset({"m", "metres", "meters"}),
    "length": frozenset({"km", "kilometres", "kilometers"}),
    "depth": frozenset({"m", "metres", "meters"}),
    "size": frozenset({"km", "kilometres", "kilometers", "km2", "km²"}),
    "distance": frozenset({"km", "kilometres", "kilometers", "au"}),
    "population": frozenset({"", "people", "inhabitants"}),
}
OWN_PAGE = 2.0
ORDINALS = ["second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
RANKED = {
    "area": frozenset({"largest", "biggest"}),
    "size": frozenset({"largest", "biggest"}),
    "population": frozenset({"most populous", "most-populous"}),
    "length": frozenset({"longest"}),
    "height": frozenset({"highest", "tallest"}),
}
_ORDINAL = re.compile(
    r"(\d+(?:st|nd|rd|th)|" + "|".join(ORDINALS) + r")[- ](largest|biggest|most[- ]populous"
    r"|longest|highest|tallest)",
    re.IGNORECASE,
)
ORDINAL_WORDS = "|".join(ORDINALS) + r"|\d+(?:st|nd|rd|th)"
_LATITUDE = re.compile(r"\blatitude\s+(-?\d+(?:\.\d+)?)")  # negative: south of the equator
_BC = re.compile(r"\s*BCE?\b")  # a year before the common era counts down
_DEFINITION = re.compile(r"\b(?:is|was) (?:a|an|the) ((?:[\w-]+[ ,]*){1,5})")
_CLAUSE_WORDS = frozenset(
    {"located", "in", "of", "on", "that", "which", "with", "and", "by", "from", "at", "for"}
)  # a figure on the option's own page outweighs one elsewhere


@dataclass(frozen=True)
class Figure:
    value: float
    text: str
    url: str
    score: float


def compare(shape: Shape, said: Sequence[Said]) -> Found | None:
    comparison = shape.comparison
    if comparison is None:
        return None
    stated = _stated_order(shape, comparison, said, ranked_after=True)
    if stated is not None:
        return stated
    figures = [_figure(comparison, option, said) for option in comparison.options]
    first, second = figures
    if first is None or second is None:
        figures = [_rank(comparison, option, said) for option in comparison.options]
        first, second = figures
    if first is None or second is None or first.value == second.value:
        return _stated_order(shape, comparison, said, ranked_after=False)
    larger = first.value > second.value
    win = 0 if larger == comparison.larger_wins else 1
    winner, loser = comparison.options[win], comparison.options[1 - win]
    won, lost = figures[win], figures[1 - win]
    assert won is not None and lost is not None
    line = _line(shape, comparison, winner, loser, won, lost)
    return Found(winner, line, tuple(dict.fromkeys([won.url, lost.url])), won.score + lost.score)


def _rank(comparison: Comparison, option: str, said: Sequence[Said]) -> Figure | None:
    """The option's world rank for the attribute, as a figure that orders like the attribute
    ("the world's seventh-largest country by area" -> -7), when no amount is given."""
    superlatives = RANKED.get(comparison.attribute or "area")
    if not superlatives:
        return None
    for item in said:
        if not _same(item.subject, option) or "world" not in item.text.casefold():
            continue
        for match in _ORDINAL.finditer(item.text):
            if match.group(2).casefold() not in superlatives:
                continue
            if comparison.attribute == "area" and "population" in item.text[match.end() :][:25]:
                continue
            rank = _ordinal(match.group(1))
            return Figure(-float(rank), f"{match.group(0)} in the world", item.url, 1.0)
    return None


def _stated_order(
    shape: Shape, comparison: Comparison, said: Sequence[Said], *, ranked_after: bool
) -> Found | None:
    """The winner a page states outright. With `ranked_after` (tried before any figure, which
    it outweighs): a page ranks one option right after the other ("the second-largest lake ...
    after Lake Superior") or puts it past the other in the question's own words ("Venus is
    hotter than Mercury"). Without (when the figures settle nothing): one option is the
    question's superlative unqualified ("the hottest planet in the Solar System") and the
    other is not."""
    comparative = _comparative(shape)
    if not comparative or " " in comparative:
        return None
    superlative = comparative[:-2] + "est"  # larger, hotter, earlier -> largest, hottest, earliest
    options = comparison.options
    winners: dict[int, Said] = {}
    for index, option in enumerate(options):
        other = options[1 - index]
        for item in said:
            if not _same(item.subject, option) and not _fold(item.text).startswith(_fold(option)):
                continue
            text = item.text
            if ranked_after:
                after = rf"\b(?:{ORDINAL_WORDS})[- ]{superlative}\b[^.;]*?\bafter (?:the )?"
                than = rf"^(?:the )?{re.escape(_fold(option))} (?:is|was|are|were) {comparative}"
                if re.search(after + re.escape(other), text, re.IGNORECASE):
                    winners.setdefault(1 - index, item)
                elif re.search(rf"{than} than (?:the )?{re.escape(_fold(other))}", _fold(text)):
                    winners.setdefault(index, item)
            elif _unqualified_superlative(text, superlative):
                winners.setdefault(index, item)
    if len(winners) != 1:
        return None
    ((win, item),) = winners.items()
    winner, loser = options[win], options[1 - win]
    line = f"{winner} is {comparative} than {loser}: {item.text}"
    return Found(winner, line, (item.url,), 1.0)


def _unqualified_superlative(text: str, superlative: str) -> bool:
    """ "making it the hottest planet in the Solar System": the superlative unranked ("the
    second-hottest" is not) and not within a region ("Africa's largest lake", "the largest
    lake in Africa")."""
    for match in re.finditer(rf"\b{superlative}\b", text, re.IGNORECASE):
        before = text[: match.start()].casefold().split()[-1:] or [""]
        word = before[0]
        if re.search(rf"(?:^|-)(?:{ORDINAL_WORDS})-?$", word):
            continue  # "second-hottest", "the 3rd largest"
        if word.endswith(("'s", "\u2019s")) and not word.startswith("world"):
            continue
        rest = text[match.end() : match.end() + 60]
        if re.match(r"[^,.;]*?\bin (?!the world\b|the Solar System\b)(?:the )?[A-Z]", rest):
            continue
        return True
    return False


def _ordinal(word: str) -> int:
    digits = re.match(r"\d+", word)
    return int(digits.group(0)) if digits else ORDINALS.index(word.casefold()) + 2


def missing(shape: Shape, said: Sequence[Said]) -> list[str]:
    """The options whose figure the pages read do not give yet."""
    comparison = shape.comparison
    if comparison is None:
        return []
    return [o for o in comparison.options if _figure(comparison, o, said) is None]


def lookup(shape: Shape, option: str, said: Sequence[Said]) -> str:
    """A search for an option's figure: its name, what its page says it is ("country") and
    the attribute ("Brazil country area")."""
    comparison = shape.comparison
    attribute = comparison.attribute if comparison and comparison.attribute else "area"
    kind = next((_kind_of(item.text) for item in said if _same(item.subject, option)), "")
    return " ".join(word for word in (option, kind, attribute) if word)


def _kind_of(definition: str) -> str:
    """The noun a page's first sentence says its subject is: "... is a country located in
    East Africa" -> "country"; "" when it says none."""
    match = _DEFINITION.search(definition)
    if match is None:
        return ""
    words = []
    for word in match.group(1).split():
        if word.casefold() in _CLAUSE_WORDS or word.endswith("ing") or not word.isalpha():
            break
        words.append(word)
    return words[-1] if words else ""


def _line(
    shape: Shape, comparison: Comparison, winner: str, loser: str, won: Figure, lost: Figure
) -> str:
    label = comparison.attribute or "size"
    if label in YEARS:
        order = "later" if comparison.larger_wins else "earlier"
        return f"{winner} ({label} {won.text}), {order} than {loser} ({label} {lost.text})."
    if label == "latitude":
        side = "north" if comparison.larger_wins else "south"
        return f"{winner}: latitude {won.text}, further {side} than {loser} ({lost.text})."
    order = "more" if comparison.larger_wins else "less"
    said = _comparative(shape) or f"{order} {label}"
    return f"{winner}: {label} {won.text}, {said} than {loser} ({lost.text})."


def _comparative(shape: Shape) -> str:
    """The question's own comparative word ("taller", "more populous"), or ""."""
    words = shape.words
    for index, word in enumerate(words):
        if word in {"more", "less"} and index + 1 < len(words):
            return f"{word} {words[index + 1]}"
        if word.endswith("er") and word not in {"other", "either", "whether", "river", "water"}:
            return word
    return ""


def _figure(comparison: Comparison, option: str, said: Sequence[Said]) -> Figure | None:
    cues = _cues(comparison)
    best: Figure | None = None
    for item in said:
        own = _same(item.subject, option)
        if not own and not _fold(item.text).startswith(_fold(option)):
            continue  # a figure elsewhere may be another thing's: "China ... after India"
        for figure in _figures(comparison, item, cues):
            scored = Figure(
                figure.value, figure.text, figure.url, figure.score * (OWN_PAGE if own else 1.0)
            )
            if best is None or scored.score > best.score:
                best = scored
    return best


def _cues(comparison: Comparison) -> frozenset[str]:
    if comparison.attribute:
        _, states = ATTRIBUTES[comparison.attribute]
    else:
        states = ATTRIBUTES["area"][1] | ATTRIBUTES["size"][1]
    return frozenset(key_terms(" ".join(states))) | states


def _figures(comparison: Comparison, item: Said, cues: frozenset[str]) -> list[Figure]:
    words = WORD.findall(item.text)
    cue_at = [i for i, w in enumerate(words) if w.casefold() in cues or set(key_terms(w)) & cues]
    if not cue_at:
        return []
    if comparison.attribute in YEARS:
        return _years(comparison, item, words, cue_at)
    if comparison.attribute == "latitude":
        stated = _LATITUDE.finditer(item.text)
        return [Figure(float(m.group(1)), m.group(1), item.url, 1.0) for m in stated]
    found = []
    preferred = UNITS.get(comparison.attribute, frozenset())
    for match in AMOUNT.finditer(item.text):
        number, scale, unit = match.group(1), match.group(2), match.group(3)
        if not scale and not unit and YEAR_FIGURE.fullmatch(number) and "," not in number:
            continue
        value = float(number.replace(",", "")) * SCALES.get(scale or "", 1.0)
        at = len(WORD.findall(item.text[: match.start()]))
        distance = min(abs(at - i) for i in cue_at)
        units = (unit or "").casefold()
        fits = 2.0 if units in preferred or (preferred and unit and unit in preferred) else 1.0
        if comparison.attribute == "population" and value < 1000:
            continue
        if comparison.attribute not in {"population", ""} and not unit:
            continue  # "distance 10": a height, length or distance comes with its unit
        found.append(Figure(value, match.group(0).strip(), item.url, fits / (1.0 + distance / 4)))
    return found


def _years(comparison: Comparison, item: Said, words: list[str], cue_at: list[int]) -> list[Figure]:
    found = []
    for match in YEAR_FIGURE.finditer(item.text):
        year = match.group(match.lastindex or 1)
        at = len(WORD.findall(item.text[: match.start()]))
        distance = min(abs(at - i) for i in cue_at)
        bc = _BC.match(item.text, match.end()) is not None
        value, text = (-float(year), f"{year} BC") if bc else (float(year), year)
        found.append(Figure(value, text, item.url, 1.0 / (1.0 + distance / 4)))
    return found


def _same(subject: str, option: str) -> bool:
    """Whether a page's subject is the option, by name or by its name with one more word
    ("Mount Kilimanjaro" for "Kilimanjaro", "Lake Victoria" for "Victoria"), or by a full name
    that ends in it ("Ludwig van Beethoven" for "Beethoven")."""
    if not subject:
        return False
    page, named = _fold(subject).split(), _fold(option).split()
    if page == named:
        return True
    extra = len(page) - len(named)
    return (extra == 1 and (page[1:] == named or page[:-1] == named)) or full_name_of(
        subject, option
    )


def _fold(text: str) -> str:
    return re.sub(r"\W+", " ", re.sub(r"^(?:the|a|an)\s+", "", text.casefold())).strip()
