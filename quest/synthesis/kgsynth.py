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
asks a cited page to state it (quest.rubric.support); facts live in quest.synthesis.facts and
chains in quest.synthesis.chains. The solution is written from the facts,
and the reference answer is written from the solution with a citation to the page of each
fact; the funnel (quest.synthesis.funnel) then scores it, probes it and checks that other
valid answers pass. A draft that cannot be built as asked returns its reason, never a guess.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Sequence

from quest.corpus.text import listing, number
from quest.synthesis import clues
from quest.synthesis.categories import TOPICS, topics_of
from quest.synthesis.chains import chain_draft
from quest.synthesis.facts import (
    EXACT_ASK,
    SENTENCE_BREAK,
    Draft,
    Fact,
    Unbuildable,
    country_facts,
    fact_leaves,
    group,
    leaf,
    oracle,
)
from quest.synthesis.families import domain_draft
from quest.synthesis.kg import Country, KnowledgeGraph, agrees, robust_threshold
from quest.synthesis.kg_domains import DomainGraph
from quest.synthesis.seeds import CATEGORY_OF, class_shape
from quest.text.words import number_word

GENERATOR = "questweb kg synthesizer"
# The subcategories a geography fact can be framed for, with the framing sentence.
FRAMINGS: dict[str, tuple[str, ...]] = {
    "General Info.": ("", "A geography question:", "For a geography lesson:"),
    "Legal & Government Services": ("For a briefing on administrative divisions:", ""),
    "Technology & Science": ("For a chemistry class:", ""),
    "Research & Academia": ("For a history of science essay:", ""),
    "Travel & Accommodation": ("I am planning a long trip:", "For a travel guide I am writing:"),
    "Shopping": ("Shops close on public holidays, so before planning errands:", ""),
    "Books & Reading": ("Before choosing which translations to read:", ""),
    "Education & Learning": ("A civics quiz question for my students:", ""),
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
AREA_STEPS = (10_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
PADDING = 2  # countries a "find k" answer may name beyond the k asked (quest.rubric at_most)


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

    @functools.cached_property
    def graph(self) -> DomainGraph:
        return DomainGraph.load()

    def draft(self, subcategory: str, target: str, rng: random.Random) -> Draft:
        """A draft whose topic is the subcategory's (quest.synthesis.categories): the domain
        families for a data domain's subcategory, the country families for General Info. and
        where the corpus lacks a domain's pages (then `categorise` gives General Info.)."""
        breadth, depth = class_shape(target)
        topics = [t for t in topics_of(subcategory) if t != "countries"]
        try:  # the domain families; the country families where they cannot build it
            made = domain_draft(
                self.graph, topics, breadth=breadth, depth=depth, rng=rng, has_page=self.has_page
            )
        except Unbuildable:
            made = self._country_draft(breadth, depth, rng)
        self.used.update(made.subjects[:1])
        made.question = _frame(TOPICS[made.topic], made.question, rng)
        made.tree_root["description"] = made.question
        return made

    def _country_draft(self, breadth: int, depth: int, rng: random.Random) -> Draft:
        if depth == 3:
            return self._chain(breadth, rng)
        if rng.random() < 0.5 and breadth >= 2:
            return self._find_k(breadth, depth, rng)
        return self._lookup(breadth, depth, rng)

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
        rivals = self._rivals(target)
        identity = leaf(
            "identity",
            f"The answer commits to {target.name} as the country",
            {"kind": "mentions", "value": target.name, "committed": True, "others": rivals},
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
            + EXACT_ASK.format(what="<country>")
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
            exact=target.name,
            oracle=oracle("lookup", [target.name], facts, rivals),
        )

    def _rivals(self, target: Country) -> list[str]:
        """The countries an answer could confuse with `target`: the others of its continent
        and its neighbours (the names binding tells apart, quest.rubric.binding)."""
        near = {c.name for c in self.kg.countries.values() if c.continent == target.continent}
        near.update(n.name for n in self.kg.neighbours(target))
        near.discard(target.name)
        return sorted(near)

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
        return listing(phrases), ["continent", *(o[0] for o in chosen)]

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
                    functools.partial(clues.borders, n.iso),
                )
            )
        if t.currency_code:
            options.append(
                (
                    "currency",
                    f"uses the currency with ISO code {t.currency_code}",
                    functools.partial(clues.uses, t.currency_code),
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
                        functools.partial(clues.above, attribute, s),
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
                        functools.partial(clues.below, attribute, s),
                    )
                )
        count = len(t.neighbours)
        if count and set(t.neighbours) == set(t.ci_neighbours):
            options.append(
                (
                    "neighbour_count",
                    f"has exactly {number_word(count)} land neighbour{'s' if count > 1 else ''}",
                    functools.partial(clues.neighbour_count, count),
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
        count = number_word(k)
        question = (
            rng.choice(
                (
                    f"Name {count} {noun} in {continent} that {phrase}.",
                    f"Find {count} {noun} located in {continent} that {phrase}.",
                    f"List {count} {noun} of {continent} that {phrase}.",
                )
            )
            + rng.choice((" Cite a page for each.", " Support each with a cited page."))
            + EXACT_ASK.format(what=_list_shape(k))
        )
        slots = []
        for i in range(1, k + 1):
            # Inside its group the slot is critical: a citation alone earns nothing.
            slot = leaf(
                f"item_{i}",
                f"Item {i}: a country in {continent} that {phrase}",
                {"kind": "one_of", "values": names, "committed": True, "at_least": i},
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
        slots.append(self._not_padded(continent, phrase, k))
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
            exact="; ".join(c.name for c in chosen),
            oracle={
                **oracle("find_k", names, [], self._rivals(chosen[0])),
                "k": k,
                "distractors": sorted(
                    c.name
                    for c in self.kg.countries.values()
                    if c.continent == continent and c.name not in names
                ),
            },
        )

    def _not_padded(self, continent: str, phrase: str, k: int) -> dict[str, object]:
        """The critical guard of a "find k" task: naming every country of the continent fills
        every item slot, so an answer that names more than k + PADDING of them scores 0. The
        country the constraint names ("border Zambia") is not a candidate: the answer says
        what each item borders."""
        named = phrase.removeprefix("border ") if phrase.startswith("border ") else ""
        candidates = sorted(
            c.name
            for c in self.kg.countries.values()
            if c.continent == continent and c.name != named
        )
        most = k + PADDING
        return leaf(
            "not_padded",
            f"At most {most} countries are committed to: a list of them all earns nothing",
            {"kind": "at_most", "values": candidates, "most": most, "committed": True},
            True,
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
        return chain_draft(self, breadth, rng)


def _list_shape(k: int) -> str:
    return "; ".join(["<country>"] * min(k, 3)) + ("; …" if k > 3 else "")


def _frame(subcategory: str, question: str, rng: random.Random) -> str:
    framing = rng.choice(FRAMINGS.get(subcategory, ("",)))
    return f"{framing} {question}".strip()


def category_of(subcategory: str) -> str:
    return CATEGORY_OF[subcategory]
