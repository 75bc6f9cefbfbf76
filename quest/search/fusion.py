"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

RRF_K = 60

Key = TypeVar("Key", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Key]], *, k: int = RRF_K
) -> list[tuple[Key, float]]:
    """Items of several best-first rankings, scored by the sum of 1 / (k + rank), rank from 1.
    Ties keep the order in which items were first seen."""
    scores: dict[Key, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    order = {key: position for position, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
