"""What a task family is asked to draft: the same for every family, so one value carries it."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from quest.synthesis.kg_domains import DomainGraph


@dataclass(frozen=True)
class Brief:
    """A draft of the class (breadth, depth) about `topic`, from the graph's entities drawn by
    `rng`, citing only the pages the corpus holds (`has_page`)."""

    graph: DomainGraph
    topic: str
    breadth: int
    depth: int
    rng: random.Random
    has_page: Callable[[str], bool]
