"""How one internal node combines its children's states (QUEST-SPEC §1.1), memoised per shape.

A node *state* is a single hashable value that carries both score and status:
  leaf:      the verdict status string ("pass", "fail", "error", "skipped"), or None (unverified)
  internal:  1 (passed); a float in (0, 1) (partial); or a negative code for a zero score, whose
             status is FAILED, ERRORED, UNVERIFIED or SKIPPED.
Every node with the same *shape* (mode, strategy, children's critical flags, weights, which
children are leaves) computes the same function of its children's states. Bottom nodes see a
handful of distinct inputs, so the function is memoised in one table per shape, shared by all
compiled trees; the scorer's inner loop is then one tuple lookup per internal node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from threading import Lock
from typing import Any, TypeAlias

State: TypeAlias = "str | float | None"

FAILED = -1
ERRORED = -2
UNVERIFIED = -3
SKIPPED = -4
LEAF_VALUE: dict[object, int] = {"pass": 1, "fail": FAILED, "error": ERRORED, "skipped": SKIPPED, None: UNVERIFIED}

# Memo entries across all shapes; past this, results are computed but no longer stored, which
# bounds memory in a long-running worker that scores millions of distinct partial scores.
MAX_MEMO_ENTRIES = 200_000


class BadLeafState(Exception):
    """A leaf state that is not a verdict status; the caller normalises its input and retries."""


@dataclass(frozen=True)
class Shape:
    weighted: bool
    sequential: bool
    critical: tuple[bool, ...]
    leaf: tuple[bool, ...]
    weights: tuple[int, ...]

    def aggregate(self, states: Sequence[Any]) -> tuple[float, int]:
        """(node state, index of the first child the sequential short-circuit skips, or 0)."""
        values = [self._value(i, state) for i, state in enumerate(states)]
        cut = self._short_circuit(values)
        score = self._score(values)
        if score > 0:
            return score, cut
        return max((v for v in values if v < 0), default=SKIPPED), cut

    def _value(self, index: int, state: object) -> float:
        if self.leaf[index]:
            if (state is None or type(state) is str) and state in LEAF_VALUE:
                return LEAF_VALUE[state]
            raise BadLeafState
        if type(state) is int or type(state) is float:
            return state
        raise BadLeafState

    def _short_circuit(self, values: list[float]) -> int:
        if not self.sequential:
            return 0
        for index, value in enumerate(values):
            if value < 1:
                if index + 1 < len(values):
                    values[index + 1 :] = [SKIPPED] * (len(values) - index - 1)
                    return index + 1
                return 0
        return 0

    def _score(self, values: list[float]) -> float:
        if any(value < 1 for value, crit in zip(values, self.critical, strict=True) if crit):
            return 0
        scored = [(max(v, 0), w) for v, w, crit in zip(values, self.weights, self.critical, strict=True) if not crit]
        if not scored:
            return 1
        if self.weighted:
            return sum(v * w for v, w in scored) / sum(w for _, w in scored)
        return sum(v for v, _ in scored) / len(scored)


class Aggregate(dict[Any, Any]):
    """Memo table of one shape: children's states (a tuple, or the bare state of an only
    child, as itemgetter returns it) -> the node's state."""

    __slots__ = ("cuts", "shape")

    def __init__(self, shape: Shape) -> None:
        super().__init__()
        self.shape = shape
        self.cuts: dict[Any, int] = {}

    def __missing__(self, key: Any) -> float:
        state, cut = self.shape.aggregate(key if len(self.shape.leaf) > 1 else (key,))
        if _MEMO.reserve():
            self[key] = state
            if cut:
                self.cuts[key] = cut
        return state

    def cut(self, key: Any) -> int:
        """Where the sequential short-circuit starts skipping for these children's states."""
        if key in self:
            return self.cuts.get(key, 0)
        return self.shape.aggregate(key if len(self.shape.leaf) > 1 else (key,))[1]


class _Memo:
    def __init__(self) -> None:
        self.tables: dict[Shape, Aggregate] = {}
        self.entries = 0
        self.lock = Lock()

    def table(self, shape: Shape) -> Aggregate:
        with self.lock:
            table = self.tables.get(shape)
            if table is None:
                table = Aggregate(shape)
                if self.reserve():  # past the budget a compiled tree keeps a private table
                    self.tables[shape] = table
            return table

    def reserve(self) -> bool:
        # A racy count can overshoot by a few entries across threads; the bound is approximate.
        if self.entries >= MAX_MEMO_ENTRIES:
            return False
        self.entries += 1
        return True

    def clear(self) -> None:
        with self.lock:
            for table in self.tables.values():
                table.clear()
                table.cuts.clear()
            self.entries = 0


_MEMO = _Memo()


def table_for(shape: Shape) -> Aggregate:
    return _MEMO.table(shape)


def clear_memo() -> None:
    """Forget memoised results (compiled trees keep working and refill the tables)."""
    _MEMO.clear()


def memo_size() -> int:
    return _MEMO.entries
