"""Gazetteer records and the questions that select places by them.

A record page states its subject's attributes one sentence each, as GeoNames and countryinfo
pages do: "Zambia is a country or territory in Africa … Its capital is Lusaka. Its area is
752,614 square kilometres. Its population is 17,351,822. Its currency is the Kwacha (ZMW). It
borders Zimbabwe, Tanzania and Angola." A question that picks countries out by such attributes
("Which country is in Europe, has fewer than 1,000,000 inhabitants and uses the currency with
ISO code NOK?", "Name four countries in Asia that border Turkey") is answered by reading records
and checking every constraint against them; hunting sentences that share the question's words
finds the pages and then cannot tell which of them meets the constraints.

`read_record` reads a record from what a tool showed (a search snippet shows part of one, a
visit the whole); `SelectionQuestion.parse` reads the constraints and the facts asked from a
question, or gives None for a question of another kind. Only text a model also sees is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from quest.agent.research.reading import page_subject, title_label
from quest.text.sentences import sentence_spans

CONTINENTS = ("North America", "South America", "Africa", "Asia", "Europe", "Oceania", "Antarctica")
_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
COUNT_WORDS = {word: value for value, word in enumerate(_WORDS.split())}
_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
# "… is a country or territory in Africa, as recorded by GeoNames." (a snippet may open past
# the name); the source clause tells a record from prose that says "a country in …".
_KIND = re.compile(
    r"(?:\bis an? |^…?\s*(?:an? )?)(country or territory|country|city|town) in ([^.]*?),? "
    r"(?:as recorded by|according to) "
)
_CAPITAL = re.compile(r"\bIts capital is ([^.]+?)\.")
_AREA = re.compile(rf"\bIts area is {_NUMBER} square kilomet")
_POPULATION = re.compile(rf"\bIts population is {_NUMBER}")
_CURRENCY = re.compile(r"\bIts currency is (?:the )?[^.(]*\(([A-Z]{3})\)")
_CURRENCIES = re.compile(r"\bIts currencies are ([A-Z]{3}(?:(?:, | and )[A-Z]{3})*)")
_BORDERS = re.compile(r"\bIt borders ([^.]+?)\.")
_LARGEST = re.compile(r"\bThe largest cities of .+? are ([^(]+?) \(" + _NUMBER + r"\)")
_CAPITAL_OF = re.compile(r"\bIt is the capital of ([^.]+?)\.")


def number_value(text: str) -> float:
    return float(text.replace(",", ""))


def split_names(listed: str) -> tuple[str, ...]:
    """ "Serbia, Montenegro and Bosnia and Herzegovina" -> the three names: the list's last
    "and" is the first one of its last comma-separated piece."""
    pieces = [p.strip() for p in listed.split(", ") if p.strip()]
    if not pieces:
        return ()
    head, _, tail = pieces[-1].partition(" and ")
    last = [head, tail] if tail else [head]
    return tuple(n.strip() for n in [*pieces[:-1], *last] if n.strip())


@dataclass
class Record:
    """What a record page showed about its subject; None or "" where it showed nothing."""

    url: str
    title: str
    name: str
    kind: str = ""  # "country" | "city" | ""
    place: str = ""  # the continent of a country, the country of a city
    capital: str = ""
    area: float | None = None
    population: float | None = None
    currencies: tuple[str, ...] = ()
    borders: tuple[str, ...] | None = None
    largest_city: str = ""
    capital_of: str = ""
    whole: bool = False  # read in full (a visit), not from a search snippet
    sentences: dict[str, str] = field(default_factory=dict)  # attribute -> the sentence shown

    @property
    def source(self) -> str:
        return title_label(self.title)


def read_record(url: str, title: str, text: str, *, whole: bool) -> Record | None:
    """The record a page's text shows, or None when it shows no attribute of one."""
    record = Record(url, title, page_subject(title), whole=whole)
    kind = _KIND.search(text)
    if kind:
        record.kind = "city" if kind.group(1) in ("city", "town") else "country"
        where = kind.group(2)
        continents = [c for c in CONTINENTS if c in where]
        record.place = continents[-1] if record.kind == "country" and continents else where
        record.sentences["kind"] = _sentence(text, kind.start())
    for attribute, pattern in (
        ("capital", _CAPITAL),
        ("area", _AREA),
        ("population", _POPULATION),
        ("currency", _CURRENCY),
        ("currency", _CURRENCIES),
        ("borders", _BORDERS),
        ("largest_city", _LARGEST),
        ("capital_of", _CAPITAL_OF),
    ):
        match = pattern.search(text)
        if match is None or attribute in record.sentences:
            continue
        record.sentences[attribute] = _sentence(text, match.start())
        value = match.group(1).strip()
        if attribute == "capital":
            record.capital = value
        elif attribute in ("area", "population"):
            setattr(record, attribute, number_value(value))
        elif attribute == "currency":
            record.currencies = tuple(re.findall(r"[A-Z]{3}", value))
        elif attribute == "borders":
            record.borders = split_names(value)
        elif attribute == "largest_city":
            record.largest_city = value.split(", ")[-1] if ", " in value else value
        else:
            record.capital_of = value
    return record if record.sentences else None


def _sentence(text: str, at: int) -> str:
    start, end = next((span for span in sentence_spans(text) if span[1] > at), (at, len(text)))
    return " ".join(text[start:end].split())


# -- questions --------------------------------------------------------------------------------
_COUNTRY = re.compile(r"\bcountr(?:y|ies)\b")
_HOW_MANY = re.compile(r"\b(?:Name|Find|List|Give) (\w+) countr(?:y|ies)\b")
_ONE = re.compile(r"\b(?:Which country|Identify the country|exactly one country)\b")
_IN = re.compile(r"\b(?:in|of) (" + "|".join(CONTINENTS) + r")\b")
_CODE = re.compile(r"\bcurrency with (?:the )?ISO code ([A-Z]{3})\b")
_BORDER = re.compile(
    r"\b(?:borders|border|shares a border with|bordering) (?!it\b|that\b|according\b)"
    r"([A-Z][^,?.;:]*?)(?=,| and (?:has|have|uses|use|covers|cover|shares|borders|is|report)\b|"
    r"\?|\.|;| with\b|$)"
)
_PEOPLE = re.compile(rf"\b(?:has|have) (more|fewer) than {_NUMBER} inhabitants")
_SIZE = re.compile(rf"\b(?:has|have|covers|cover) (more|less) than {_NUMBER} square kilomet")
_NEIGHBOURS = re.compile(r"\bexactly (\w+) land neighbours?\b")
_CHAIN = re.compile(r"\b(?:Start from|Begin with) ([^.]+)\.")
# The facts a question asks about the country it selects, as the record states them.
_ASKS = (
    ("capital_population", re.compile(r"population (?:GeoNames records )?(?:for|of) its capital")),
    ("borders", re.compile(r"\bevery country it borders\b")),
    ("currency", re.compile(r"\bISO code of its currency\b")),
    ("largest_city", re.compile(r"\bits largest city\b")),
    ("area", re.compile(r"\bits area\b")),
    ("population", re.compile(r"\bits population\b")),
    ("capital", re.compile(r"\bits capital\b")),
)


@dataclass(frozen=True)
class Constraint:
    attribute: str  # continent | currency | borders | population | area | neighbours
    value: str | float
    relation: str = "is"  # is | more | less

    def phrase(self) -> str:
        if self.attribute == "continent":
            return f"in {self.value}"
        if self.attribute == "currency":
            return f"currency {self.value}"
        if self.attribute == "borders":
            return f"borders {self.value}"
        if self.attribute == "neighbours":
            return f"exactly {int(float(self.value))} land neighbours"
        unit = "inhabitants" if self.attribute == "population" else "square kilometres"
        return f"{self.relation} than {float(self.value):,.0f} {unit}"

    def holds(self, record: Record) -> bool | None:
        """Whether the record meets it; None when the record does not show the attribute."""
        shown: object = {
            "continent": record.place if record.kind == "country" else None,
            "currency": record.currencies or None,
            "borders": record.borders,
            "neighbours": record.borders,
            "population": record.population,
            "area": record.area,
        }[self.attribute]
        if shown is None:
            return None
        if self.attribute == "continent":
            return shown == self.value
        if self.attribute == "currency":
            return self.value in record.currencies
        if self.attribute == "borders":
            return _folded(str(self.value)) in {_folded(n) for n in record.borders or ()}
        if self.attribute == "neighbours":
            return len(record.borders or ()) == int(float(self.value))
        figure = float(str(shown))
        return figure > float(self.value) if self.relation == "more" else figure < float(self.value)


@dataclass(frozen=True)
class SelectionQuestion:
    """Countries to select by constraints: `count` of them, or the one (count 1, `single`)
    with the facts `asks`."""

    text: str
    count: int
    single: bool
    constraints: tuple[Constraint, ...]
    asks: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> SelectionQuestion | None:
        if not _COUNTRY.search(text):
            return None
        if _CHAIN.search(text):
            return None  # hops from a named country: the general research reads those
        many = _HOW_MANY.search(text)
        single = many is None and _ONE.search(text) is not None
        count = 1 if single else COUNT_WORDS.get(many.group(1).lower(), 0) if many else 0
        if count < 1:
            return None
        constraints = _constraints(text)
        if not any(c.attribute != "continent" for c in constraints):
            return None
        return cls(text, count, single, constraints, _asks(text) if single else ())

    def holds(self, record: Record) -> bool | None:
        """True when every constraint holds, False when one fails, None when one is unknown."""
        verdicts = [c.holds(record) for c in self.constraints]
        if record.kind != "country" or False in verdicts:
            return False
        return None if None in verdicts else True

    def constraint(self, attribute: str) -> Constraint | None:
        return next((c for c in self.constraints if c.attribute == attribute), None)


def _constraints(text: str) -> tuple[Constraint, ...]:
    found: list[Constraint] = []
    where = _IN.search(text)
    if where:
        found.append(Constraint("continent", where.group(1)))
    code = _CODE.search(text)
    if code:
        found.append(Constraint("currency", code.group(1)))
    border = _BORDER.search(text)
    if border:
        found.append(Constraint("borders", border.group(1).strip()))
    for attribute, pattern in (("population", _PEOPLE), ("area", _SIZE)):
        match = pattern.search(text)
        if match:
            relation = "more" if match.group(1) == "more" else "less"
            found.append(Constraint(attribute, number_value(match.group(2)), relation))
    neighbours = _NEIGHBOURS.search(text)
    if neighbours and neighbours.group(1).lower() in COUNT_WORDS:
        found.append(Constraint("neighbours", float(COUNT_WORDS[neighbours.group(1).lower()])))
    return tuple(found)


def _asks(text: str) -> tuple[str, ...]:
    rest, found = text, []
    for name, pattern in _ASKS:
        match = pattern.search(rest)
        if match:
            found.append((match.start(), name))
            rest = rest[: match.start()] + " " * (match.end() - match.start()) + rest[match.end() :]
    return tuple(name for _, name in sorted(found))


def _folded(name: str) -> str:
    return " ".join(name.casefold().split())
