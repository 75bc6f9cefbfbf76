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

from collections.abc import Callable, Mapping
from itertools import compress, repeat
from operator import itemgetter
from typing import Any

from quest.rubric.aggregate import LEAF_VALUE, Aggregate, BadLeafState, Shape, State, table_for
from quest.rubric.errors import ErrorList, RubricError, quoted
from quest.rubric.model import Node, RubricTree
from quest.rubric.report import ScoreReport, score_of_state
from quest.rubric.validate import check_tree
from quest.rubric.verdict import LeafVerdict, status_of

_UPPER: dict[object, str] = {"error": "pass", None: "pass"}


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
        self._layout(tree.scoring == "weighted")
        self._points = (
            tuple(node.weight or 0 for node in leaves) if tree.scoring == "points" else ()
        )

    def _layout(self, weighted: bool) -> None:
        """Per internal node, in post-order: its shape's memo table and an itemgetter of its
        children's positions. Kept as two flat tuples: they are read once per score, and
        tuples of shared objects stay small enough to remain in cache across scores."""
        tables: list[Aggregate] = []
        getters: list[Any] = []
        for pos in range(self.leaf_count, len(self.nodes)):
            node, kids = self.nodes[pos], self.children[pos]
            shape = Shape(
                weighted=weighted,
                sequential=node.strategy == "sequential",
                critical=tuple(child.critical for child in node.children),
                leaf=tuple(kid < self.leaf_count for kid in kids),
                weights=tuple(1 if c.weight is None else c.weight for c in node.children),
            )
            tables.append(table_for(shape))
            getters.append(itemgetter(*kids))
        self._tables = tuple(tables)
        self._getters = tuple(getters)
        self._positions = range(self.leaf_count, len(self.nodes))

    # -- scoring -------------------------------------------------------------------------------

    def score(self, verdicts: Mapping[str, str | LeafVerdict]) -> ScoreReport:
        """Score one set of leaf verdicts: node id -> "pass" | "fail" | "error" | "skipped", or a
        LeafVerdict. Leaves without a verdict are unverified. Raises RubricError on ids that are
        not leaves and on unknown statuses."""
        lookup: Callable[[str], Any] = verdicts.get
        states: list[State] = list(map(lookup, self.leaf_ids))
        missing = states.count(None)
        if len(states) - missing == len(verdicts):
            try:
                return self._score(states, None, bool(missing) or "error" in states)
            except (BadLeafState, TypeError):
                pass  # LeafVerdict objects, bad statuses or unhashable junk: the careful path
        states, details = self._normalise(verdicts)
        return self._score(states, details, None in states or "error" in states)

    def _score(
        self, states: list[State], details: Mapping[str, LeafVerdict] | None, undecided: bool
    ) -> ScoreReport:
        if self._points:
            return self._score_points(states, details)
        states += self._zeros
        overwritten: list[tuple[int, State]] = []
        for pos, table, getter in zip(self._positions, self._tables, self._getters):
            state = table[getter(states)]
            if state.__class__ is tuple:
                state = self._short_circuit(states, pos, state, overwritten)
            states[pos] = state
        root = self._checked_root(states[-1])
        # Kept only when some leaf is undecided: the bracket and the lists of errored and
        # unverified leaves are computed from the states as they were before the skips.
        before = _undo(states, overwritten) if undecided else None
        score = score_of_state(root)
        return ScoreReport(self, states, score, score, None, before, details)

    def _short_circuit(
        self,
        states: list[State],
        pos: int,
        result: tuple[float, int],
        overwritten: list[tuple[int, State]],
    ) -> float:
        """Mark the children after a sequential node's first failure as skipped. Only this node
        reads them, and it already has, so the marks change no other score."""
        state, cut = result
        for kid in self.children[pos][cut:]:
            overwritten.append((kid, states[kid]))
            states[kid] = "skipped"
        return state

    def upper_root_score(self, before: list[State]) -> float:
        """Root score with every undecided leaf taken as passed. Only the ancestors of those
        leaves change, so only they are recomputed, children before parents."""
        states = before[:]
        dirty: set[int] = set()
        for pos in _positions(states, self.leaf_count):
            states[pos] = "pass"
            parent = self.parent[pos]
            while parent >= 0 and parent not in dirty:
                dirty.add(parent)
                parent = self.parent[parent]
        for pos in sorted(dirty):
            at = pos - self.leaf_count
            state = self._tables[at][self._getters[at](states)]
            states[pos] = state[0] if state.__class__ is tuple else state
        return score_of_state(states[-1])

    def undecided(self, before: list[State]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(errored leaf ids, unverified leaf ids) of a scored verdict set."""
        leaves = before[: self.leaf_count]
        errored = tuple(compress(self.leaf_ids, [state == "error" for state in leaves]))
        unverified = tuple(compress(self.leaf_ids, [state is None for state in leaves]))
        return errored, unverified

    def _checked_root(self, root: State) -> State:
        # A one-leaf tree never reaches an Aggregate, which is where statuses are checked.
        if not self._tables and root not in LEAF_VALUE:
            raise BadLeafState
        return root

    def _score_points(
        self, leaf_states: list[State], details: Mapping[str, LeafVerdict] | None
    ) -> ScoreReport:
        """HealthBench / ResearchRubrics: sum of met points over the sum of positive points.
        An undecided negative criterion may yet be met, so the bracket is computed here."""
        for state in leaf_states:
            if state not in LEAF_VALUE or not (state is None or type(state) is str):
                raise BadLeafState
        met = [state == "pass" for state in leaf_states]
        open_ = [state is None or state == "error" for state in leaf_states]
        points = self._points
        root = _points_score(points, met)
        low = [m or (u and p < 0) for m, u, p in zip(met, open_, points, strict=True)]
        high = [m or (u and p > 0) for m, u, p in zip(met, open_, points, strict=True)]
        states = list(leaf_states)
        states.append(_points_state(root, leaf_states))
        before = states[:] if any(open_) else None
        bounds = (_points_score(points, low), _points_score(points, high))
        return ScoreReport(self, states, root, bounds[0], bounds[1], before, details)

    def _normalise(
        self, verdicts: Mapping[str, str | LeafVerdict]
    ) -> tuple[list[State], dict[str, LeafVerdict]]:
        errors = ErrorList()
        states: list[State] = [None] * self.leaf_count
        details: dict[str, LeafVerdict] = {}
        for key, value in verdicts.items():
            pos = self.index.get(key) if isinstance(key, str) else None
            if pos is None or pos >= self.leaf_count:
                what = "an internal node" if pos is not None else "an unknown node"
                errors.add(f"verdict given for {what} {quoted(key)}")
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


def score_tree(
    tree: RubricTree | CompiledTree, verdicts: Mapping[str, str | LeafVerdict]
) -> ScoreReport:
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


def _undo(states: list[State], overwritten: list[tuple[int, State]]) -> list[State]:
    before = states[:]
    for pos, state in overwritten:
        before[pos] = state
    return before


def _positions(states: list[State], leaf_count: int) -> list[int]:
    """Positions of the undecided leaves (None or "error"), found by C-level scans."""
    found: list[int] = []
    for wanted in (None, "error"):
        pos = -1
        while True:
            try:
                pos = states.index(wanted, pos + 1, leaf_count)
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
