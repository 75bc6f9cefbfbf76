"""Open-ended tasks (QUEST-SPEC §4), offline: report-writing tasks over the knowledge graph,
their criteria and a reference report.

A task asks for a short cited report (the countries around a country; the countries sharing a
currency in a region). Its criteria are facts the report must cover and conclusions it must
draw, each with a claim-level check, in QUEST's four dimensions:

- comprehensiveness: each country's capital and GeoNames population;
- insight: the comparisons (which is most populous, which share the currency);
- instruction_following: every country asked about is covered, and facts are cited;
- readability: organised in paragraphs or a list, under MAX_WORDS words (format checks).

Dimension weights are drawn three times and averaged (sum 1), criteria weights sum to 1 in each
dimension. The tree stored with the task is the criteria as a weighted tree (dimension nodes
weighted W_d, criteria weighted w), so the probes and the audit read it like any other.

Relative scoring against the reference, and criteria written by a model, are in
quest.synthesis.criteria.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.corpus.text import listing
from quest.rubric.ids import slugify
from quest.rubric.model import FORMAT
from quest.synthesis.facts import (
    LARGEST_WORDS,
    Fact,
    Unbuildable,
    capital_fact,
    population_fact,
    write_answer,
)
from quest.synthesis.kg import Country, KnowledgeGraph

DIMENSIONS = ("comprehensiveness", "insight", "instruction_following", "readability")
MAX_WORDS = 600
SCORER_NAME = "deterministic coverage-and-citation scorer"
MAX_COUNTRIES = 8
POPULATIONS = "A comparison the report must draw from the populations."
CURRENCIES = "A comparison of currencies the report must draw."


def leaf_id(criterion: dict[str, Any], index: int) -> str:
    """The tree id of the `index`-th criterion."""
    return f"{criterion['dimension'][:5]}_{index}_{slugify(criterion['criterion'])[:40]}"


@dataclass
class OpenEndedDraft:
    family: str
    question: str
    triple: dict[str, str]
    dimension_weights: dict[str, float]
    criteria: list[dict[str, Any]]  # {dimension, criterion, explanation, weight, check, fact?}
    facts: list[Fact]
    solution: dict[str, dict[str, Any]]
    entities: tuple[str, ...]
    subjects: tuple[str, ...]
    alternative: list[Fact] = field(default_factory=list)

    def tree(self) -> dict[str, Any]:
        children = []
        for dimension in DIMENSIONS:
            leaves = [
                {
                    "id": leaf_id(c, i),
                    "description": c["criterion"],
                    "critical": False,
                    "weight": c["raw"],
                    "check": c["check"],
                }
                for i, c in enumerate(self.criteria)
                if c["dimension"] == dimension
            ]
            if leaves:
                children.append(
                    {
                        "id": dimension,
                        "description": dimension.replace("_", " "),
                        "critical": False,
                        "strategy": "parallel",
                        "weight": round(self.dimension_weights[dimension] * 1000),
                        "children": leaves,
                    }
                )
        root = {
            "id": "root",
            "description": self.question,
            "critical": False,
            "strategy": "parallel",
            "children": children,
        }
        return {
            "format": FORMAT,
            "scoring": "weighted",
            "task_description": self.question,
            "root": root,
        }


def dimension_weights(rng: random.Random) -> dict[str, float]:
    """Drawn three times and averaged, as QUEST samples them, rounded to sum exactly 1."""
    draws = []
    for _ in range(3):
        raw = [rng.uniform(0.5, 1.5) * base for base in (0.4, 0.3, 0.2, 0.1)]
        draws.append([r / sum(raw) for r in raw])
    mean = [round(sum(d[i] for d in draws) / 3, 3) for i in range(4)]
    mean[0] = round(1 - sum(mean[1:]), 3)
    return dict(zip(DIMENSIONS, mean, strict=True))


def normalise(criteria: list[dict[str, Any]]) -> None:
    for dimension in DIMENSIONS:
        group = [c for c in criteria if c["dimension"] == dimension]
        total = sum(c["raw"] for c in group)
        for c in group:
            c["raw"] = int(c["raw"])  # the tree's integer weight
            c["weight"] = round(c["raw"] / total, 4)


def _most_populous(country: Country, identified_as: str, sentence: str) -> Fact:
    """The ranking fact: `country` is the most populous of those the report covers."""
    return Fact(
        "ranking",
        country.name,
        "",
        f"{country.name} is identified as the {identified_as}",
        {"kind": "mentions", "value": country.name, "context": LARGEST_WORDS},
        sentence,
        "",
    )


def _solution(
    countries: Sequence[Country], described: Callable[[Country], str]
) -> dict[str, dict[str, Any]]:
    """The reference solution: what it says of each country, citing the country's page."""
    return {c.name: {"description": described(c), "reference_urls": [c.url]} for c in countries}


def _readability() -> list[dict[str, Any]]:
    return [
        {
            "dimension": "readability",
            "criterion": "The report is organised in paragraphs or a list",
            "explanation": "A format check: a blank line or list items.",
            "raw": 1.0,
            "check": {"kind": "regex", "pattern": r"\n\s*\n|\n\s*(?:[-*]|\d+\.)\s", "raw": True},
        },
        {
            "dimension": "readability",
            "criterion": f"The report stays under {MAX_WORDS} words",
            "explanation": "A format check on length.",
            "raw": 1.0,
            "check": {
                "kind": "regex",
                "pattern": rf"^\s*(?:\S+\s+){{0,{MAX_WORDS - 1}}}\S*\s*$",
                "raw": True,
            },
        },
    ]


def _fact_criteria(
    fact: Fact, dimension: str, raw: float = 1.0, *, comparison: str = ""
) -> dict[str, Any]:
    """A criterion for a fact (its page should be cited), or, with `comparison`, for a
    conclusion the report draws (no page states it)."""
    return {
        "dimension": dimension,
        "criterion": fact.description,
        "raw": raw,
        "explanation": comparison
        or f"Stated as a claim; a cited page should state it ({fact.url}).",
        "check": fact.check,
        "fact_url": "" if comparison else fact.url,
    }


def triple(countries: int, comparisons: int, pages: int) -> dict[str, str]:
    return {
        "conceptual_breadth": "Simple"
        if countries <= 3
        else "Moderate"
        if countries <= 5
        else "High",
        "logical_nesting": "Shallow"
        if comparisons == 0
        else "Intermediate"
        if comparisons == 1
        else "Deep",
        "exploration": "Low" if pages <= 3 else "Medium" if pages <= 6 else "High",
    }


class OpenEndedSynthesizer:
    def __init__(self, kg: KnowledgeGraph | None = None, *, has_page: Any) -> None:
        self.kg = kg or KnowledgeGraph.load()
        self.has_page = has_page
        self.countries = [
            c
            for c in sorted(self.kg.countries.values(), key=lambda c: c.iso)
            if has_page(c.url) and c.capital
        ]

    def draft(self, rng: random.Random) -> OpenEndedDraft:
        if rng.random() < 0.5:
            return self._neighbourhood(rng)
        return self._currency_area(rng)

    def _neighbourhood(self, rng: random.Random) -> OpenEndedDraft:
        for centre in rng.sample(self.countries, len(self.countries)):
            around = [n for n in self.kg.neighbours(centre) if n in self.countries]
            if 3 <= len(around) <= MAX_COUNTRIES and set(n.iso for n in around) <= set(
                centre.neighbours
            ):
                break
        else:
            raise Unbuildable("no country with 3 to 8 neighbours that have pages")
        biggest = max(around, key=lambda n: n.population)
        sharing = [n for n in around if n.currency_code == centre.currency_code]
        names = [n.name for n in around]
        question = rng.choice(
            (
                f"Write a short cited briefing on the countries that border {centre.name}: for "
                "each, give its capital and its population according to GeoNames, say which of "
                "them is the most populous, and which (if any) use the same currency as "
                f"{centre.name}.",
                f"Prepare an overview of {centre.name}'s neighbours. Cover every bordering "
                "country with its capital and GeoNames population, identify the most populous "
                f"neighbour, and note which neighbours share {centre.name}'s currency. Cite your "
                "sources.",
            )
        )
        facts, criteria = self._country_criteria(around)
        border = Fact(
            "border", centre.name, "", "", {}, f"{centre.name} borders {listing(names)}", centre.url
        )
        ranking = _most_populous(
            biggest, "most populous neighbour", f"Of these, {biggest.name} is the most populous"
        )
        criteria.append(_fact_criteria(ranking, "insight", 2.0, comparison=POPULATIONS))
        currency = self._currency_fact(centre, sharing)
        criteria.append(_fact_criteria(currency, "insight", comparison=CURRENCIES))
        self._finish(criteria, names, [centre.url, *(n.url for n in around)])
        ordered = [border, *facts, ranking, currency]
        solution = _solution(
            around,
            lambda n: (
                f"Borders {centre.name}; capital {n.capital}; "
                f"GeoNames population {n.population_text()}."
            ),
        )
        return OpenEndedDraft(
            "neighbourhood",
            question,
            triple(len(around), 2, len(around) + 1),
            dimension_weights(rng),
            criteria,
            ordered,
            solution,
            ("open", "neighbourhood", centre.iso),
            (centre.iso,),
            [border, *reversed(facts), ranking, currency],
        )

    def _currency_area(self, rng: random.Random) -> OpenEndedDraft:
        groups: dict[tuple[str, str], list[Country]] = {}
        for c in self.countries:
            if c.currency_code:
                groups.setdefault((c.continent, c.currency_code), []).append(c)
        options = sorted(k for k, v in groups.items() if 3 <= len(v) <= MAX_COUNTRIES)
        if not options:
            raise Unbuildable("no currency shared by 3 to 8 countries of one continent")
        continent, code = rng.choice(options)
        members = groups[(continent, code)]
        biggest = max(members, key=lambda c: c.population)
        smallest = min(members, key=lambda c: c.population)
        names = [c.name for c in members]
        question = (
            f"Which countries of {continent} use the currency with ISO code {code}? Write a short "
            "cited report covering each one's capital and GeoNames population, and say which of "
            "them is the most populous and which the least populous."
        )
        facts, criteria = self._country_criteria(members)
        ranking = _most_populous(
            biggest, "most populous", f"{biggest.name} is the most populous of them"
        )
        least = Fact(
            "least",
            smallest.name,
            "",
            f"{smallest.name} is identified as the least populous",
            {
                "kind": "mentions",
                "value": smallest.name,
                "context": ["least populous", "smallest", "fewest"],
            },
            f"{smallest.name} is the least populous of them",
            "",
        )
        criteria += [_fact_criteria(f, "insight", comparison=POPULATIONS) for f in (ranking, least)]
        uses = [
            Fact("uses", c.name, "", "", {}, f"The currency of {c.name} is {code}", c.url)
            for c in members
        ]
        self._finish(criteria, names, [c.url for c in members])
        solution = _solution(
            members,
            lambda c: (
                f"Uses {code}; capital {c.capital}; GeoNames population {c.population_text()}."
            ),
        )
        return OpenEndedDraft(
            "currency_area",
            question,
            triple(len(members), 1, len(members)),
            dimension_weights(rng),
            criteria,
            [*uses, *facts, ranking, least],
            solution,
            ("open", "currency", continent, code),
            tuple(c.iso for c in members),
            [*reversed(uses), *facts, least, ranking],
        )

    def _country_criteria(
        self, countries: Sequence[Country]
    ) -> tuple[list[Fact], list[dict[str, Any]]]:
        facts: list[Fact] = []
        criteria: list[dict[str, Any]] = []
        for c in countries:
            for fact in (capital_fact(c), population_fact(c)):
                facts.append(fact)
                criteria.append(_fact_criteria(fact, "comprehensiveness"))
        return facts, criteria

    def _currency_fact(self, centre: Country, sharing: Sequence[Country]) -> Fact:
        if sharing:
            return Fact(
                "sharing",
                centre.name,
                "",
                f"{listing([n.name for n in sharing])} named as sharing {centre.name}'s currency",
                {
                    "kind": "one_of",
                    "values": [n.name for n in sharing],
                    "list": True,
                    "at_least": len(sharing),
                    "context": ["currency", centre.currency_code],
                },
                f"{listing([n.name for n in sharing])} use the same currency as "
                f"{centre.name}, {centre.currency_code}",
                "",
            )
        return Fact(
            "sharing",
            centre.name,
            "",
            f"The report says no neighbour uses {centre.currency_code}",
            {"kind": "mentions", "value": centre.currency_code, "context": ["currency"]},
            f"{centre.name}'s currency is {centre.currency_code}, and none of its "
            "neighbours uses it",
            centre.url,
        )

    def _finish(self, criteria: list[dict[str, Any]], names: list[str], urls: list[str]) -> None:
        """Adds the criteria every report has (it covers `names`, cites `urls`, reads well),
        then weighs each dimension's criteria."""
        criteria += self._instruction(names, urls)
        criteria += _readability()
        normalise(criteria)

    def _instruction(self, names: list[str], urls: list[str]) -> list[dict[str, Any]]:
        return [
            {
                "dimension": "instruction_following",
                "raw": 2.0,
                "criterion": "Every country asked about is covered",
                "explanation": "All of " + listing(names) + ".",
                "check": {"kind": "one_of", "values": names, "list": True, "at_least": len(names)},
            },
            {
                "dimension": "instruction_following",
                "raw": 1.0,
                "criterion": "The report cites the pages its facts come from",
                "explanation": "At least one of the countries' pages is cited.",
                "check": {"kind": "cites_url", "urls": sorted(set(urls))},
            },
        ]


def open_ended_record(
    draft: OpenEndedDraft, subcategory: str, category: str, provenance: dict[str, Any]
) -> dict[str, Any]:
    return {
        "question": draft.question,
        "type": "open_ended",
        "category": category,
        "subcategory": subcategory,
        "rubric": draft.tree(),
        "solution": draft.solution,
        "reference_answer": write_answer(draft.facts),
        "provenance": {
            **provenance,
            "family": f"open_{draft.family}",
            "entities": list(draft.entities),
            "open_ended": {
                "complexity": draft.triple,
                "dimension_weights": draft.dimension_weights,
                "criteria": [
                    {
                        "id": leaf_id(c, i),
                        **{k: c[k] for k in ("dimension", "criterion", "explanation", "weight")},
                        "fact_url": c.get("fact_url", ""),
                    }
                    for i, c in enumerate(draft.criteria)
                ],
                "scorer": SCORER_NAME,
                "reference": "written from the knowledge graph's facts, with inline citations",
            },
        },
    }
