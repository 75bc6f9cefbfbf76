"""Scoring a rubric tree from leaf verdicts (QUEST-SPEC §1.1), compiled once, scored many times.

compile_tree() validates the tree and lays it out as flat arrays: leaves first (left to right),
then internal nodes in post-order, so the root is last and every child precedes its parent.
Each internal node becomes one plan entry holding itemgetters over its critical children, its
other children and all children. A score is then one C-level pass that reads the leaves'
verdicts, and one iteration per internal node whose work (gathering children, min, sum) runs
in C, instead of a recursive walk. Node statuses are derived from the scores on first access.

Errors and unverified leaves: `root_score` follows the spec (an unverified or errored leaf
scores 0). Because a judge error is not a failure, the report also gives the bracket that the
undecided leaves leave open: `root_score_lower` / `root_score_upper` are the root scores with
every undecided leaf taken as the outcome that lowers / raises it, and `complete` is false
while any leaf is undecided. Under quest and weighted scoring the root never falls when a leaf
turns from fail to pass, so lower == root_score; under points scoring a negative criterion that
errored could still be met, so lower may sit below root_score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter, mul
from typing import Any

from quest.rubric.errors import ErrorList, RubricError, quoted
from quest.rubric.model import Node, RubricTree
from quest.rubric.report import LEAF_SCORE, ScoreReport
from quest.rubric.validate import check_tree
from quest.rubric.verdict import LeafVerdict, status_of

# (position, critical children, other children, divisor, (all children, their positions) when
#  sequential, weights of the other children when weighted)
Entry = tuple[int, Any, Any, float, "tuple[Any, tuple[int, ...]] | None", "tuple[int, ...] | None"]


def _getter(positions: Sequence[int]) -> Any:
    """An itemgetter that always returns a tuple: a lone position is asked for twice, and
    divisors and weights are doubled to match, so no call site has to special-case it."""
    if len(positions) == 1:
        return itemgetter(positions[0], positions[0])
    return itemgetter(*positions)


class CompiledTree:
    """A validated tree laid out for fast, repeated scoring. Build with compile_tree()."""

    def __init__(self, tree: RubricTree) -> None:
        check_tree(tree)
        self.tree = tree
        order = _post_order(tree.root)
        leaves = [node for node in order if node.is_leaf]
        internal = [node for node in order if not node.is_leaf]
        self.nodes: tuple[Node, ...] = tuple(leaves + internal)
        self.ids: tuple[str, ...] = tuple(node.id for node in self.nodes)
        self.leaf_count = len(leaves)
        self.leaf_ids: tuple[str, ...] = self.ids[: self.leaf_count]
        self.index: dict[str, int] = {node_id: pos for pos, node_id in enumerate(self.ids)}
        self.children: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index[child.id] for child in node.children) for node in self.nodes
        )
        parent = [-1] * len(self.nodes)
        for pos, kids in enumerate(self.children):
            for kid in kids:
                parent[kid] = pos
        self.parent: tuple[int, ...] = tuple(parent)
        self.weighted = tree.scoring == "weighted"
        # Scores of internal nodes start at 0; one extra slot always holds 1.0, so a node without
        # critical (or without other) children reads that slot and needs no branch.
        self._one = len(self.nodes)
        self._tail = (*repeat(0.0, len(internal)), 1.0)
        self._plan = tuple(self._entry(pos) for pos in range(self.leaf_count, len(self.nodes)))
        self._points = tuple(n.weight or 0 for n in leaves) if tree.scoring == "points" else ()

    def _entry(self, pos: int) -> Entry:
        node, kids = self.nodes[pos], self.children[pos]
        flags = [child.critical for child in node.children]
        critical = [kid for kid, crit in zip(kids, flags, strict=True) if crit] or [self._one]
        scored = [kid for kid, crit in zip(kids, flags, strict=True) if not crit] or [self._one]
        weights = [self._weight(kid) for kid in scored] + ([0] if len(scored) == 1 else [])
        divisor = float(sum(weights) if self.weighted else len(weights))
        return (
            pos,
            _getter(critical),
            _getter(scored),
            divisor,
            (_getter(kids), kids) if node.strategy == "sequential" else None,
            tuple(weights) if self.weighted else None,
        )

    def _weight(self, pos: int) -> int:
        weight = self.nodes[pos].weight if pos < len(self.nodes) else None
        return 1 if weight is None else weight

    # -- scoring -------------------------------------------------------------------------------

    def score(self, verdicts: Mapping[str, str | LeafVerdict]) -> ScoreReport:
        """Score one set of leaf verdicts: node id -> "pass" | "fail" | "error" | "skipped", or a
        LeafVerdict. Leaves without a verdict are unverified. Raises RubricError on ids that are
        not leaves and on unknown statuses."""
        lookup: Callable[[str], Any] = verdicts.get
        statuses: list[Any] = list(map(lookup, self.leaf_ids))
        missing = statuses.count(None)
        if len(statuses) - missing == len(verdicts):
            try:
                scores = list(map(LEAF_SCORE.__getitem__, statuses))
            except (KeyError, TypeError):
                pass  # LeafVerdict objects, bad statuses or unhashable junk: the careful path
            else:
                return self._score(statuses, scores, None, bool(missing) or "error" in statuses)
        statuses, details = self._normalise(verdicts)
        scores = list(map(LEAF_SCORE.__getitem__, statuses))
        return self._score(statuses, scores, details, None in statuses or "error" in statuses)

    def _score(
        self,
        statuses: list[str | None],
        scores: list[float],
        details: Mapping[str, LeafVerdict] | None,
        undecided: bool,
    ) -> ScoreReport:
        if self._points:
            return self._score_points(statuses, details)
        scores += self._tail
        skipped: list[tuple[int, float]] = []
        self._run(self._plan, scores, skipped)
        root = scores[-2]
        upper = None if undecided else root
        return ScoreReport(self, statuses, scores, skipped, root, root, upper, details)

    def _run(
        self, plan: Sequence[Entry], scores: list[float], skipped: list[tuple[int, float]]
    ) -> None:
        """The inner loop. `skipped` collects (position, score before) of every child that a
        sequential short-circuit set to 0, so the report can mark it and undo it."""
        if self.weighted:
            self._run_weighted(plan, scores, skipped)
            return
        # Critical children score 0 or 1, so min() is the critical gate and the product is
        # exactly 0.0 or exactly the mean.
        for pos, critical, scored, divisor, sequence, _ in plan:
            if sequence is not None and min(sequence[0](scores)) < 1.0:
                _short_circuit(scores, sequence[1], skipped)
            scores[pos] = min(critical(scores)) * (sum(scored(scores)) / divisor)

    @staticmethod
    def _run_weighted(
        plan: Sequence[Entry], scores: list[float], skipped: list[tuple[int, float]]
    ) -> None:
        for pos, critical, scored, divisor, sequence, weights in plan:
            if sequence is not None and min(sequence[0](scores)) < 1.0:
                _short_circuit(scores, sequence[1], skipped)
            assert weights is not None  # weighted plans carry weights
            scores[pos] = min(critical(scores)) * (sum(map(mul, scored(scores), weights)) / divisor)

    def upper_root_score(
        self, statuses: list[str | None], scores: list[float], skipped: list[tuple[int, float]]
    ) -> float:
        """Root score with every undecided leaf taken as passed. Only the ancestors of those
        leaves change, so only they are recomputed (children before parents), starting from the
        scores as they were before any short-circuit."""
        before = scores[:]
        for pos, score in skipped:
            before[pos] = score
        dirty: set[int] = set()
        for pos in _undecided_positions(statuses):
            before[pos] = 1.0
            parent = self.parent[pos]
            while parent >= 0 and parent not in dirty:
                dirty.add(parent)
                parent = self.parent[parent]
        self._run([self._plan[pos - self.leaf_count] for pos in sorted(dirty)], before, [])
        return before[-2]

    def _score_points(
        self, statuses: list[str | None], details: Mapping[str, LeafVerdict] | None
    ) -> ScoreReport:
        """HealthBench / ResearchRubrics: sum of met points over the sum of positive points.
        An undecided negative criterion may yet be met, so the bracket is computed here."""
        points = self._points
        met = [status == "pass" for status in statuses]
        open_ = [status is None or status == "error" for status in statuses]
        low = [m or (u and p < 0) for m, u, p in zip(met, open_, points, strict=True)]
        high = [m or (u and p > 0) for m, u, p in zip(met, open_, points, strict=True)]
        root = _points_score(points, met)
        scores = [1.0 if hit else 0.0 for hit in met] + [root, 1.0]
        lower, upper = _points_score(points, low), _points_score(points, high)
        return ScoreReport(self, statuses, scores, [], root, lower, upper, details)

    def _normalise(
        self, verdicts: Mapping[str, str | LeafVerdict]
    ) -> tuple[list[str | None], dict[str, LeafVerdict]]:
        errors = ErrorList()
        statuses: list[str | None] = [None] * self.leaf_count
        details: dict[str, LeafVerdict] = {}
        for key, value in verdicts.items():
            pos = self.index.get(key) if isinstance(key, str) else None
            if pos is None or pos >= self.leaf_count:
                what = "an internal node" if pos is not None else "an unknown node"
                errors.add(f"verdict given for {what} {quoted(key)}")
                continue
            try:
                if isinstance(value, LeafVerdict):
                    statuses[pos] = status_of(value.status, key)
                    details[key] = value
                else:
                    statuses[pos] = status_of(value, key)
            except RubricError as exc:
                errors.add(exc.errors[0])
        errors.raise_if_any()
        return statuses, details


def compile_tree(tree: RubricTree) -> CompiledTree:
    """Validate and lay out a tree once; score it with `.score(verdicts)` as often as needed."""
    return CompiledTree(tree)


def score_tree(
    tree: RubricTree | CompiledTree, verdicts: Mapping[str, str | LeafVerdict]
) -> ScoreReport:
    compiled = tree if isinstance(tree, CompiledTree) else compile_tree(tree)
    return compiled.score(verdicts)


def _short_circuit(
    scores: list[float], sequence: tuple[int, ...], skipped: list[tuple[int, float]]
) -> None:
    children = iter(sequence)
    for child in children:
        if scores[child] < 1.0:
            break
    for child in children:
        skipped.append((child, scores[child]))
        scores[child] = 0.0


def _points_score(points: tuple[int, ...], met: list[bool]) -> float:
    positive = sum(p for p in points if p > 0)
    earned = sum(p for p, hit in zip(points, met, strict=True) if hit)
    return min(1.0, max(0.0, earned / positive))


def _undecided_positions(statuses: list[str | None]) -> list[int]:
    """Positions of the undecided leaves (None or "error"), found by C-level scans."""
    found: list[int] = []
    for wanted in (None, "error"):
        pos = -1
        while True:
            try:
                pos = statuses.index(wanted, pos + 1)
            except ValueError:
                break
            found.append(pos)
    return found


def _post_order(root: Node) -> list[Node]:
    out: list[Node] = []
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded or node.is_leaf:
            out.append(node)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.children))
    return out
