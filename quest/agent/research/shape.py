"""The shape of a question's answer, read without any model: the kind of thing it names (a
person, a place, a year, a number or another thing), the words that say what it is ("which
river" -> river), and for a comparison its options, the attribute compared and which end wins;
for a two-hop question, the bridge it asks about first ("the country where the Taj Mahal
stands" -> "Which country is the Taj Mahal in?").

The word lists here are general English: question words, comparatives and the usual names of
measured attributes. None of them is about a particular subject.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property

from quest.agent.research.patterns import LEADING_ARTICLE, STRAIGHT_WORD
from quest.agent.research.question import key_terms, phrases

PERSON, PLACE, YEAR, NUMBER, THING = "person", "place", "year", "number", "thing"
# The attribute a comparison or a measure question asks about, from the words it uses; each
# attribute's cues are the words a page states it with.
ATTRIBUTES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # attribute: (words in a question that ask for it, words on a page that state it)
    "population": (
        frozenset({"population", "populous", "people", "inhabitants", "live", "residents"}),
        frozenset({"population", "inhabitants", "people", "populous", "residents"}),
    ),
    "area": (
        frozenset({"area", "land", "cover", "covers", "territory"}),
        frozenset({"area", "km2", "km²", "square", "sq"}),
    ),
    "height": (
        frozenset({"tall", "taller", "high", "higher", "height", "elevation", "altitude"}),
        frozenset({"height", "elevation", "metres", "meters", "m", "tall", "high", "summit"}),
    ),
    "length": (
        frozenset({"long", "longer", "length"}),
        frozenset({"length", "long", "km", "kilometres", "kilometers", "mi"}),
    ),
    "depth": (
        frozenset({"deep", "deeper", "depth"}),
        frozenset({"depth", "deep", "metres", "meters", "m"}),
    ),
    "size": (
        frozenset({"bigger", "smaller", "size", "diameter", "radius", "mass"}),
        frozenset({"diameter", "radius", "km", "mass", "largest", "smallest", "size"}),
    ),
    "born": (
        frozenset({"born"}),
        frozenset({"born", "birth"}),
    ),
    "died": (
        frozenset({"died", "death", "die"}),
        frozenset({"died", "death"}),
    ),
    # When a state, an era or an event began and ended, as a short description's span of
    # years is written out (research.reading)
    "began": (
        frozenset({"began", "begin", "start", "started", "founded", "established", "formed"}),
        frozenset({"began", "founded", "established"}),
    ),
    "ended": (
        frozenset({"end", "ended", "fall", "fell", "collapse", "collapsed", "dissolve"})
        | frozenset({"dissolved"}),
        frozenset({"ended", "fell", "dissolved"}),
    ),
    "latitude": (
        frozenset({"north", "south", "northern", "southern", "latitude", "northernmost"}),
        frozenset({"latitude"}),
    ),
    "distance": (
        frozenset({"far", "farther", "further", "closer", "nearer", "distance", "close"}),
        frozenset({"distance", "km", "au", "orbit", "orbits", "from"}),
    ),
    "temperature": (
        frozenset({"hot", "hotter", "cold", "colder", "temperature", "warmer"}),
        frozenset({"temperature", "°c", "c", "degrees", "hottest", "coldest"}),
    ),
}
YEARS = frozenset({"born", "died", "began", "ended"})  # attributes stated by a year
BIGGER = frozenset(
    {"larger", "bigger", "more", "greater", "higher", "taller", "longer", "farther", "further"}
    | {"hotter", "warmer", "deeper", "heavier", "populous", "older"}
)
SMALLER = frozenset({"smaller", "fewer", "less", "shorter", "lower", "closer", "nearer", "colder"})
EARLIER = frozenset({"first", "earlier", "earliest", "before"})
LATER = frozenset({"later", "last", "latest", "after"})
MEASURE_NOUNS = frozenset(
    {"population", "area", "height", "length", "depth", "diameter", "speed", "elevation"}
    | {"mass", "temperature", "distance", "radius", "width", "weight", "age"}
)
UNIT_WORDS = {
    "metres": "metres",
    "meters": "metres",
    "kilometres": "kilometres",
    "kilometers": "kilometres",
    "km": "kilometres",
    "miles": "miles",
    "feet": "feet",
}
HOW_WORDS = frozenset({"many", "much", "long", "tall", "high", "deep", "big", "far", "old"})
PLACE_NOUNS = frozenset(
    {"country", "city", "continent", "town", "region", "state", "island", "province", "county"}
)
ARTICLES = frozenset({"the", "a", "an"})
AUXILIARIES = frozenset(
    {"is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can", "could"}
)
# "the country where the Taj Mahal stands": a bridge described by a relative clause.
_BRIDGE = re.compile(
    r"\bthe\s+(?P<noun>(?:[A-Za-z]+\s+){0,2}?[a-z]+)\s+"
    r"(?P<link>where|whose|that|which|who|through which|in which|of|in)\s+"
    r"(?P<rest>[^?,]+?)(?=\s+(?:born|the capital)\b|[?,]|$)"
)
_THE = re.compile(r"\bthe\s")
_OPTIONS = re.compile(r"([^,?]+?)\s+or\s+([^,?]+)")
_COMPARISON_SPLIT = re.compile(r",\s*")


@dataclass(frozen=True)
class Comparison:
    options: tuple[str, str]
    attribute: str  # a key of ATTRIBUTES, or "" when the question names none that is known
    larger_wins: bool  # True: the option with the larger value is the answer


@dataclass(frozen=True)
class Bridge:
    phrase: str  # the words that describe the bridge in the question
    noun: str  # what the bridge is ("country")
    question: str  # the question that finds it


@dataclass(frozen=True)
class Shape:
    text: str

    @cached_property
    def words(self) -> list[str]:
        return [w.casefold() for w in STRAIGHT_WORD.findall(self.text)]

    @cached_property
    def type_words(self) -> frozenset[str]:
        """The words after which/what up to the verb: "which Italian city is" -> {italian,
        city}; "who" gives none. An article or a name after the noun starts the rest of the
        question: "In which country the Eiffel Tower is" -> {country}."""
        words = STRAIGHT_WORD.findall(self.text.split(",")[0])
        start = next((i for i, w in enumerate(words) if w.casefold() in {"which", "what"}), -1)
        found: list[str] = []
        for word in words[start + 1 : start + 5] if start >= 0 else []:
            if word.casefold() in AUXILIARIES or (found and _verb_like(word)):
                break
            if word.casefold() in ARTICLES or (
                word[:1].isupper() and any(w.islower() for w in found)
            ):
                break
            found.append(word)
        return frozenset(key_terms(" ".join(found)))

    @cached_property
    def units(self) -> frozenset[str]:
        """The units the question asks the answer in ("in metres")."""
        found = {UNIT_WORDS[w] for w in self.words if w in UNIT_WORDS}
        return frozenset(found)

    @cached_property
    def measure(self) -> str:
        """The measured attribute a "what is the <measure> of" question asks for, or ""."""
        return next((word for word in self.words[:6] if word in MEASURE_NOUNS), "")

    @cached_property
    def kind(self) -> str:
        words = self.words
        if "who" in words[:3] or "whom" in words[:3]:
            return PERSON
        if "when" in words[:2] or {"year", "century"} & set(words[:4]):
            return YEAR
        asks_how = any(a == "how" and b in HOW_WORDS for a, b in itertools.pairwise(words))
        if asks_how or (self.measure and words[:1] == ["what"]):
            return NUMBER
        if "where" in words[:2] or PLACE_NOUNS & self.type_words:
            return PLACE
        return THING

    @cached_property
    def comparison(self) -> Comparison | None:
        words = set(self.words)
        if "or" not in words:
            return None
        options = _options(self.text)
        if options is None:
            return None
        attribute = next((name for name, (asks, _) in ATTRIBUTES.items() if asks & words), "")
        if attribute in YEARS or words & (EARLIER | LATER):
            larger = bool(words & LATER) and not words & EARLIER
        elif attribute == "latitude":
            larger = not words & {"south", "southern", "southernmost"}  # north is up
        else:
            larger = not (words & SMALLER)
        return Comparison(options, attribute, larger)

    @cached_property
    def bridge(self) -> Bridge | None:
        """The last described thing the question asks about through another ("the capital of
        [the country where the Taj Mahal stands]"); the question's own target ("What is [the
        capital of Canada]") is none."""
        if self.comparison is not None:
            return None
        found = None
        starts = (m.start() for m in _THE.finditer(self.text))
        for match in filter(None, (_BRIDGE.match(self.text, at) for at in starts)):
            noun, link, rest = match.group("noun"), match.group("link"), match.group("rest")
            before = self.text[: match.start()].split()
            if len(before) < 2 or _identity(before, link, noun):
                continue  # "What is [the capital of Canada]": the question's own target
            superlative = any(w.endswith("est") for w in noun.split()[:-1])
            if link == "in" and not superlative:
                continue
            named = phrases(rest, skip_first=False)
            if not named:
                continue
            phrase = match.group(0)
            if link in {"of", "in"} and rest.find(named[0]) <= len("the "):
                # "the river of [Paris] empty": the bridge ends with the name it is of
                cut = rest[: rest.find(named[0]) + len(named[0])]
                phrase = phrase[: len(phrase) - len(rest)] + cut
                rest = cut
            found = Bridge(phrase, noun.split()[-1], _bridge_question(noun, link, rest))
        return found


def _identity(before: list[str], link: str, noun: str) -> bool:
    """Whether the described thing only restates the answer or a name: "Which philosopher
    was [the tutor of ...]", "Jesus is [the son of God]", "[the city of] Kyoto"."""
    copula = before[-1].casefold() in {"is", "was", "are", "were"}
    if copula and len(before) == 2:
        return True
    typed_head = before[0].casefold() in {"which", "what"} and not before[-1][:1].isupper()
    named = copula and before[-2][:1].isupper()
    return (copula and typed_head) or named or (link == "of" and noun in PLACE_NOUNS)


def _verb_like(word: str) -> bool:
    """A third-person verb or a past form: "flows", "separates", "painted"."""
    lower = word.casefold()
    return word.islower() and (
        lower.endswith("ed") or (lower.endswith("s") and not lower.endswith("ss"))
    )


def _options(text: str) -> tuple[str, str] | None:
    """ "Kenya or Peru, which ..." / "Which is taller, Mount Everest or K2?" -> the two
    named options, without a leading article."""
    for chunk in _COMPARISON_SPLIT.split(text):
        match = _OPTIONS.search(chunk)
        if match is None:
            continue
        first = _last_name(match.group(1))
        second = _first_name(match.group(2))
        if first and second:
            return first, second
    return None


def _last_name(text: str) -> str:
    found = phrases(LEADING_ARTICLE.sub("", text.strip()), skip_first=False)
    return LEADING_ARTICLE.sub("", found[-1]) if found else ""


def _first_name(text: str) -> str:
    found = phrases(LEADING_ARTICLE.sub("", text.strip().rstrip("?")), skip_first=False)
    return LEADING_ARTICLE.sub("", found[0]) if found else ""


def _bridge_question(noun: str, link: str, rest: str) -> str:
    """The question that names the bridge: "country", "where", "the Taj Mahal stands" ->
    "Which country is the Taj Mahal in?"; "country", "whose", "capital is Lima" -> "Which
    country has the capital Lima?"; "painter", "of", "the Mona Lisa" -> "Who is the painter of
    the Mona Lisa?"."""
    rest = rest.rstrip("?. ")
    noun = noun.rsplit(maxsplit=1)[-1] if link != "in" else noun
    if link in {"of", "in"}:
        return f"What is the {noun} {link} {rest}?"
    if link == "whose":
        owned, _, value = re.sub(r" was ", " is ", rest).partition(" is ")
        return (
            f"Which {noun} has {value or rest} as its {owned}?"
            if value
            else f"Which {noun} has {rest}?"
        )
    if link in {"where", "in which", "through which"}:
        return f"In which {noun} {rest}?"
    return f"Which {noun} {rest}?"
