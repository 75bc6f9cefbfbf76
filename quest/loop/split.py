"""The loop's honest split: held-out tasks that share no entity with any train task, and a
family (or class) of tasks that is never trained on.

A task's entities are the places its solution is about: its answers, the countries of a
chain's path, the subjects of its facts, the names its facts and rubric checks ask for
(capitals, largest cities, neighbours), and the places its question names as clues ("borders
Gibraltar": any name the record knows, its rivals included, found in the question). An
attribute that many countries share (a currency code) is not an entity: a fact is about its
subject, and disjoint subjects make disjoint facts.

First the out-of-family tasks are set apart (slice `out_of_family`). The rest form a graph in
which two tasks are joined when they share an entity; whole connected components go to the
held-out side, in a seeded order, until its share is reached. When one giant component makes
that impossible (the kg generator's neighbours and continents join nearly every country), the
held-out entities are chosen first, in a seeded order of the tasks that name them, as few as
reach the share: a task is held out when all its entities are held-out entities, trained on
when none is, and dropped when it mixes both (`dropped_mixed`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from quest.synthesis.entities import in_slice, task_entities

Side = Literal["train", "heldout", "out_of_family", "dropped"]
# The components method must reach at least this part of the held-out target.
COMPONENTS_MIN_FILL = 0.8


@dataclass(frozen=True)
class Split:
    sides: dict[str, Side]  # task id -> its side
    method: Literal["components", "entities"]
    out_of_family: str | None
    heldout_entities: int = 0  # the entities method: how many entities were held out
    entities: dict[str, list[str]] = field(default_factory=dict)  # task id -> its entities

    def ids(self, side: Side) -> set[str]:
        return {task_id for task_id, s in self.sides.items() if s == side}

    def counts(self) -> dict[str, Any]:
        count = {side: len(self.ids(side)) for side in ("train", "heldout", "out_of_family")}
        return {
            **count,
            "dropped_mixed": len(self.ids("dropped")),
            "method": self.method,
            "out_of_family_slice": self.out_of_family,
            "heldout_entities": self.heldout_entities,
        }


def split_tasks(
    records: Sequence[Mapping[str, Any]], *, share: float, seed: int, out_of_family: str | None
) -> Split:
    """Each task's side; deterministic for the same records, share, seed and slice."""
    entities = {str(r["task_id"]): task_entities(r) for r in records}
    sides: dict[str, Side] = {}
    pool: list[str] = []
    for record in records:
        task_id = str(record["task_id"])
        if in_slice(record, out_of_family):
            sides[task_id] = "out_of_family"
        else:
            pool.append(task_id)
    listed = {task_id: sorted(names) for task_id, names in entities.items()}
    by_components = _by_components(pool, entities, share, seed)
    if by_components is not None:
        sides.update(by_components)
        return Split(sides, "components", out_of_family, entities=listed)
    by_entities, held = _by_entities(pool, entities, share, seed)
    sides.update(by_entities)
    return Split(sides, "entities", out_of_family, heldout_entities=held, entities=listed)


def _by_components(
    pool: Sequence[str], entities: Mapping[str, frozenset[str]], share: float, seed: int
) -> dict[str, Side] | None:
    """Whole components to the held-out side until its share; None when that cannot come
    near the share without taking more than it (a giant component)."""
    target = share * len(pool)
    components = sorted(_components(pool, entities), key=min)
    random.Random(f"split-components:{seed}").shuffle(components)
    held: set[str] = set()
    for component in components:
        if len(held) >= target:
            break
        if len(held) + len(component) <= max(target, 1):
            held |= component
    if not held or len(held) < COMPONENTS_MIN_FILL * target or len(held) == len(pool):
        return None
    return {task_id: "heldout" if task_id in held else "train" for task_id in pool}


def _components(pool: Sequence[str], entities: Mapping[str, frozenset[str]]) -> list[set[str]]:
    """The tasks joined by shared entities (union-find over entities)."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for task_id in pool:
        for name in entities[task_id]:
            parent[root(f"e:{name}")] = root(f"t:{task_id}")
    groups: dict[str, set[str]] = {}
    for task_id in pool:
        groups.setdefault(root(f"t:{task_id}"), set()).add(task_id)
    return list(groups.values())


def _by_entities(
    pool: Sequence[str], entities: Mapping[str, frozenset[str]], share: float, seed: int
) -> tuple[dict[str, Side], int]:
    """The shortest prefix of a seeded entity order whose all-held-out tasks reach the share
    of the kept ones. The order follows a seeded order of the tasks, each adding the entities
    it names that are not yet listed, so a task's entities join the held-out side together."""
    order = _entity_order(pool, entities, seed)
    rank = {name: index for index, name in enumerate(order)}
    first = {t: min((rank[e] for e in entities[t]), default=-1) for t in pool}
    last = {t: max((rank[e] for e in entities[t]), default=-1) for t in pool}
    chosen = len(order)
    for prefix in range(1, len(order) + 1):
        held = sum(1 for t in pool if 0 <= last[t] < prefix)
        train = sum(1 for t in pool if first[t] >= prefix or first[t] < 0)
        if held and held >= share * (held + train):
            chosen = prefix
            break
    return {t: _side(first[t], last[t], chosen) for t in pool}, chosen


def _entity_order(
    pool: Sequence[str], entities: Mapping[str, frozenset[str]], seed: int
) -> list[str]:
    tasks = sorted(pool)
    random.Random(f"split-entities:{seed}").shuffle(tasks)
    order: dict[str, None] = {}
    for task_id in tasks:
        order.update(dict.fromkeys(sorted(entities[task_id])))
    return list(order)


def _side(first: int, last: int, prefix: int) -> Side:
    if first < 0 or first >= prefix:
        return "train"  # a task with no entity shares none: it can be trained on
    return "heldout" if last < prefix else "dropped"
