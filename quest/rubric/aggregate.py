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
from dataclasses import dataclass, field
from threading import Lock
from typing import Any, TypeAlias

State: TypeAlias = "str | float | None"

FAILED = -1
ERRORED = -2
UNVERIFIED = -3
SKIPPED = -4
LEAF_VALUE: dict[object, int] = {
    "pass": 1,
    "fail": FAILED,
    "error": ERRORED,
    "skipped": SKIPPED,
    None: UNVERIFIED,
}

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
    # Derived once per shape; the memo misses run through them.
    _critical_at: tuple[int, ...] = field(init=False, compare=False, repr=False)
    _scored_at: tuple[int, ...] = field(init=False, compare=False, repr=False)
    _scored_weights: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        scored = tuple(i for i, crit in enumerate(self.critical) if not crit)
        object.__setattr__(self, "_critical_at", tuple(i for i, c in enumerate(self.critical) if c))
        object.__setattr__(self, "_scored_at", scored)
        object.__setattr__(self, "_scored_weights", tuple(self.weights[i] for i in scored))

    def aggregate(self, states: Sequence[Any]) -> tuple[float, int]:
        """(node state, index of the first child the sequential short-circuit skips, or 0)."""
        try:
            values = [
                LEAF_VALUE[s] if leaf else s for s, leaf in zip(states, self.leaf, strict=True)
            ]
        except (KeyError, TypeError):
            raise BadLeafState from None
        cut = self._short_circuit(values) if self.sequential else 0
        score = self._score(values)
        if score > 0:
            return score, cut
        return max([v for v in values if v < 0], default=SKIPPED), cut

    @staticmethod
    def _short_circuit(values: list[float]) -> int:
        if min(values) >= 1:
            return 0
        for index, value in enumerate(values):
            if value < 1:
                rest = len(values) - index - 1
                values[index + 1 :] = [SKIPPED] * rest
                return index + 1 if rest else 0
        return 0

    def _score(self, values: list[float]) -> float:
        if self._critical_at and min([values[i] for i in self._critical_at]) < 1:
            return 0
        if not self._scored_at:
            return 1
        scored = [values[i] if values[i] > 0 else 0 for i in self._scored_at]
        if self.weighted:
            weights = self._scored_weights
            return sum([v * w for v, w in zip(scored, weights, strict=True)]) / sum(weights)
        return sum(scored) / len(scored)


class Aggregate(dict[Any, Any]):
    """Memo table of one shape: children's states (a tuple, or the bare state of an only
    child, as itemgetter returns it) -> the node's state, or (state, cut) when the sequential
    short-circuit skips the children from index `cut` on. The tuple is rare, so the scorer's
    loop pays one class check for it."""

    __slots__ = ("shape",)

    def __init__(self, shape: Shape) -> None:
        super().__init__()
        self.shape = shape

    def __missing__(self, key: Any) -> float | tuple[float, int]:
        state, cut = self.shape.aggregate(key if len(self.shape.leaf) > 1 else (key,))
        result = (state, cut) if cut else state
        if _MEMO.reserve():
            self[key] = result
        return result


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
            self.entries = 0


_MEMO = _Memo()


def table_for(shape: Shape) -> Aggregate:
    return _MEMO.table(shape)


def clear_memo() -> None:
    """Forget memoised results (compiled trees keep working and refill the tables)."""
    _MEMO.clear()


def memo_size() -> int:
    return _MEMO.entries
