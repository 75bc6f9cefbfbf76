"""Chain tasks (class D3): hops from a named country, each nested in the one it depends on.

From a start country: its most populous neighbour, where both sources agree which that is
(and, for four hops, that country's most populous other neighbour), then the last country's
capital or largest city, then that city's GeoNames population. Each hop's entity is critical,
so a wrong hop zeroes every hop below it; extra facts about the first neighbour widen the first
hop to the breadth class asked for.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from quest.corpus.text import listing, number
from quest.synthesis.facts import (
    EXACT_ASK,
    MOST_POPULOUS_WORDS,
    Draft,
    Fact,
    Unbuildable,
    capital_fact,
    city_population_fact,
    country_facts,
    fact_leaves,
    group,
    largest_city_fact,
    leaf,
    oracle,
    population_fact,
)
from quest.synthesis.kg import Country, KnowledgeGraph


class ChainWorld(Protocol):
    """What a chain reads of the synthesizer that drafts it (quest.synthesis.kgsynth): the
    graph, the countries with a page, how often each was a task's subject, and which pages the
    corpus holds."""

    kg: KnowledgeGraph
    countries: list[Country]
    used: Counter[str]
    has_page: Callable[[str], bool]


def chain_draft(synth: ChainWorld, breadth: int, rng: random.Random) -> Draft:
    hops = 4 if breadth == 3 else rng.choice((3, 4))
    reasons = []
    starts = sorted(synth.countries, key=lambda c: (synth.used[c.iso], rng.random()))
    for start in starts[:40]:
        try:
            return _chain_from(synth, start, hops, breadth, rng)
        except Unbuildable as exc:
            reasons.append(str(exc))
    raise Unbuildable("; ".join(reasons[:3]))


def _chain_from(
    synth: ChainWorld, start: Country, hops: int, breadth: int, rng: random.Random
) -> Draft:
    path: list[Country] = [start]
    steps: list[tuple[str, Country]] = []
    for _ in range(hops - 2):
        nxt = _most_populous_neighbour(synth, path[-1], exclude={c.iso for c in path})
        if nxt is None:
            raise Unbuildable(f"{path[-1].name}: no neighbour is the most populous by both sources")
        path.append(nxt)
        steps.append(("neighbour", nxt))
    last = path[-1]
    city_kind = (
        "capital" if last.capital_city and synth.has_page(last.capital_city.url) else "largest"
    )
    city = last.capital_city if city_kind == "capital" else last.largest_city
    if city is None or not synth.has_page(city.url):
        raise Unbuildable(f"{last.name}: no page for its capital or largest city")
    # Extra facts widen the first hop to the class's breadth.
    extra_n = {1: 0, 2: rng.randint(1, 3), 3: 4}[breadth]
    first = path[1]
    extras = [b() for b in country_facts(synth.kg, first)]
    extras = [
        f
        for f in extras
        if f.key
        in {
            "area",
            "currency",
            "largest_city",
            "capital",
            "capital_population",
            "its_capital_population",
        }
        and synth.has_page(f.url)
    ]
    if first is last:  # the city hop asks about it already
        extras = [
            f
            for f in extras
            if f.key
            not in (
                {"capital", "its_capital_population"}
                if city_kind == "capital"
                else {"largest_city"}
            )
        ]
    extras = extras[:extra_n]
    if len(extras) < extra_n:
        raise Unbuildable(f"{first.name}: not enough supported facts to widen the chain")
    facts: list[Fact] = []
    node: dict[str, Any] | None = None
    # Build from the innermost hop outwards.
    pop = city_population_fact(city, city.name)
    pop.key = "city_population"
    inner = group(
        f"hop_{hops}",
        f"Hop {hops}: {city.name}'s GeoNames population is given",
        fact_leaves(pop, f"h{hops}_", sources=True),
    )
    city_fact = capital_fact(last) if city_kind == "capital" else largest_city_fact(last)
    node = group(
        f"hop_{hops - 1}",
        f"Hop {hops - 1}: {last.name}'s "
        f"{'capital' if city_kind == 'capital' else 'largest city'}, {city.name}",
        [
            leaf(f"h{hops - 1}_city", city_fact.description, city_fact.check, True),
            *fact_leaves(city_fact, f"h{hops - 1}_", sources=True)[1:],
            inner,
        ],
    )
    for index in range(len(steps), 0, -1):
        _, country = steps[index - 1]
        before = path[index - 1]
        named = leaf(
            f"h{index}_country",
            f"{country.name} is named as the most populous neighbour of {before.name}",
            {
                "kind": "mentions",
                "value": country.name,
                "context": MOST_POPULOUS_WORDS,
                "subject": before.name,
                "others": sorted(
                    n.name for n in synth.kg.neighbours(before) if n.name != country.name
                ),
            },
            True,
        )
        pop_fact = population_fact(country)
        # B1 keeps every layer at three nodes or fewer: no source leaf on these hops.
        children = [named, *fact_leaves(pop_fact, f"h{index}_", sources=breadth > 1)]
        if index == 1:
            children += [n for f in extras for n in fact_leaves(f, "h1_", sources=True)]
        node = group(
            f"hop_{index}",
            f"Hop {index}: the most populous neighbour of {before.name}, {country.name}",
            [*children, node],
        )
    # The city the chain ends on is the committed answer: an answer that commits to none, or
    # to another, earns nothing for the hops it wrote out (quest.rubric.commitment).
    final = leaf(
        "answer",
        f"The answer commits to {city.name} as the city the chain ends on",
        {
            "kind": "mentions",
            "value": city.name,
            "committed": True,
            "others": sorted({c.name for c in last.largest_cities} - {city.name}),
        },
        True,
    )
    root = group("root", "", [final, node], strategy="sequential")
    for index, (_, country) in enumerate(steps, start=1):
        before = path[index - 1]
        facts.append(
            Fact(
                "border",
                country.name,
                "",
                "",
                {},
                f"{before.name} borders {country.name}",
                before.url,
            )
        )
        facts.append(population_fact(country))
        facts.append(
            Fact(
                "ranking",
                country.name,
                "",
                "",
                {},
                f"{country.name} is the most populous of {before.name}'s neighbours",
                "",
            )
        )
    facts += extras
    facts += [city_fact, pop]
    question = _chain_question(path, city_kind, extras, rng)
    solution = {
        c.name: {
            "description": f"Hop {i}: the most populous neighbour of {path[i - 1].name} "
            f"(GeoNames population {c.population_text()}).",
            "reference_urls": [c.url],
        }
        for i, c in enumerate(path[1:], start=1)
    }
    solution[city.name] = {
        "description": f"The {'capital' if city_kind == 'capital' else 'largest city'} of "
        f"{last.name}; GeoNames population {number(city.population)}.",
        "reference_urls": [last.url, city.url],
    }
    alt = list(reversed(facts))
    distractors = sorted(
        {c.name for hop in path for c in hop.largest_cities} - {city.name}
        | ({last.capital} - {city.name} if last.capital else set())
    )
    return Draft(
        "chain",
        question,
        root,
        facts,
        solution,
        (*tuple(c.iso for c in path), city_kind),
        [alt],
        subjects=tuple(c.iso for c in path),
        exact=city.name,
        oracle={
            **oracle("chain", [city.name], [f for f in facts if f.check], distractors),
            "path": [c.name for c in path],
        },
    )


def _most_populous_neighbour(synth: ChainWorld, c: Country, exclude: set[str]) -> Country | None:
    options = [n for n in synth.kg.neighbours(c) if n.iso not in exclude and synth.has_page(n.url)]
    if not options:
        return None
    options.sort(key=lambda n: -n.population)
    best = options[0]
    if len(options) > 1 and best.population < options[1].population * 1.05:
        return None  # too close to call
    rivals = [n for n in options[1:] if n.ci_population]
    if best.ci_population and any(n.ci_population >= best.ci_population for n in rivals):
        return None  # countryinfo ranks another first
    return best


def _chain_question(
    path: list[Country], city_kind: str, extras: list[Fact], rng: random.Random
) -> str:
    start = path[0]
    parts = [rng.choice((f"Start from {start.name}.", f"Begin with {start.name}."))]
    for i in range(1, len(path)):
        of = "it" if i == 1 else "that country"
        parts.append(
            rng.choice(
                (
                    f"Find the most populous country that borders {of} "
                    "(by GeoNames population, which you should state).",
                    f"Take the neighbour of {of} with the largest population according to "
                    "GeoNames, and give that population.",
                )
            )
        )
    city = "capital" if city_kind == "capital" else "largest city listed by GeoNames"
    parts.append(
        f"Name the {city} of the last country you reached, and give the "
        "population GeoNames records for that city."
    )
    if extras:
        parts.append(
            f"For the first neighbour you found, also give {listing([f.ask for f in extras])}."
        )
    parts.append("Cite a page for every fact." + EXACT_ASK.format(what="<city>"))
    return " ".join(parts)
