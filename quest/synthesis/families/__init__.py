"""Task families over the multi-domain graph (quest.synthesis.kg_domains), mixed into the kg
synthesizer (quest.synthesis.kgsynth) for the subcategories whose topic is a data domain
(quest.synthesis.categories):

- cross-domain chains (quest.synthesis.families.hops): element → country → highest airport,
  country → official language → other country → its holidays …, nested hop by hop;
- comparisons and temporal order (quest.synthesis.families.ranking): which of A and B has the
  higher figure, which came first.

Depth class D3 always gets a chain; D1 and D2 get a chain half the time where the topic has
chain ends, a ranking otherwise. Drafts have the kg synthesizer's record shape: a tree of
deterministic claim checks with source leaves, a solution, facts citing each page, an oracle
and a committed answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from quest.synthesis.facts import Draft, Unbuildable
from quest.synthesis.families.hops import chain_draft
from quest.synthesis.families.ranking import RANKINGS, ranking_draft
from quest.synthesis.kg_domains import DomainGraph

CHAIN_SHARE = 0.5  # of D1 and D2 drafts, where the topic has chain ends
CHAIN_ENDS: dict[str, list[str]] = {
    "airports": ["highest_airport", "elevation"],
    "languages": ["official_language"],
    "subdivisions": ["subdivision_count"],
    "holidays": ["public_holiday_count"],
}


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
    topic = rng.choice(topics)
    ends = CHAIN_ENDS.get(topic, [])
    chain = bool(ends) and (depth == 3 or topic not in RANKINGS or rng.random() < CHAIN_SHARE)
    if chain:
        if breadth == 3:
            raise Unbuildable("no chain of breadth class B3 over the domains")
        return chain_draft(
            graph, ends=ends, depth=depth, breadth=breadth, rng=rng, has_page=has_page
        )
    return ranking_draft(
        graph, topic=topic, depth=depth, breadth=breadth, rng=rng, has_page=has_page
    )
