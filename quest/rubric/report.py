"""The result of scoring a tree: root score, its bracket, and every node's score and status."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from quest.rubric.aggregate import ERRORED, FAILED, SKIPPED, UNVERIFIED, State
from quest.rubric.model import JSONValue
from quest.rubric.verdict import LeafVerdict

if TYPE_CHECKING:
    from quest.rubric.score import CompiledTree

NodeStatus: TypeAlias = Literal["passed", "failed", "skipped", "partial", "error", "unverified"]
_STATUS: dict[object, NodeStatus] = {
    "pass": "passed",
    "fail": "failed",
    "error": "error",
    "skipped": "skipped",
    None: "unverified",
    1: "passed",
    FAILED: "failed",
    ERRORED: "error",
    UNVERIFIED: "unverified",
    SKIPPED: "skipped",
}


def status_of_state(state: State) -> NodeStatus:
    return _STATUS.get(state, "partial")


def score_of_state(state: State) -> float:
    if state == "pass":
        return 1.0
    if isinstance(state, int | float) and state > 0:
        return float(state)
    return 0.0


@dataclass(frozen=True)
class NodeResult:
    id: str
    path: str
    score: float
    status: NodeStatus
    verdict: LeafVerdict | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {
            "id": self.id,
            "path": self.path,
            "score": self.score,
            "status": self.status,
        }
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        return out


class ScoreReport:
    """Scores and statuses of every node of one scored verdict set.

    Node statuses: passed (1), partial (between 0 and 1), and for a zero score failed (a child
    failed), error (a child's check errored), unverified (a leaf had no verdict) or skipped
    (short-circuited), in that order of precedence, extending QUEST's failed-else-skipped rule
    with the two outcomes QUEST does not have. Per-node values are decoded on access so that
    scoring itself stays one pass over flat arrays.
    """

    __slots__ = (
        "_before",
        "_compiled",
        "_details",
        "_states",
        "_undecided",
        "_upper",
        "root_score",
        "root_score_lower",
    )

    def __init__(
        self,
        compiled: CompiledTree,
        states: list[State],
        root_score: float,
        lower: float,
        upper: float | None,
        before: list[State] | None,
        details: Mapping[str, LeafVerdict] | None,
    ) -> None:
        self._compiled = compiled
        self._states = states
        self._before = before
        self._details = details
        self._undecided: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._upper = root_score if before is None else upper
        self.root_score = root_score
        self.root_score_lower = lower

    @property
    def root_score_upper(self) -> float:
        """Root score with every errored or unverified leaf taken as the outcome that raises it."""
        if self._upper is None:
            assert self._before is not None  # set whenever the upper bound is left open
            self._upper = self._compiled.upper_root_score(self._before)
        return self._upper

    @property
    def complete(self) -> bool:
        """True when every leaf has a pass, fail or skipped verdict."""
        return self._before is None

    @property
    def errored(self) -> tuple[str, ...]:
        """Leaves whose check errored (a judge failure is not a failed criterion)."""
        return self._undecided_ids()[0]

    @property
    def unverified(self) -> tuple[str, ...]:
        return self._undecided_ids()[1]

    def _undecided_ids(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if self._before is None:
            return (), ()
        if self._undecided is None:
            self._undecided = self._compiled.undecided(self._before)
        return self._undecided

    @property
    def root_status(self) -> NodeStatus:
        return status_of_state(self._states[-1])

    def score_of(self, node_id: str) -> float:
        return score_of_state(self._states[self._compiled.index[node_id]])

    def status_of(self, node_id: str) -> NodeStatus:
        return status_of_state(self._states[self._compiled.index[node_id]])

    def verdict_of(self, node_id: str) -> LeafVerdict | None:
        return self._details.get(node_id) if self._details else None

    def nodes(self) -> list[NodeResult]:
        """Every node in pre-order (the order of the tree file), with its path."""
        compiled = self._compiled
        results: list[NodeResult] = []
        stack: list[tuple[int, str]] = [(len(compiled.ids) - 1, "")]
        while stack:
            pos, parent_path = stack.pop()
            node_id = compiled.ids[pos]
            path = f"{parent_path}/{node_id}" if parent_path else node_id
            state = self._states[pos]
            results.append(
                NodeResult(
                    node_id,
                    path,
                    score_of_state(state),
                    status_of_state(state),
                    self.verdict_of(node_id),
                )
            )
            stack.extend((kid, path) for kid in reversed(compiled.children[pos]))
        return results

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "root_score": self.root_score,
            "root_score_lower": self.root_score_lower,
            "root_score_upper": self.root_score_upper,
            "root_status": self.root_status,
            "complete": self.complete,
            "errored": list(self.errored),
            "unverified": list(self.unverified),
            "nodes": [node.to_dict() for node in self.nodes()],
        }
