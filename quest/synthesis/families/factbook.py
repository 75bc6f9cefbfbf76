"""Facts of the domain graph (quest.synthesis.kg_domains) as tasks state, check and answer them.

Each builder words its sentence the way the fact's page words it, so the reward's citation check
(quest.rubric.support) finds it there: "The official language of Spain is Spanish" on the
languages page of Spain, "Oxygen was discovered in 1774" on oxygen's page. A builder returns
None where the graph has no single value, or the page words it in a way the check cannot read
(melting points in kelvin, a highest airport named only as "the highest of them"): such a fact
is never asked.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

from quest.corpus.domains import Fact as GraphFact
from quest.corpus.text import number
from quest.rubric.documents import Document
from quest.rubric.support import page_support
from quest.synthesis.facts import SENTENCE_BREAK, Fact, leaf
from quest.synthesis.kg_domains import DomainGraph

# A figure a task compares or asks, with the words a check needs and how the page says it.
FIGURES: dict[str, tuple[str, list[str], str]] = {
    # relation: (what the question asks, context words, sentence template)
    "density": ("density", ["density"], "The density of {name} is {value} g/cm³"),
    # Its element page and its Wikipedia page both state it (quest.synthesis.narrative).
    "atomic_number": ("atomic number", ["atomic"], "The atomic number of {name} is {value}"),
    "atomic_weight": (
        "standard atomic weight",
        ["weight"],
        "The standard atomic weight of {name} is {value}",
    ),
    "discovery_year": ("discovery year", ["discovered"], "{name} was discovered in {value}"),
    "statehood_year": ("year of statehood", ["state"], "{name} became a state in {value}"),
    "elevation": (
        "elevation in feet",
        ["elevation"],
        "The elevation of {name} is {value} feet above sea level",
    ),
    "subdivision_count": (
        "number of first-level ISO 3166-2 subdivisions",
        ["subdivisions"],
        "{name} has {value} first-level subdivisions in ISO 3166-2",
    ),
    "public_holiday_count": (
        "number of public holidays in 2026",
        ["holidays"],
        "In 2026, {name} has {value} public holidays",
    ),
}


def on_page(graph: DomainGraph, fact: Fact | None) -> Fact | None:
    """`fact` where its page states each of its sentences (quest.rubric.support, the check a
    cited sentence meets), else None: a sentence the reader cannot find there is never asked."""
    if fact is None:
        return None
    page = graph.pages.get(fact.url)
    if page is None:
        return fact  # a graph built without its pages (tests of the graph alone)
    sentences = fact.sentence.split(SENTENCE_BREAK)
    return fact if all(_supported(s, page) for s in sentences) else None


@functools.lru_cache(maxsize=65_536)
def _supported(sentence: str, page: Document) -> bool:
    return page_support(sentence, page).supported


def _figure(value: float) -> str:
    """As the pages write figures: 13,355; 7.87; 0.00008988 (never 8.988e-05)."""
    if float(value).is_integer():
        return number(value)
    return f"{value:,.10f}".rstrip("0")


def _graph_fact(graph: DomainGraph, entity_id: str, relation: str) -> GraphFact | None:
    found = graph.facts_of(entity_id, relation)
    return found[0] if len(found) == 1 else None


def figure_fact(graph: DomainGraph, entity_id: str, relation: str) -> Fact | None:
    """A number of an entity ("The density of Iron is 7.87 g/cm³"), or None."""
    stated = _graph_fact(graph, entity_id, relation)
    if stated is None or isinstance(stated.value, str) or relation not in FIGURES:
        return None
    if 0 < abs(stated.value) < 0.01:
        return None  # a gas's density: the checks read 0.00008988 as another figure
    name = graph.entity(entity_id).name
    ask, context, template = FIGURES[relation]
    value = stated.value
    shown = str(value) if "year" in relation else _figure(value)
    check: dict[str, Any] = {"kind": "number", "value": value, "context": context, "subject": name}
    if not float(value).is_integer():
        check["tolerance_rel"] = 0.001
    return on_page(
        graph,
        Fact(
            relation,
            name,
            f"its {ask}",
            f"{name}'s {ask}, {shown}, is given",
            check,
            template.format(name=name, value=shown),
            stated.url,
            {"kind": "source_supports", "value": value, "context": context, "subject": name},
        ),
    )


def link_fact(
    graph: DomainGraph, subject: str, target: str, relation: str, *, key: str = ""
) -> Fact | None:
    """The hop from `subject` to `target` through `relation`, worded as the page says it."""
    name, other = graph.entity(subject).name, graph.entity(target).name
    words = _LINKS.get(relation)
    stated = [f for f in graph.facts_of(subject, relation) if f.value == target]
    if words is None or not stated:
        return None
    ask, context, template, bound = words
    check: dict[str, Any] = {"kind": "mentions", "value": other, "context": context}
    if bound:
        check["subject"] = name
    sentence = template.format(name=name, other=other)
    return on_page(
        graph,
        Fact(
            key or relation,
            name,
            ask,
            f"{other} is named as {ask.removeprefix('its ')} of {name}",
            check,
            sentence,
            stated[0].url,
            {**check, "kind": "source_supports"},
        ),
    )


# relation: (ask, context, sentence, bind the value to the subject)
_LINKS: dict[str, tuple[str, list[str], str, bool]] = {
    "official_language": (
        "its official language",
        ["language"],
        "The official language of {name} is {other}",
        True,
    ),
    "official_in": (
        "the other country where it is official",
        ["official"],
        "{name} is an official language of {other}",
        False,
    ),
    "discovered_in": (
        "the country it was discovered in",
        ["discovered"],
        "{name} was discovered in {other}",
        True,
    ),
    "located_in": ("the country it is in", ["airport"], "{name} is an airport in {other}", False),
}


def highest_airport_fact(graph: DomainGraph, country: str) -> Fact | None:
    """The highest airport the corpus keeps for a country; the country page says it as "The
    highest of them is …", after "This corpus keeps N airports in …"."""
    airport = graph.value(country, "highest_airport")
    count = graph.value(country, "airport_count")
    stated = _graph_fact(graph, country, "highest_airport")
    if not isinstance(airport, str) or not isinstance(count, int) or stated is None:
        return None
    elevation = graph.value(airport, "elevation")
    if not isinstance(elevation, int) or count < 2:
        return None
    name, place = graph.entity(airport).name, graph.entity(country).name
    check: dict[str, Any] = {"kind": "mentions", "value": name, "context": ["highest"]}
    return on_page(
        graph,
        Fact(
            "highest_airport",
            place,
            "its highest airport",
            f"{name} is named as the highest airport of {place}",
            check,
            f"The corpus keeps {count} airports in {place}{SENTENCE_BREAK}"
            f"The highest of them is {name} at {number(elevation)} feet",
            stated.url,
            {**check, "kind": "source_supports"},
        ),
    )


def holiday_date_fact(graph: DomainGraph, holiday: str) -> Fact | None:
    """ "Labor Day is a public holiday in Bolivia on Friday, 1 May 2026"."""
    day = graph.value(holiday, "date")
    country = graph.linked(holiday, "observed_in")
    if not isinstance(day, str) or len(country) != 1:
        return None
    when = datetime.date.fromisoformat(day)
    shown = f"{when:%A}, {when.day} {when:%B %Y}"
    name, place = graph.entity(holiday).name, country[0].name
    check: dict[str, Any] = {"kind": "mentions", "value": f"{when.day} {when:%B %Y}"}
    return on_page(
        graph,
        Fact(
            "date",
            name,
            "its date in 2026",
            f"The date of {name} in {place}, {shown}, is given",
            check,
            f"{name} is a public holiday in {place} on {shown}",
            graph.entity(holiday).url,
            {**check, "kind": "source_supports"},
        ),
    )


def speakers_fact(graph: DomainGraph, language: str, country: str) -> Fact | None:
    """ "In Bolivia, about 3,940,000 people speak Quechua", on the language's page."""
    stated = [f for f in graph.facts_of(language, "speakers") if f.qualifier == country]
    if len(stated) != 1 or not isinstance(stated[0].value, int) or stated[0].value < 1000:
        return None
    name, place = graph.entity(language).name, graph.entity(country).name
    value = stated[0].value
    check: dict[str, Any] = {
        "kind": "number",
        "value": value,
        "context": ["speak", "people"],
        "subject": name,
        "tolerance_rel": 0.001,
    }
    return on_page(
        graph,
        Fact(
            "speakers",
            name,
            f"its estimated number of speakers in {place}",
            f"{name}'s estimated number of speakers in {place}, {number(value)}, is given",
            check,
            f"In {place}, about {number(value)} people speak {name}",
            stated[0].url,
            {
                "kind": "source_supports",
                "value": value,
                "context": ["speak", "people"],
                "subject": name,
            },
        ),
    )


def official_languages_fact(graph: DomainGraph, country: str) -> Fact | None:
    """ "The official languages of Bolivia are Spanish, Quechua and Aymara" (two or more); the
    check asks for the last one named, as an item of the list."""
    stated = graph.facts_of(country, "official_language")
    names = [graph.entity(str(f.value)).name for f in stated if str(f.value) in graph.entities]
    if len(names) < 2 or len(set(names)) != len(names) or len({f.url for f in stated}) != 1:
        return None
    place = graph.entity(country).name
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    check: dict[str, Any] = {
        "kind": "mentions",
        "value": names[-1],
        "context": ["official"],
        "subject": place,
        "list": True,
    }
    return on_page(
        graph,
        Fact(
            "official_languages",
            place,
            "its official languages",
            f"{names[-1]} is named among the official languages of {place}",
            check,
            f"The official languages of {place} are {listed}",
            stated[0].url,
            {**check, "kind": "source_supports"},
        ),
    )


def operand_leaves(fact: Fact, index: int, sources: bool) -> list[dict[str, Any]]:
    """The leaves of the index-th entity's fact in a comparison or an aggregation: its claim
    check and, with `sources`, a leaf asking a cited page to state it."""
    out = [leaf(f"e{index}_{fact.key}", fact.description, fact.check, False)]
    if sources and fact.source_check:
        out.append(
            leaf(
                f"e{index}_{fact.key}_sourced",
                f"A cited page states {fact.ask.removeprefix('its ')} of {fact.subject}",
                fact.source_check,
                False,
            )
        )
    return out
