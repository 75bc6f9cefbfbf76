"""Scoring many (tree, verdicts) pairs at once with numpy: SFT filtering and GRPO groups.

compile_forest() lays compiled trees side by side as one forest of flat arrays grouped by depth:
level 0 holds every root (tree i's root at position i), level d+1 the children of level d in
order, so the children of each internal node are contiguous. Forest.score() then walks the
levels deepest first with a constant number of numpy calls per level, however many trees:

- sequential short-circuit: a segmented exclusive count of the failing earlier siblings; a
  child of a sequential parent with a failing earlier sibling is set to 0 and marked skipped;
- mean of the non-critical children (weighted under weighted scoring) with np.bincount, which
  adds each segment left to right from 0.0: the same float operations, in the same order, as
  the sum() in CompiledTree.score, so every score is bit-for-bit identical. np.add.reduceat is
  avoided on purpose: numpy's pairwise summation adds a segment in another order;
- critical gate: critical children score exactly 0 or 1 (a critical node has only critical
  children), so min(critical) * mean is 0 for the parents of critical children below 1 and
  the mean otherwise: one scatter of zeros, twice as fast as np.minimum.reduceat.

The upper bracket is a second pass with every undecided leaf taken as passed; recomputing the
whole forest gives the same floats as CompiledTree's dirty-ancestor recomputation because clean
nodes recompute to the values they had. Points trees (flat criteria) take their three root scores
from per-tree sums of points. Only turning verdict dicts into status codes is per leaf in Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, TypeAlias, cast

from quest.rubric.errors import RubricError
from quest.rubric.report import (
    _ERROR,
    _LEAF_CODE,
    _NAMES,
    _PARTIAL,
    _PASSED,
    _SKIPPED,
    _UNVERIFIED,
    NodeStatus,
)
from quest.rubric.score import CompiledTree
from quest.rubric.verdict import LeafVerdict

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]
    Ints = npt.NDArray[np.intp]
    Bools = npt.NDArray[np.bool_]
    Codes = npt.NDArray[np.int8]

Verdicts: TypeAlias = "Mapping[str, str | LeafVerdict]"

_CODE = _LEAF_CODE  # report.py's status codes: same precedence, same names
_SEQUENTIAL: dict[str, bool] = {"parallel": False, "sequential": True}
_BAD = 255  # (-1 as int8) a status the fast path does not know: LeafVerdict objects, junk


@dataclass(frozen=True)
class _Level:
    """Internal nodes of one depth and their children, which fill positions lo..hi."""

    lo: int
    hi: int
    parents: Ints  # forest positions of the internal nodes
    starts: Ints  # where each one's children begin, relative to lo
    segment: Ints  # for each child, the index of its parent in `parents`
    weight: Floats  # each child's weight in the mean (0 for critical children)
    critical: Floats  # 1 for critical children, 0 for others: score < critical blocks
    sequence: tuple[Ints, Ints] | None  # children of sequential parents (relative to lo), and
    # for each the index, in that array, of its parent's first child; None when there are none
    divisor: Floats  # sum of the weights, 1 where no child counts in the mean
    empty: Floats  # 1 where no child counts in the mean (the node then scores 1), else 0


class Forest:
    """Compiled trees laid out together; build with compile_forest()."""

    def __init__(self, trees: Sequence[CompiledTree]) -> None:
        import numpy as np

        self.trees: tuple[CompiledTree, ...] = tuple(trees)
        sizes = [len(tree.ids) for tree in self.trees]
        leaf_counts = [tree.leaf_count for tree in self.trees]
        self.size = sum(sizes)
        self._node_start = [0, *accumulate(sizes)]
        self._leaf_start = [0, *accumulate(leaf_counts)]
        self._leaf_tree: Ints = np.repeat(np.arange(len(self.trees)), leaf_counts)
        order, parent, bounds = _breadth_first(self.trees, sizes)
        # forest position of every node, trees one after another, each in compiled order
        self._node_pos: Ints = np.empty(self.size, np.intp)
        self._node_pos[order] = np.arange(self.size)
        self._leaf_pos: Ints = self._node_pos[_offsets(sizes, leaf_counts) + _ranges(leaf_counts)]
        critical, sequential, weight = _node_fields(self.trees, self._node_start)
        self._levels = self._plan(bounds, parent, critical[order], sequential[order], weight[order])
        self._points_setup()

    def _plan(
        self, bounds: list[int], parent: Ints, critical: Bools, sequential: Bools, weight: Floats
    ) -> tuple[_Level, ...]:
        import numpy as np

        levels = []
        for depth in range(len(bounds) - 3, -1, -1):  # deepest parents first
            lo, hi = bounds[depth + 1], bounds[depth + 2]
            if lo == hi:  # the empty level below the deepest leaves
                continue
            of = parent[lo:hi]  # non-decreasing: children are grouped by parent
            new = np.empty(hi - lo, bool)
            new[0], new[1:] = True, of[1:] != of[:-1]
            starts = np.flatnonzero(new)
            segment = np.cumsum(new) - 1
            counted = _sums(segment, ~critical[lo:hi], len(starts)) == 0
            levels.append(
                _Level(
                    lo=lo,
                    hi=hi,
                    parents=of[starts],
                    starts=starts,
                    segment=segment,
                    weight=weight[lo:hi],
                    critical=critical[lo:hi].astype(float),
                    sequence=_sequence(sequential[of], segment),
                    divisor=np.where(counted, 1.0, _sums(segment, weight[lo:hi], len(starts))),
                    empty=counted.astype(float),
                )
            )
        return tuple(levels)

    def _points_setup(self) -> None:
        """Points per leaf (0 outside points trees) and each points tree's positive total."""
        import numpy as np

        trees = [n for n, tree in enumerate(self.trees) if tree.tree.scoring == "points"]
        self._points_trees: Ints = np.array(trees, np.intp)
        self._points: Floats | None = None
        if trees:
            points = np.zeros(self._leaf_start[-1])
            for number in trees:
                tree = self.trees[number]
                lo, hi = self._leaf_start[number], self._leaf_start[number + 1]
                points[lo:hi] = [node.weight or 0 for node in tree.nodes[: tree.leaf_count]]
            self._points = points
            self._positive = self._sum_points(np.maximum(points, 0.0))

    def _sum_points(self, points: Floats) -> Floats:
        return _sums(self._leaf_tree, points, len(self.trees))[self._points_trees]

    def __len__(self) -> int:
        return len(self.trees)

    # -- scoring -------------------------------------------------------------------------------

    def score(self, verdict_sets: Sequence[Verdicts]) -> BatchScores:
        """Score tree i of the forest with verdict_sets[i], all at once. Raises RubricError,
        naming the verdict set, on ids that are not leaves and on unknown statuses."""
        import numpy as np

        if len(verdict_sets) != len(self.trees):
            raise ValueError(f"{len(verdict_sets)} verdict sets for {len(self.trees)} trees")
        codes = self._leaf_codes(verdict_sets)
        passed, undecided = codes == _PASSED, (codes == _ERROR) | (codes == _UNVERIFIED)
        scores = np.zeros(self.size)
        scores[self._leaf_pos] = passed
        skipped = np.zeros(self.size, bool)
        self._propagate(scores, skipped)
        roots = np.arange(len(self.trees))
        root = scores[roots].copy()
        incomplete = _sums(self._leaf_tree, undecided, len(self.trees)) > 0
        upper, lower = root.copy(), root.copy()
        if incomplete.any():
            best = np.zeros(self.size)
            best[self._leaf_pos] = passed | undecided
            self._propagate(best, None)
            upper = best[roots]
        if self._points is not None:
            trees, points = self._points_trees, self._points
            root[trees] = scores[trees] = self._points_score(passed)
            lower[trees] = self._points_score(passed | (undecided & (points < 0)))
            upper[trees] = self._points_score(passed | (undecided & (points > 0)))
        return BatchScores(self, scores, skipped, codes, root, lower, upper, ~incomplete)

    def _propagate(self, scores: Floats, skipped: Bools | None) -> None:
        import numpy as np

        for level in self._levels:
            kids = scores[level.lo : level.hi]  # a view: short-circuits write through
            if level.sequence is not None:
                children, first = level.sequence
                failing = kids[children] < 1.0
                earlier: Ints = np.cumsum(failing, dtype=np.intp) - failing  # failing before
                hits = children[earlier > earlier[first]]
                kids[hits] = 0.0
                if skipped is not None:
                    skipped[level.lo + hits] = True
            total = _sums(level.segment, kids * level.weight, len(level.starts))
            scores[level.parents] = (total + level.empty) / level.divisor
            # the critical gate (see the module docstring)
            blocked = np.flatnonzero(kids < level.critical)
            scores[level.parents[level.segment[blocked]]] = 0.0

    def _points_score(self, met: Bools) -> Floats:
        """Σ met points / Σ positive points, clipped to [0, 1]. Points are small integers, so
        the float sums are exact and the division rounds as Python's int / int does."""
        import numpy as np

        assert self._points is not None  # only called for forests holding points trees
        earned = self._sum_points(np.where(met, self._points, 0.0))
        return np.clip(earned / self._positive, 0.0, 1.0)

    def _leaf_codes(self, verdict_sets: Sequence[Verdicts]) -> Codes:
        """Status codes of every leaf, trees one after another. Plain status strings take a
        C-level path; LeafVerdict objects and invalid input go through CompiledTree's checks."""
        import numpy as np

        chunks: list[bytes] = []
        careful: set[int] = set()
        code = _CODE.get
        try:
            for number, (tree, verdicts) in enumerate(zip(self.trees, verdict_sets, strict=True)):
                chunk = bytes(map(code, map(verdicts.get, tree.leaf_ids), repeat(_BAD)))
                if len(chunk) - chunk.count(_UNVERIFIED) != len(verdicts):
                    careful.add(number)  # a verdict for something that is not a leaf
                chunks.append(chunk)
            codes: Codes = np.frombuffer(b"".join(chunks), np.int8).copy()
        except TypeError:  # an unhashable status somewhere: check every set the careful way
            codes = np.full(self._leaf_start[-1], -1, np.int8)
        careful.update(self._leaf_tree[codes < 0].tolist())
        for number in sorted(careful):
            lo, hi = self._leaf_start[number], self._leaf_start[number + 1]
            codes[lo:hi] = self._careful_codes(number, verdict_sets[number])
        return codes

    def _careful_codes(self, number: int, verdicts: Verdicts) -> list[int]:
        try:
            statuses, _ = self.trees[number]._normalise(verdicts)
        except RubricError as exc:
            raise RubricError(f"verdict set {number}: {error}" for error in exc.errors) from None
        return [_CODE[status] for status in statuses]

    def status_codes(self, scores: Floats, skipped: Bools, leaf_codes: Codes) -> Codes:
        """Every node's status code, by report.py's rules: 1 passed, between 0 and 1 partial,
        0 the highest-precedence code among the children (skipped for a short-circuited one)."""
        import numpy as np

        codes = np.zeros(self.size, np.int8)
        codes[self._leaf_pos] = leaf_codes
        codes[skipped] = _SKIPPED
        for level in self._levels:
            worst = np.maximum.reduceat(codes[level.lo : level.hi], level.starts)
            score = scores[level.parents]
            mine = np.where(score >= 1.0, _PASSED, np.where(score > 0.0, _PARTIAL, worst))
            codes[level.parents] = np.where(skipped[level.parents], _SKIPPED, mine)
        return codes


class BatchScores:
    """Results of Forest.score: per-tree arrays of root scores, brackets and completeness, and
    every node's score and status (statuses are derived, for the whole forest, on first use)."""

    def __init__(
        self,
        forest: Forest,
        scores: Floats,
        skipped: Bools,
        leaf_codes: Codes,
        root: Floats,
        lower: Floats,
        upper: Floats,
        complete: Bools,
    ) -> None:
        self.forest = forest
        self.root_score = root
        self.root_score_lower = lower
        self.root_score_upper = upper
        self.complete = complete
        self._scores = scores
        self._skipped = skipped
        self._leaf_codes = leaf_codes
        self._codes: Codes | None = None

    def __len__(self) -> int:
        return len(self.root_score)

    def _positions(self, tree: int) -> Ints:
        starts = self.forest._node_start
        return self.forest._node_pos[starts[tree] : starts[tree + 1]]

    def _status_codes(self) -> Codes:
        if self._codes is None:
            self._codes = self.forest.status_codes(self._scores, self._skipped, self._leaf_codes)
        return self._codes

    def node_scores(self, tree: int) -> list[float]:
        """Scores of tree `tree`'s nodes in compiled order (CompiledTree.ids)."""
        scores: list[float] = self._scores[self._positions(tree)].tolist()
        return scores

    def node_statuses(self, tree: int) -> list[NodeStatus]:
        codes = self._status_codes()[self._positions(tree)].tolist()
        return [_NAMES[code] for code in codes]

    def score_of(self, tree: int, node_id: str) -> float:
        return float(self._scores[self._position(tree, node_id)])

    def status_of(self, tree: int, node_id: str) -> NodeStatus:
        return _NAMES[int(self._status_codes()[self._position(tree, node_id)])]

    def root_statuses(self) -> list[NodeStatus]:
        codes = self._status_codes()[: len(self.root_score)].tolist()
        return [_NAMES[code] for code in codes]

    def _position(self, tree: int, node_id: str) -> int:
        index = self.forest.trees[tree].index[node_id]
        return int(self.forest._node_pos[self.forest._node_start[tree] + index])


def compile_forest(compiled_trees: Sequence[CompiledTree]) -> Forest:
    """Lay out compiled trees for scoring together. A tree may appear any number of times: a
    GRPO group is one tree repeated once per answer."""
    return Forest(compiled_trees)


def score_group(compiled: CompiledTree, verdict_sets: Sequence[Verdicts]) -> BatchScores:
    """Score one tree against K verdict sets (the K answers of a GRPO group). To score the same
    group shape repeatedly, keep compile_forest([compiled] * K) and call its score()."""
    return compile_forest([compiled] * len(verdict_sets)).score(verdict_sets)


def _breadth_first(trees: Sequence[CompiledTree], sizes: list[int]) -> tuple[Ints, Ints, list[int]]:
    """The forest's order: every root, then level by level the children of the level before,
    each node's children together and in order. Returns, per forest position, the node (an
    index into the trees' compiled orders laid end to end) and its parent's forest position,
    and where each level starts."""
    import numpy as np

    total = sum(sizes)
    count = _ints(map(len, chain.from_iterable(tree.children for tree in trees)), total)
    offset = _offsets(sizes)
    kids = _ints(chain.from_iterable(chain.from_iterable(t.children for t in trees)), -1)
    kids += np.repeat(offset, count)
    first = np.cumsum(count) - count
    level = np.cumsum(sizes, dtype=np.intp) - 1  # roots come last in compiled order
    order, parent, done = [level], [np.full(len(level), -1, np.intp)], 0
    while len(level):
        below = count[level]
        parent.append(np.repeat(np.arange(done, done + len(level)), below))
        done += len(level)
        level = kids[np.repeat(first[level], below) + _ranges(below)]
        order.append(level)
    bounds = [0, *accumulate(len(part) for part in order)]
    return np.concatenate(order), np.concatenate(parent), bounds


def _node_fields(
    trees: Sequence[CompiledTree], node_start: list[int]
) -> tuple[Bools, Bools, Floats]:
    """Per node, trees' compiled orders end to end: critical, sequential, and the node's weight
    in its parent's mean (0 when critical; the node's weight, or 1, under weighted scoring)."""
    import numpy as np

    total = node_start[-1]
    nodes = list(chain.from_iterable(tree.nodes for tree in trees))
    critical = _bools(map(attrgetter("critical"), nodes), total)
    sequential = _bools(map(_SEQUENTIAL.__getitem__, map(attrgetter("strategy"), nodes)), total)
    weight = np.where(critical, 0.0, 1.0)
    for number, tree in enumerate(trees):
        if tree.tree.scoring == "weighted":
            lo, hi = node_start[number], node_start[number + 1]
            given = [1 if node.weight is None else node.weight for node in tree.nodes]
            weight[lo:hi] = np.where(critical[lo:hi], 0.0, given)
    return critical, sequential, weight


def _sequence(sequential: Bools, segment: Ints) -> tuple[Ints, Ints] | None:
    import numpy as np

    children = np.flatnonzero(sequential)
    if not len(children):
        return None
    mine = segment[children]
    new = np.empty(len(children), bool)
    new[0], new[1:] = True, mine[1:] != mine[:-1]
    starts = np.flatnonzero(new)
    return children, starts[np.cumsum(new) - 1]


def _ints(values: Iterable[int], count: int) -> Ints:
    import numpy as np

    return np.fromiter(values, np.intp, count=count)


def _sums(index: Ints, weights: Floats | Bools, count: int) -> Floats:
    """weights summed per index, each sum taken left to right from 0.0 (np.bincount's loop)."""
    import numpy as np

    return cast("Floats", np.bincount(index, weights, minlength=count))


def _bools(values: Iterable[bool], count: int) -> Bools:
    import numpy as np

    return np.fromiter(values, np.bool_, count=count)


def _offsets(sizes: Sequence[int] | Ints, repeats: Sequence[int] | None = None) -> Ints:
    """Where each block of `sizes` starts, repeated `repeats` times (default: its size)."""
    import numpy as np

    sized = np.asarray(sizes, dtype=np.intp)
    return np.repeat(np.cumsum(sized) - sized, sizes if repeats is None else repeats)


def _ranges(counts: Sequence[int] | Ints) -> Ints:
    """0..n-1 for every n in counts, concatenated."""
    import numpy as np

    return np.arange(int(np.sum(counts)), dtype=np.intp) - _offsets(counts)
