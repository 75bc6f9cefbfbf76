"""Task families over the multi-domain graph (quest.synthesis.kg_domains), mixed into the kg
synthesizer (quest.synthesis.kgsynth) for the subcategories whose topic is a data domain
(quest.synthesis.categories):

- cross-domain chains (quest.synthesis.families.hops): element → country → highest airport,
  country → official language → other country → its holidays …, nested hop by hop; side by
  side from several starts, then compared (quest.synthesis.families.fanout), for class B3;
- comparisons and temporal order (quest.synthesis.families.ranking): which of A and B has the
  higher figure, which came first;
- aggregations (quest.synthesis.families.counting): how many, a difference, a sum;
- intersections (quest.synthesis.families.intersections): k entities that are both X and Y.

Depth class D3 always gets a chain (an element's seed one from the element to an airport).
D1 and D2 get a chain CHAIN_SHARE of the time where the topic has chain ends, one of the other
families otherwise; a family that cannot build the class from the drawn entities gives way to
another (ATTEMPTS tries) before the synthesizer falls back to the country families. Drafts have
the kg synthesizer's record shape: a tree of deterministic claim checks with source leaves, a
solution, facts citing each page, an oracle and a committed answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from quest.synthesis.facts import Draft, Unbuildable
from quest.synthesis.families.brief import Brief
from quest.synthesis.families.counting import AGGREGATES, aggregation_draft
from quest.synthesis.families.fanout import fanout_draft
from quest.synthesis.families.hops import chain_draft
from quest.synthesis.families.intersections import BUILDERS, intersection_draft
from quest.synthesis.families.ranking import RANKINGS, ranking_draft
from quest.synthesis.kg_domains import DomainGraph

CHAIN_SHARE = 0.7  # of D1 and D2 drafts, where the topic has chain ends
ATTEMPTS = 6  # drafts tried, over the topic's families, before the country fallback
CHAIN_ENDS: dict[str, list[str]] = {
    "airports": ["highest_airport", "elevation"],
    "languages": ["official_language"],
    "subdivisions": ["subdivision_count"],
    "holidays": ["public_holiday_count"],
}
Builder = Callable[[Brief], Draft]


def domain_draft(
    graph: DomainGraph,
    topics: list[str],
    *,
    breadth: int,
    depth: int,
    rng: random.Random,
    has_page: Callable[[str], bool],
) -> Draft:
    """A draft whose answer belongs to one of `topics`, shaped for the class (breadth, depth)."""
    if not topics:
        raise Unbuildable("no data domain for this subcategory")
    reasons = []
    for _ in range(ATTEMPTS):
        topic = rng.choice(topics)
        build = _family(topic, breadth, depth, rng)
        try:
            return build(Brief(graph, topic, breadth, depth, rng, has_page))
        except Unbuildable as error:
            reasons.append(str(error))
    raise Unbuildable("; ".join(dict.fromkeys(reasons)))


def _family(topic: str, breadth: int, depth: int, rng: random.Random) -> Builder:
    ends = CHAIN_ENDS.get(topic, [])
    if depth == 3 and not ends and topic.startswith("elements"):
        return _element_chain  # no family of the elements' own reaches depth class D3
    if ends and (depth == 3 or rng.random() < CHAIN_SHARE):
        return _chain if breadth < 3 or depth == 3 else _fanout
    others: list[Builder] = []
    others += [ranking_draft] if topic in RANKINGS else []
    others += [aggregation_draft] if topic in AGGREGATES or topic == "languages" else []
    others += [intersection_draft] if topic in BUILDERS else []
    return rng.choice(others) if others else _chain


def _chain(brief: Brief) -> Draft:
    return chain_draft(brief, CHAIN_ENDS.get(brief.topic, []))


def _element_chain(brief: Brief) -> Draft:
    """Element → the country it was discovered in → its highest airport → that airport's
    elevation: the chain an element's seed of depth class D3 gets (its topic is then the
    airports')."""
    return chain_draft(brief, ["elevation"])


def _fanout(brief: Brief) -> Draft:
    return fanout_draft(brief, CHAIN_ENDS.get(brief.topic, []))
