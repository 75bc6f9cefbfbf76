"""Facts about one country, as a task states, checks and answers them.

A `Fact` is one thing a task asks and its answer states: the question's phrase for it, the
claim-level check of the answer leaf (quest.rubric.claims), the source leaf's check that a cited
page states it (quest.rubric.support), the sentence a reference answer writes and the page that
states it. The builders read the knowledge graph (quest.synthesis.kg), so each fact is worded
as its GeoNames page words it; `fact_leaves` turns a fact into tree leaves and `write_answer`
turns facts into a cited Markdown answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.corpus.text import listing, number
from quest.rubric.ids import slugify
from quest.synthesis.kg import City, Country, KnowledgeGraph

POPULATION_WORDS = ["population", "people", "inhabitants", "residents"]
AREA_WORDS = ["area", "square kilometres", "square kilometers", "km²"]
CAPITAL_WORDS = ["capital"]
LARGEST_WORDS = ["largest", "biggest", "most populous"]
# What "the most populous neighbour" is also said as.
MOST_POPULOUS_WORDS = [
    *LARGEST_WORDS,
    "most inhabitants",
    "most people",
    "highest population",
    "greatest population",
]
BORDER_WORDS = [
    "border",
    "borders",
    "bordering",
    "neighbour",
    "neighbours",
    "neighbor",
    "neighbors",
]
SENTENCE_BREAK = "\n"  # between the sentences of one fact, each cited
EXACT_LABEL = "Exact answer:"  # the committed answer's line (quest.rubric.commitment)
# The committed answer's form, asked at the end of every question.
EXACT_ASK = " End your answer with the line 'Exact answer: {what}'."
LENGTH_FACTOR = 8
MIN_CHARS = 6_000


class Unbuildable(Exception):
    """This draft cannot be built as asked (the reason is its message)."""


@dataclass
class Fact:
    key: str
    subject: str
    ask: str  # what the question asks: "its capital"
    description: str  # the answer leaf's description
    check: dict[str, Any]
    sentence: str  # how the answer states it, without its citation
    url: str  # the page that states it
    source_check: dict[str, Any] | None = None
    alt_url: str = ""  # another page that states it in the same words, for the alternatives
    leaves: list[dict[str, Any]] = field(default_factory=list)  # extra leaves (neighbour lists)


@dataclass
class Draft:
    family: str
    question: str
    tree_root: dict[str, Any]
    facts: list[Fact]
    solution: dict[str, dict[str, Any]]
    entities: tuple[str, ...]  # what the answer is about, for duplicate detection
    alternatives: list[list[Fact]] = field(default_factory=list)  # other valid answers
    notes: list[str] = field(default_factory=list)
    subjects: tuple[str, ...] = ()  # the countries it is about (ISO codes)
    exact: str = ""  # the committed answer a reference writes ("Exact answer: …")
    # The ground truth the red-team's oracle reads (quest.synthesis.oracle).
    oracle: dict[str, Any] = field(default_factory=dict)
    # The domains its facts come from, first seen first, and the one its answer belongs to,
    # which gives its category (quest.synthesis.categories).
    domains: tuple[str, ...] = ("countries",)
    topic: str = "countries"


# ---------------------------------------------------------------- facts about one country
def capital_fact(c: Country) -> Fact:
    return Fact(
        "capital",
        c.name,
        "its capital",
        f"The capital of {c.name}, {c.capital}, is given",
        {
            "kind": "mentions",
            "value": c.capital,
            "context": CAPITAL_WORDS,
            "subject": c.name,
            "others": _other_cities(c, c.capital),
        },
        f"The capital of {c.name} is {c.capital}",
        c.url,
        {
            "kind": "source_supports",
            "value": c.capital,
            "context": CAPITAL_WORDS,
            "subject": c.name,
        },
        alt_url=c.ci_url if c.ci_capital == c.capital and c.ci_name == c.name else "",
    )


def population_fact(c: Country) -> Fact:
    return Fact(
        "population",
        c.name,
        "its population according to GeoNames",
        f"{c.name}'s GeoNames population, {c.population_text()}, is given",
        {
            "kind": "number",
            "value": c.population,
            "tolerance_rel": 0.01,
            "context": POPULATION_WORDS,
            "subject": c.name,
        },
        f"The population of {c.name} is {c.population_text()} according to GeoNames",
        c.url,
        {
            "kind": "source_supports",
            "value": c.population,
            "context": POPULATION_WORDS,
            "subject": c.name,
        },
    )


def area_fact(c: Country) -> Fact:
    return Fact(
        "area",
        c.name,
        "its area in square kilometres according to GeoNames",
        f"{c.name}'s GeoNames area, {c.area_text()} km², is given",
        {
            "kind": "number",
            "value": c.area,
            "tolerance_rel": 0.01,
            "context": AREA_WORDS,
            "subject": c.name,
        },
        f"The area of {c.name} is {c.area_text()} square kilometres according to GeoNames",
        c.url,
        {"kind": "source_supports", "value": c.area, "context": AREA_WORDS, "subject": c.name},
    )


def currency_fact(c: Country) -> Fact:
    return Fact(
        "currency",
        c.name,
        "the ISO code of its currency",
        f"{c.name}'s currency code, {c.currency_code}, is given",
        {
            "kind": "mentions",
            "value": c.currency_code,
            "context": ["currency"],
            "subject": c.name,
        },
        f"The currency of {c.name} is {c.currency_code}",
        c.url,
        {
            "kind": "source_supports",
            "value": c.currency_code,
            "context": ["currency"],
            "subject": c.name,
        },
    )


def largest_city_fact(c: Country) -> Fact:
    city = c.largest_city
    assert city is not None
    return Fact(
        "largest_city",
        c.name,
        "its largest city as listed by GeoNames",
        f"{city.name} is named as {c.name}'s largest city",
        {
            "kind": "mentions",
            "value": city.name,
            "context": LARGEST_WORDS,
            "subject": c.name,
            "others": _other_cities(c, city.name),
        },
        f"The largest city of {c.name} listed by GeoNames is {city.name}",
        c.url,
        {
            "kind": "source_supports",
            "value": city.name,
            "context": LARGEST_WORDS,
            "subject": c.name,
        },
    )


def city_population_fact(city: City, role: str) -> Fact:
    text = number(city.population)
    return Fact(
        f"{slugify(role)}_population",
        city.name,
        f"the population GeoNames records for {role}",
        f"{city.name}'s GeoNames population, {text}, is given",
        {
            "kind": "number",
            "value": city.population,
            "tolerance_rel": 0.01,
            "context": POPULATION_WORDS,
            "subject": city.name,
        },
        f"GeoNames records a population of {text} for {city.name}",
        city.url,
        {
            "kind": "source_supports",
            "value": city.population,
            "context": POPULATION_WORDS,
            "subject": city.name,
        },
    )


def neighbours_fact(kg: KnowledgeGraph, c: Country) -> Fact:
    names = [n.name for n in kg.neighbours(c)]
    fact = Fact(
        "neighbours",
        c.name,
        "every country it borders according to GeoNames",
        f"{c.name}'s neighbours are listed",
        {},
        f"{c.name} borders {listing(names)}",
        c.url,
        {
            "kind": "source_supports",
            "value": names[0],
            "list": True,
            "context": BORDER_WORDS,
            "subject": c.name,
        },
    )
    fact.leaves = [
        {
            "id": f"borders_{slugify(n)}",
            "description": f"{n} is named as a neighbour",
            "critical": False,
            "check": {
                "kind": "mentions",
                "value": n,
                "list": True,
                "context": BORDER_WORDS,
                "subject": c.name,
            },
        }
        for n in names
    ]
    return fact


def _other_cities(c: Country, name: str) -> list[str]:
    """The country's other named cities: what a wrong capital or largest city would be."""
    cities = [city.name for city in c.largest_cities]
    if c.capital:
        cities.append(c.capital)
    return sorted({city for city in cities if city != name})


def country_facts(kg: KnowledgeGraph, c: Country) -> list[Callable[[], Fact]]:
    """The facts this country's pages can support, as builders."""
    found: list[Callable[[], Fact]] = []
    if c.capital:
        found.append(lambda: capital_fact(c))
    if c.population:
        found.append(lambda: population_fact(c))
    if c.area:
        found.append(lambda: area_fact(c))
    if c.currency_code and c.currency_name:
        found.append(lambda: currency_fact(c))
    if c.largest_city and c.largest_city.name != c.capital:
        found.append(lambda: largest_city_fact(c))
    if c.capital_city:
        found.append(lambda: city_population_fact(c.capital_city, "its capital"))  # type: ignore[arg-type]
    if 2 <= len(kg.neighbours(c)) <= 8:
        found.append(lambda: neighbours_fact(kg, c))
    return found


# ---------------------------------------------------------------- tree building blocks
def leaf(id_: str, description: str, check: dict[str, Any], critical: bool) -> dict[str, Any]:
    return {"id": id_, "description": description, "critical": critical, "check": check}


def group(
    id_: str,
    description: str,
    children: list[dict[str, Any]],
    *,
    critical: bool = False,
    strategy: str = "parallel",
) -> dict[str, Any]:
    return {
        "id": id_,
        "description": description,
        "critical": critical,
        "strategy": strategy,
        "children": children,
    }


def fact_leaves(fact: Fact, prefix: str, *, sources: bool) -> list[dict[str, Any]]:
    base = f"{prefix}{fact.key}"
    out = list(fact.leaves) if fact.leaves else [leaf(base, fact.description, fact.check, False)]
    if fact.leaves:
        out = [dict(n, id=f"{prefix}{n['id']}") for n in fact.leaves]
    if sources and fact.source_check:
        out.append(
            leaf(
                f"{base}_sourced",
                f"A cited page states {fact.ask.removeprefix('its ')} of {fact.subject}",
                fact.source_check,
                False,
            )
        )
    return out


def write_answer(facts: Sequence[Fact], *, alt: bool = False, exact: str = "") -> str:
    """Markdown: one sentence per fact with a numbered citation, then the committed answer's
    line `Exact answer: …` (quest.rubric.commitment) when `exact` is given, then the
    reference list."""
    refs: list[str] = []
    lines = []
    for fact in facts:
        url = (fact.alt_url or fact.url) if alt else fact.url
        if not url:
            lines.append(fact.sentence + ".")
            continue
        if url not in refs:
            refs.append(url)
        for sentence in fact.sentence.split(SENTENCE_BREAK):
            lines.append(f"{sentence} [{refs.index(url) + 1}].")
    body = " ".join(lines)
    if exact:
        body = f"{body}\n\n{EXACT_LABEL} {exact}"
    listed = "\n".join(f"[{i}] {url}" for i, url in enumerate(refs, start=1))
    return f"{body}\n\n{listed}" if refs else body


def max_chars(reference: str) -> int:
    """The longest answer an identity leaf accepts: LENGTH_FACTOR times the reference answer,
    at least MIN_CHARS. A dossier of every candidate's facts is never the best strategy."""
    return max(MIN_CHARS, LENGTH_FACTOR * len(reference))


def oracle(
    family: str, answers: Sequence[str], facts: Sequence[Fact], distractors: Sequence[str]
) -> dict[str, Any]:
    """The ground truth of a task for the red-team's oracle (quest.synthesis.oracle)."""
    return {
        "family": family,
        "answers": list(answers),
        "facts": [
            {"subject": f.subject, "relation": f.key, "value": f.check.get("value")}
            for f in facts
            if f.check.get("value") is not None
        ],
        "distractors": list(distractors),
    }
