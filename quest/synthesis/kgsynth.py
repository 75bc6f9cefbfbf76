"""The offline knowledge-graph synthesizer: multi-constraint objective tasks with real answers.

Three task families, each laid out to the complexity class it was asked for (QUEST-SPEC §3):

- **lookup**: a country picked out by constraints that only it meets (continent, a neighbour,
  its currency, a population or area threshold both sources agree on, its number of
  neighbours), then facts about it (capital, population, area, currency, largest city, the
  capital's population, its neighbours). Flat (D1) or with the facts grouped (D2).
- **find k**: k countries meeting two constraints, where more than k do: item slots accept
  any valid country (non-exclusive), non-critical as QUEST's "k-th item" slots are.
- **chain** (D3): hops from a named country: its most populous neighbour (where both sources
  agree which that is), that country's capital or largest city, and that city's population,
  each hop nested in the one it depends on, its entity critical so a wrong hop zeroes the rest.

Every fact has a deterministic claim-level check (quest.rubric.claims), and a source leaf that
asks a cited page to state it (quest.rubric.support). The solution is written from the facts,
and the reference answer is written from the solution with a citation to the page of each
fact; the funnel (quest.synthesis.funnel) then scores it, probes it and checks that other
valid answers pass. A draft that cannot be built as asked returns its reason, never a guess.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.corpus.text import listing, number
from quest.rubric.ids import slugify
from quest.synthesis.kg import City, Country, KnowledgeGraph, agrees, robust_threshold
from quest.synthesis.seeds import CATEGORY_OF, class_shape

GENERATOR = "questweb kg synthesizer"
POPULATION_WORDS = ["population", "people", "inhabitants", "residents"]
CAPITAL_WORDS = ["capital"]
LARGEST_WORDS = ["largest", "biggest", "most populous"]
BORDER_WORDS = [
    "border",
    "borders",
    "bordering",
    "neighbour",
    "neighbours",
    "neighbor",
    "neighbors",
]
# The subcategories a geography fact can be framed for, with the framing sentence.
FRAMINGS: dict[str, tuple[str, ...]] = {
    "Travel & Accommodation": (
        "I am planning a long trip and want the basics straight before I book.",
        "For a travel guide I am writing:",
    ),
    "Outdoor & Recreation": ("Planning an overland expedition:",),
    "Ticketed Activities": ("Before buying tickets for a tour of the region:",),
    "General Info.": ("", "A geography question:"),
    "News": ("To check the background facts of a news story:",),
    "Legal & Government Services": ("For a briefing on foreign governments:",),
    "Real Estate": ("Comparing countries for a property investment:",),
    "Finance & Investment": ("For a currency and market overview:",),
    "Education & Learning": ("For a geography lesson:", "A quiz question for my students:"),
    "Jobs & Career": ("Considering a job posting abroad:",),
    "Research & Academia": ("For a comparative study of countries:",),
    "Books & Reading": ("Fact-checking a travel book:",),
    "Sports & Fitness": ("Planning a cycling tour across borders:",),
    "Food & Cooking": ("Researching regional cuisines, I first need the geography:",),
    "Shopping": ("Before ordering goods from abroad:",),
}
SUBCATEGORIES = tuple(FRAMINGS)
POPULATION_STEPS = (
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
)
SENTENCE_BREAK = "\n"  # between the sentences of one fact, each cited
AREA_STEPS = (10_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)


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


# ---------------------------------------------------------------- facts about one country
def capital_fact(c: Country) -> Fact:
    return Fact(
        "capital",
        c.name,
        "its capital",
        f"The capital of {c.name}, {c.capital}, is given",
        {"kind": "mentions", "value": c.capital, "context": CAPITAL_WORDS},
        f"The capital of {c.name} is {c.capital}",
        c.url,
        {"kind": "source_supports", "value": c.capital, "context": CAPITAL_WORDS},
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
        },
        f"The population of {c.name} is {c.population_text()} according to GeoNames",
        c.url,
        {"kind": "source_supports", "value": c.population},
    )


def area_fact(c: Country) -> Fact:
    return Fact(
        "area",
        c.name,
        "its area in square kilometres according to GeoNames",
        f"{c.name}'s GeoNames area, {c.area_text()} km², is given",
        {"kind": "number", "value": c.area, "tolerance_rel": 0.01, "context": ["area"]},
        f"The area of {c.name} is {c.area_text()} square kilometres according to GeoNames",
        c.url,
        {"kind": "source_supports", "value": c.area},
    )


def currency_fact(c: Country) -> Fact:
    return Fact(
        "currency",
        c.name,
        "the ISO code of its currency",
        f"{c.name}'s currency code, {c.currency_code}, is given",
        {"kind": "mentions", "value": c.currency_code, "context": ["currency"]},
        f"The currency of {c.name} is {c.currency_code}",
        c.url,
        {"kind": "source_supports", "value": c.currency_code, "context": ["currency"]},
    )


def largest_city_fact(c: Country) -> Fact:
    city = c.largest_city
    assert city is not None
    return Fact(
        "largest_city",
        c.name,
        "its largest city as listed by GeoNames",
        f"{city.name} is named as {c.name}'s largest city",
        {"kind": "mentions", "value": city.name, "context": LARGEST_WORDS},
        f"The largest city of {c.name} listed by GeoNames is {city.name}",
        c.url,
        {"kind": "source_supports", "value": city.name, "context": LARGEST_WORDS},
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
        },
        f"GeoNames records a population of {text} for {city.name}",
        city.url,
        {"kind": "source_supports", "value": city.population},
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
        {"kind": "source_supports", "value": names[0], "list": True, "context": BORDER_WORDS},
    )
    fact.leaves = [
        {
            "id": f"borders_{slugify(n)}",
            "description": f"{n} is named as a neighbour",
            "critical": False,
            "check": {"kind": "mentions", "value": n, "list": True, "context": BORDER_WORDS},
        }
        for n in names
    ]
    return fact


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


# ---------------------------------------------------------------- the synthesizer
class KGSynthesizer:
    """Drafts for a (subcategory, class) seed; deterministic for an rng."""

    def __init__(
        self, kg: KnowledgeGraph | None = None, *, has_page: Callable[[str], bool]
    ) -> None:
        self.kg = kg or KnowledgeGraph.load()
        self.has_page = has_page
        self.countries = [
            c
            for c in sorted(self.kg.countries.values(), key=lambda c: c.iso)
            if has_page(c.url) and c.capital
        ]
        self.used: Counter[str] = Counter()  # tasks drafted about each country, as main subject

    def _least_used(self, countries: Sequence[Country], rng: random.Random) -> Country:
        fewest = min(self.used[c.iso] for c in countries)
        return rng.choice([c for c in countries if self.used[c.iso] == fewest])

    def draft(self, subcategory: str, target: str, rng: random.Random) -> Draft:
        breadth, depth = class_shape(target)
        if depth == 3:
            made = self._chain(breadth, rng)
        elif rng.random() < 0.5 and breadth >= 2:
            made = self._find_k(breadth, depth, rng)
        else:
            made = self._lookup(breadth, depth, rng)
        self.used.update(made.subjects[:1])
        made.question = _frame(subcategory, made.question, rng)
        made.tree_root["description"] = made.question
        return made

    # lookup ------------------------------------------------------------------------------
    def _lookup(self, breadth: int, depth: int, rng: random.Random) -> Draft:
        target = self._least_used(self.countries, rng)
        builders = [b for b in country_facts(self.kg, target)]
        rng.shuffle(builders)
        facts = [b() for b in builders if self._facts_ok(b)]
        # Leaves per fact: 2 with a source leaf (neighbour lists: one per neighbour + 1).
        want = {
            (1, 1): 1,
            (1, 2): 1,
            (2, 1): rng.randint(2, 4),
            (2, 2): rng.randint(2, 4),
            (3, 1): 6,
            (3, 2): 6,
        }[(breadth, depth)]
        facts = [f for f in facts if f.key != "neighbours" or breadth == 3][:want]
        if len(facts) < want:
            raise Unbuildable(f"{target.name}: only {len(facts)} supported facts, {want} needed")
        clues, _ = self._identify(target, rng)
        identity = leaf(
            "identity",
            f"{target.name} is identified as the country",
            {"kind": "mentions", "value": target.name},
            True,
        )
        sources = not (breadth == 1 and depth == 1)
        if depth == 1:
            children = [identity] + [n for f in facts for n in fact_leaves(f, "", sources=sources)]
        else:
            children = [
                identity,
                group(
                    "facts",
                    f"The facts asked about {target.name} are right and sourced",
                    [n for f in facts for n in fact_leaves(f, "", sources=True)],
                ),
            ]
        asks = listing([f.ask for f in facts])
        question = (
            rng.choice(
                (
                    f"Which country {clues}? Give {asks}.",
                    f"Identify the country that {clues}, and report {asks}.",
                    f"There is exactly one country that {clues}. Name it and state {asks}.",
                )
            )
            + " Cite the pages you used."
        )
        root = group("root", question, children, strategy="sequential" if depth > 1 else "parallel")
        ident = Fact(
            "identity",
            target.name,
            "the country",
            "",
            {},
            f"The country is {target.name}",
            target.url,
            None,
            alt_url=target.ci_url if target.ci_name == target.name else "",
        )
        solution = {
            target.name: {
                "description": f"The only country that {clues}. "
                + "; ".join(f.sentence for f in facts)
                + ".",
                "reference_urls": sorted({f.url for f in [ident, *facts]}),
            }
        }
        alt = [ident, *reversed(facts)]
        return Draft(
            "lookup",
            question,
            root,
            [ident, *facts],
            solution,
            (target.iso, *sorted(f.key for f in facts)),
            [alt],
            subjects=(target.iso,),
        )

    def _facts_ok(self, builder: Callable[[], Fact]) -> bool:
        fact = builder()
        return self.has_page(fact.url)

    def _identify(self, target: Country, rng: random.Random) -> tuple[str, list[str]]:
        """Constraints (phrases) that only `target` meets among all countries."""
        options = self._clue_options(target, rng)
        everyone = [c for c in self.kg.countries.values() if c.continent == target.continent]
        pool = everyone
        chosen: list[tuple[str, str, Callable[[Country], bool]]] = []
        for option in options:
            if len(pool) == 1:
                break
            narrowed = [c for c in pool if option[2](c)]
            if target in narrowed and len(narrowed) < len(pool):
                pool = narrowed
                chosen.append(option)
        if pool != [target]:
            raise Unbuildable(f"no combination of constraints singles out {target.name}")
        # Drop the constraints the others make redundant: the question states no more than
        # it needs, and every constraint it states is checked by the identity leaf.
        for option in list(chosen):
            rest = [o for o in chosen if o is not option]
            if [c for c in everyone if all(o[2](c) for o in rest)] == [target]:
                chosen = rest
        phrases = [f"is in {target.continent}", *(o[1] for o in chosen)]
        return _join_clauses(phrases), ["continent", *(o[0] for o in chosen)]

    def _clue_options(
        self, t: Country, rng: random.Random
    ) -> list[tuple[str, str, Callable[[Country], bool]]]:
        options: list[tuple[str, str, Callable[[Country], bool]]] = []
        neighbours = self.kg.neighbours(t)
        if neighbours:
            n = rng.choice(neighbours)
            options.append(
                (
                    "borders",
                    rng.choice((f"borders {n.name}", f"shares a border with {n.name}")),
                    functools.partial(_borders, n.iso),
                )
            )
        if t.currency_code:
            options.append(
                (
                    "currency",
                    f"uses the currency with ISO code {t.currency_code}",
                    functools.partial(_uses, t.currency_code),
                )
            )
        for attribute, steps, unit in (
            ("population", POPULATION_STEPS, "inhabitants"),
            ("area", AREA_STEPS, "square kilometres"),
        ):
            value = t.population if attribute == "population" else t.area
            above = [s for s in steps if value > s * 1.1 and agrees(t, attribute, s, True)]
            below = [s for s in steps if value < s / 1.1 and agrees(t, attribute, s, False)]
            if above and (not below or rng.random() < 0.5):
                s = above[-1]
                options.append(
                    (
                        f"{attribute}_above",
                        f"has more than {number(s)} {unit}",
                        functools.partial(_above, attribute, s),
                    )
                )
            elif below:
                s = below[0]
                options.append(
                    (
                        f"{attribute}_below",
                        f"has fewer than {number(s)} {unit}"
                        if attribute == "population"
                        else f"covers less than {number(s)} {unit}",
                        functools.partial(_below, attribute, s),
                    )
                )
        count = len(t.neighbours)
        if count and set(t.neighbours) == set(t.ci_neighbours):
            options.append(
                (
                    "neighbour_count",
                    f"has exactly {_count_word(count)} land neighbour{'s' if count > 1 else ''}",
                    functools.partial(_neighbour_count, count),
                )
            )
        rng.shuffle(options)
        return options

    # find k ------------------------------------------------------------------------------
    def _find_k(self, breadth: int, depth: int, rng: random.Random) -> Draft:
        k = {
            (1, 1): rng.randint(2, 3),
            (2, 1): rng.randint(4, 8),
            (3, 1): rng.randint(12, 14),
            (1, 2): 1,
            (2, 2): rng.randint(2, 5),
            (3, 2): rng.randint(6, 7),
        }[(breadth, depth)]
        continent = rng.choice([c for c in self.kg.continents() if c != "Antarctica"])
        members = [c for c in self.countries if c.continent == continent]
        constraint = self._set_constraint(members, k, rng)
        if constraint is None:
            raise Unbuildable(f"no constraint leaves more than {k} countries in {continent}")
        phrase, valid = constraint
        chosen = rng.sample(valid, k)
        names = [c.name for c in valid]
        facts = [self._member_fact(c, continent, phrase) for c in chosen]
        noun = "country" if k == 1 else "countries"
        count = _count_word(k)
        question = rng.choice(
            (
                f"Name {count} {noun} in {continent} that {phrase}.",
                f"Find {count} {noun} located in {continent} that {phrase}.",
                f"List {count} {noun} of {continent} that {phrase}.",
            )
        ) + rng.choice((" Cite a page for each.", " Support each with a cited page."))
        slots = []
        for i in range(1, k + 1):
            # Inside its group the slot is critical: a citation alone earns nothing.
            slot = leaf(
                f"item_{i}",
                f"Item {i}: a country in {continent} that {phrase}",
                {"kind": "one_of", "values": names, "list": True, "at_least": i},
                depth > 1,
            )
            if depth == 1:
                slots.append(slot)
            else:
                cited = leaf(
                    f"item_{i}_cited",
                    f"Item {i}: a page about a valid country is cited",
                    {"kind": "cites_url", "urls": sorted(c.url for c in valid)},
                    False,
                )
                slots.append(
                    group(f"item_{i}_group", f"Item {i} is valid and sourced", [slot, cited])
                )
        if (depth == 1 and breadth == 1 and k < 3) or (depth == 1 and breadth >= 2):
            slots.append(
                leaf(
                    "cited",
                    "A page about a valid country is cited",
                    {"kind": "cites_url", "urls": sorted(c.url for c in valid)},
                    False,
                )
            )
        root = group("root", question, slots)
        solution = {
            c.name: {
                "description": f"{c.name} is in {continent} and {phrase}.",
                "reference_urls": [c.url],
            }
            for c in chosen
        }
        others = [c for c in valid if c not in chosen]
        alternatives = []
        if len(others) >= 1:
            swap = rng.sample(others, min(len(others), k))
            alt_set = swap + chosen[len(swap) :]
            alternatives.append([self._member_fact(c, continent, phrase) for c in alt_set])
        return Draft(
            "find_k",
            question,
            root,
            facts,
            solution,
            (continent, phrase, str(k)),
            alternatives,
            [f"{len(valid)} valid countries for {k} slots"],
            subjects=tuple(c.iso for c in chosen),
        )

    def _set_constraint(
        self, members: Sequence[Country], k: int, rng: random.Random
    ) -> tuple[str, list[Country]] | None:
        options: list[tuple[str, list[Country]]] = []
        pairs = [(c.population, c.ci_population) for c in members]
        robust = [
            t
            for s in POPULATION_STEPS
            if len([c for c in members if c.population > s]) > k
            and (t := robust_threshold(pairs, [s]))
        ]
        if robust:
            threshold = rng.choice(robust)
            valid = [c for c in members if c.population > threshold]
            options.append((f"have more than {number(threshold)} inhabitants", valid))
        currencies: dict[str, list[Country]] = {}
        for c in members:
            currencies.setdefault(c.currency_code, []).append(c)
        for code, users in currencies.items():
            if code and len(users) > k:
                options.append((f"use the currency with ISO code {code}", users))
        hubs = [c for c in members if len([n for n in self.kg.neighbours(c) if n in members]) > k]
        for hub in hubs:
            valid = [
                n
                for n in self.kg.neighbours(hub)
                if n in members and n.iso in hub.ci_neighbours | set(hub.neighbours)
            ]
            options.append((f"border {hub.name}", valid))
        if not options:
            return None
        return rng.choice(options)

    def _member_fact(self, c: Country, continent: str, phrase: str) -> Fact:
        if phrase.startswith("have more"):
            second = f"The population of {c.name} is {c.population_text()} according to GeoNames"
        elif phrase.startswith("use the currency"):
            second = f"The currency of {c.name} is {c.currency_code}"
        else:
            second = f"{c.name} borders {phrase.removeprefix('border ')}"
        return Fact(
            "member",
            c.name,
            c.name,
            "",
            {},
            f"{c.name} is a country in {continent}{SENTENCE_BREAK}{second}",
            c.url,
        )

    # chain -------------------------------------------------------------------------------
    def _chain(self, breadth: int, rng: random.Random) -> Draft:
        hops = 4 if breadth == 3 else rng.choice((3, 4))
        reasons = []
        starts = sorted(self.countries, key=lambda c: (self.used[c.iso], rng.random()))
        for start in starts[:40]:
            try:
                return self._chain_from(start, hops, breadth, rng)
            except Unbuildable as exc:
                reasons.append(str(exc))
        raise Unbuildable("; ".join(reasons[:3]))

    def _chain_from(self, start: Country, hops: int, breadth: int, rng: random.Random) -> Draft:
        path: list[Country] = [start]
        steps: list[tuple[str, Country]] = []
        for _ in range(hops - 2):
            nxt = self._most_populous_neighbour(path[-1], exclude={c.iso for c in path})
            if nxt is None:
                raise Unbuildable(
                    f"{path[-1].name}: no neighbour is the most populous by both sources"
                )
            path.append(nxt)
            steps.append(("neighbour", nxt))
        last = path[-1]
        city_kind = (
            "capital" if last.capital_city and self.has_page(last.capital_city.url) else "largest"
        )
        city = last.capital_city if city_kind == "capital" else last.largest_city
        if city is None or not self.has_page(city.url):
            raise Unbuildable(f"{last.name}: no page for its capital or largest city")
        # Extra facts widen the first hop to the class's breadth.
        extra_n = {1: 0, 2: rng.randint(1, 3), 3: 4}[breadth]
        first = path[1]
        extras = [b() for b in country_facts(self.kg, first)]
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
            and self.has_page(f.url)
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
                    "context": BORDER_WORDS + LARGEST_WORDS,
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
        root = group("root", "", [node], strategy="sequential")
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
        question = self._chain_question(path, city_kind, extras, rng)
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
        return Draft(
            "chain",
            question,
            root,
            facts,
            solution,
            (*tuple(c.iso for c in path), city_kind),
            [alt],
            subjects=tuple(c.iso for c in path),
        )

    def _most_populous_neighbour(self, c: Country, exclude: set[str]) -> Country | None:
        options = [
            n for n in self.kg.neighbours(c) if n.iso not in exclude and self.has_page(n.url)
        ]
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
        self, path: list[Country], city_kind: str, extras: list[Fact], rng: random.Random
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
        parts.append("Cite a page for every fact.")
        return " ".join(parts)


# ---------------------------------------------------------------- answers from facts
def write_answer(facts: Sequence[Fact], *, alt: bool = False) -> str:
    """Markdown: one sentence per fact with a numbered citation, then the reference list."""
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
    listed = "\n".join(f"[{i}] {url}" for i, url in enumerate(refs, start=1))
    return f"{body}\n\n{listed}" if refs else body


def _figure(c: Country, attribute: str) -> float:
    return c.population if attribute == "population" else c.area


def _above(attribute: str, threshold: float, c: Country) -> bool:
    return _figure(c, attribute) > threshold


def _below(attribute: str, threshold: float, c: Country) -> bool:
    return _figure(c, attribute) < threshold


def _borders(iso: str, c: Country) -> bool:
    return iso in c.neighbours


def _uses(code: str, c: Country) -> bool:
    return c.currency_code == code


def _neighbour_count(count: int, c: Country) -> bool:
    return len(c.neighbours) == count


def _join_clauses(clauses: list[str]) -> str:
    return listing(clauses)


def _count_word(n: int) -> str:
    words = (
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
    )
    return words[n] if n < len(words) else str(n)


def _frame(subcategory: str, question: str, rng: random.Random) -> str:
    framing = rng.choice(FRAMINGS.get(subcategory, ("",)))
    return f"{framing} {question}".strip()


def category_of(subcategory: str) -> str:
    return CATEGORY_OF[subcategory]
