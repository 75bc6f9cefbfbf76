"""Scoring a rubric tree from leaf verdicts (QUEST-SPEC §1.1), compiled once, scored many times.

compile_tree() validates the tree and lays it out as flat arrays: leaves first (left to right),
then internal nodes in post-order, so the root is last and every child precedes its parent. A
score is then one C-level pass that reads the verdicts of the leaves, and one memo lookup per
internal node (see aggregate.py) instead of a recursive walk.

Errors and unverified leaves: `root_score` follows the spec (an unverified or errored leaf
scores 0). Because a judge error is not a failure, the report also gives the bracket that the
undecided leaves leave open: `root_score_lower` / `root_score_upper` are the root scores with
every undecided leaf taken as the outcome that lowers / raises it, and `complete` is false
while any leaf is undecided. Under quest and weighted scoring the root never falls when a leaf
turns from fail to pass, so lower == root_score; under points scoring a negative criterion that
errored could still be met, so lower may sit below root_score.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress, repeat
from operator import itemgetter
from typing import Any

from quest.rubric.aggregate import LEAF_VALUE, Aggregate, BadLeafState, Shape, State, table_for
from quest.rubric.errors import ErrorList, RubricError
from quest.rubric.model import Node, RubricTree
from quest.rubric.report import ScoreReport, score_of_state
from quest.rubric.validate import check_tree
from quest.rubric.verdict import LeafVerdict, status_of

_UPPER: dict[object, str] = {"error": "pass", None: "pass"}
Plan = tuple[tuple[int, Aggregate, Any], ...]


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
        self._zeros = tuple(repeat(0, len(internal)))
        self._plan, self._sequential = self._layout(tree.scoring == "weighted")
        self._points = tuple(node.weight or 0 for node in leaves) if tree.scoring == "points" else ()

    def _layout(self, weighted: bool) -> tuple[Plan, tuple[tuple[Aggregate, Any, tuple[int, ...]], ...]]:
        plan = []
        sequential = []
        for pos in range(self.leaf_count, len(self.nodes)):
            node, kids = self.nodes[pos], self.children[pos]
            shape = Shape(
                weighted=weighted,
                sequential=node.strategy == "sequential",
                critical=tuple(child.critical for child in node.children),
                leaf=tuple(kid < self.leaf_count for kid in kids),
                weights=tuple(1 if child.weight is None else child.weight for child in node.children),
            )
            table, getter = table_for(shape), itemgetter(*kids)
            plan.append((pos, table, getter))
            if shape.sequential:
                sequential.append((table, getter, kids))
        return tuple(plan), tuple(sequential)

    # -- scoring -------------------------------------------------------------------------------

    def score(self, verdicts: Mapping[str, str | LeafVerdict]) -> ScoreReport:
        """Score one set of leaf verdicts: node id -> "pass" | "fail" | "error" | "skipped", or a
        LeafVerdict. Leaves without a verdict are unverified. Raises RubricError on ids that are
        not leaves and on unknown statuses."""
        states: list[State] = list(map(verdicts.get, self.leaf_ids))
        if len(states) - states.count(None) == len(verdicts):
            try:
                return self._score(states, None)
            except (BadLeafState, TypeError):
                pass  # LeafVerdict objects, bad statuses or unhashable junk: the careful path
        states, details = self._normalise(verdicts)
        return self._score(states, details)

    def _score(self, leaf_states: list[State], details: Mapping[str, LeafVerdict] | None) -> ScoreReport:
        if self._points:
            return self._score_points(leaf_states, details)
        pending = leaf_states.count(None) + leaf_states.count("error")
        undecided = self._undecided(leaf_states) if pending else None
        upper = self._root_state(list(map(_UPPER.get, leaf_states, leaf_states))) if pending else None
        states = leaf_states
        states += self._zeros
        for pos, table, getter in self._plan:
            states[pos] = table[getter(states)]
        root = self._checked_root(states[-1])
        for table, getter, kids in self._sequential:
            cut = table.cut(getter(states))
            if cut:
                for kid in kids[cut:]:
                    states[kid] = "skipped"
        lower = score_of_state(root)
        return ScoreReport(self, states, lower, lower, score_of_state(upper) if pending else lower, undecided, details)

    def _root_state(self, states: list[State]) -> State:
        states += self._zeros
        for pos, table, getter in self._plan:
            states[pos] = table[getter(states)]
        return self._checked_root(states[-1])

    def _checked_root(self, root: State) -> State:
        # A one-leaf tree never reaches an Aggregate, which is where statuses are checked.
        if not self._plan and root not in LEAF_VALUE:
            raise BadLeafState
        return root

    def _undecided(self, leaf_states: list[State]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        errored = tuple(compress(self.leaf_ids, [state == "error" for state in leaf_states]))
        unverified = tuple(compress(self.leaf_ids, [state is None for state in leaf_states]))
        return errored, unverified

    def _score_points(self, leaf_states: list[State], details: Mapping[str, LeafVerdict] | None) -> ScoreReport:
        """HealthBench / ResearchRubrics: sum of met points over the sum of positive points."""
        for state in leaf_states:
            if state not in LEAF_VALUE or not (state is None or type(state) is str):
                raise BadLeafState
        met = [state == "pass" for state in leaf_states]
        undecided = [state is None or state == "error" for state in leaf_states]
        root = _points_score(self._points, met)
        lower = _points_score(self._points, [m or (u and p < 0) for m, u, p in zip(met, undecided, self._points)])
        upper = _points_score(self._points, [m or (u and p > 0) for m, u, p in zip(met, undecided, self._points)])
        states = list(leaf_states)
        states.append(_points_state(root, leaf_states))
        pending = any(undecided)
        return ScoreReport(self, states, root, lower, upper, self._undecided(leaf_states) if pending else None, details)

    def _normalise(self, verdicts: Mapping[str, str | LeafVerdict]) -> tuple[list[State], dict[str, LeafVerdict]]:
        errors = ErrorList()
        states: list[State] = [None] * self.leaf_count
        details: dict[str, LeafVerdict] = {}
        for key, value in verdicts.items():
            pos = self.index.get(key) if isinstance(key, str) else None
            if pos is None or pos >= self.leaf_count:
                what = "an internal node" if pos is not None else "an unknown node"
                errors.add(f"verdict given for {what} {str(key)[:80]!r}")
                continue
            try:
                if isinstance(value, LeafVerdict):
                    states[pos] = status_of(value.status, key)
                    details[key] = value
                else:
                    states[pos] = status_of(value, key)
            except RubricError as exc:
                errors.add(exc.errors[0])
        errors.raise_if_any()
        return states, details


def compile_tree(tree: RubricTree) -> CompiledTree:
    """Validate and lay out a tree once; score it with `.score(verdicts)` as often as needed."""
    return CompiledTree(tree)


def score_tree(tree: RubricTree | CompiledTree, verdicts: Mapping[str, str | LeafVerdict]) -> ScoreReport:
    compiled = tree if isinstance(tree, CompiledTree) else compile_tree(tree)
    return compiled.score(verdicts)


def _points_score(points: tuple[int, ...], met: list[bool]) -> float:
    positive = sum(p for p in points if p > 0)
    earned = sum(p for p, hit in zip(points, met, strict=True) if hit)
    return min(1.0, max(0.0, earned / positive))


def _points_state(score: float, leaf_states: list[State]) -> float:
    if score > 0:
        return score
    codes = [LEAF_VALUE[state] for state in leaf_states if LEAF_VALUE[state] < 0]
    return max(codes, default=-4)


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
