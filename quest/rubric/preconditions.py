"""Leaf preconditions (QUEST-SPEC §1.1): skip a leaf, before paying for its judge call, when its
score can no longer matter.

A leaf is skipped when, on its way up to the root, some node has a critical sibling, or (under
a sequential parent) a preceding sibling, with a leaf that already failed or was skipped. The
tracker keeps per-node counters so each query and each recorded verdict costs O(depth).
"""

from __future__ import annotations

from collections.abc import Mapping

from quest.rubric.errors import quoted
from quest.rubric.score import CompiledTree
from quest.rubric.verdict import LeafVerdict

_BLOCKING = frozenset({"fail", "skipped"})


class Preconditions:
    def __init__(self, compiled: CompiledTree) -> None:
        self._compiled = compiled
        count = len(compiled.nodes)
        self._bad = [False] * count  # subtree holds a failed or skipped leaf
        self._bad_critical_children = [0] * count
        self._first_bad_child = [count] * count  # position among siblings; count = none yet
        self._rank = [0] * count
        for kids in compiled.children:
            for rank, kid in enumerate(kids):
                self._rank[kid] = rank

    def record(self, leaf_id: str, status: str) -> None:
        """Note a leaf's verdict; only failures and skips can block other leaves."""
        if status not in _BLOCKING:
            return
        pos = self._compiled.index[leaf_id]
        while pos >= 0 and not self._bad[pos]:
            self._bad[pos] = True
            parent = self._compiled.parent[pos]
            if parent >= 0:
                if self._compiled.nodes[pos].critical:
                    self._bad_critical_children[parent] += 1
                self._first_bad_child[parent] = min(self._first_bad_child[parent], self._rank[pos])
            pos = parent

    def blocker(self, leaf_id: str) -> str | None:
        """Why the leaf should be skipped, or None when it must be checked."""
        compiled = self._compiled
        pos = compiled.index[leaf_id]
        parent = compiled.parent[pos]
        while parent >= 0:
            own = 1 if compiled.nodes[pos].critical and self._bad[pos] else 0
            if self._bad_critical_children[parent] - own > 0:
                return f"a critical sibling under {quoted(compiled.ids[parent])} already failed"
            if (
                compiled.nodes[parent].strategy == "sequential"
                and self._first_bad_child[parent] < self._rank[pos]
            ):
                return (
                    f"an earlier step of sequential {quoted(compiled.ids[parent])} already failed"
                )
            pos, parent = parent, compiled.parent[parent]
        return None

    def should_skip(self, leaf_id: str) -> bool:
        return self.blocker(leaf_id) is not None


def should_skip(
    compiled: CompiledTree, leaf_id: str, verdicts: Mapping[str, str | LeafVerdict]
) -> bool:
    """One-shot form: is `leaf_id` skipped given the verdicts known so far?"""
    tracker = Preconditions(compiled)
    for node_id, verdict in verdicts.items():
        if node_id in compiled.index and compiled.index[node_id] < compiled.leaf_count:
            tracker.record(node_id, verdict.status if isinstance(verdict, LeafVerdict) else verdict)
    return tracker.should_skip(leaf_id)


def evaluation_order(compiled: CompiledTree) -> list[str]:
    """Leaves in the order that skips the most judge calls: depth first, and under a parallel
    node its critical children first (a failed critical child blocks all its siblings). A
    sequential node keeps its order, which is what its preconditions follow."""
    order: list[str] = []
    stack = [len(compiled.nodes) - 1]
    while stack:
        pos = stack.pop()
        kids = compiled.children[pos]
        if not kids:
            order.append(compiled.ids[pos])
            continue
        if compiled.nodes[pos].strategy == "parallel":
            kids = tuple(sorted(kids, key=lambda kid: not compiled.nodes[kid].critical))
        stack.extend(reversed(kids))
    return order
