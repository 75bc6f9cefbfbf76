"""The result of scoring a tree: root score, its bracket, and every node's score and status."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import compress
from typing import Literal, Protocol, TypeAlias

from quest.rubric.model import JSONValue, attributes
from quest.rubric.verdict import LeafVerdict

NodeStatus: TypeAlias = Literal["passed", "failed", "skipped", "partial", "error", "unverified"]
LEAF_SCORE: dict[object, float] = {
    "pass": 1.0,
    "fail": 0.0,
    "error": 0.0,
    "skipped": 0.0,
    None: 0.0,
}
# Status codes in order of precedence for a node scoring 0: the highest code among its
# children names it (QUEST's "failed if any child failed, else skipped", with error and
# unverified, which QUEST does not have, in between).
_PASSED, _PARTIAL, _SKIPPED, _UNVERIFIED, _ERROR, _FAILED = range(6)
_NAMES: tuple[NodeStatus, ...] = ("passed", "partial", "skipped", "unverified", "error", "failed")
_LEAF_CODE: dict[object, int] = {
    "pass": _PASSED,
    "fail": _FAILED,
    "error": _ERROR,
    "skipped": _SKIPPED,
    None: _UNVERIFIED,
}


class TreeLayout(Protocol):
    """What a report reads of the tree it scores (quest.rubric.score.CompiledTree): its nodes laid
    out flat, leaves first and the root last, and the root score with undecided leaves passed."""

    ids: tuple[str, ...]
    leaf_ids: tuple[str, ...]
    leaf_count: int
    index: dict[str, int]
    children: tuple[tuple[int, ...], ...]

    def upper_root_score(
        self, statuses: list[str | None], scores: list[float], skipped: list[tuple[int, float]]
    ) -> float: ...


@dataclass(frozen=True)
class NodeResult:
    id: str
    path: str
    score: float
    status: NodeStatus
    verdict: LeafVerdict | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = attributes(self, "id path score status")
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        return out


class ScoreReport:
    """Scores and statuses of every node for one scored verdict set.

    Node statuses: passed (1), partial (between 0 and 1), and for a zero score failed (a child
    failed), error (a child's check errored), unverified (a leaf had no verdict) or skipped
    (short-circuited), in that order of precedence. Statuses and the upper bracket are derived
    on first access, so scoring for a reward pays for neither.
    """

    __slots__ = (
        "_codes",
        "_compiled",
        "_details",
        "_scores",
        "_skipped",
        "_statuses",
        "_upper",
        "root_score",
        "root_score_lower",
    )

    def __init__(
        self,
        compiled: TreeLayout,
        statuses: list[str | None],
        scores: list[float],
        skipped: list[tuple[int, float]],
        root_score: float,
        lower: float,
        upper: float | None,
        details: Mapping[str, LeafVerdict] | None,
    ) -> None:
        self._compiled = compiled
        self._statuses = statuses
        self._scores = scores
        self._skipped = skipped
        self._details = details
        self._upper = upper
        self._codes: list[int] | None = None
        self.root_score = root_score
        self.root_score_lower = lower

    @property
    def root_score_upper(self) -> float:
        """Root score with every errored or unverified leaf taken as the outcome that raises it."""
        if self._upper is None:
            self._upper = self._compiled.upper_root_score(
                self._statuses, self._scores, self._skipped
            )
        return self._upper

    @property
    def complete(self) -> bool:
        """True when every leaf has a pass, fail or skipped verdict."""
        return None not in self._statuses and "error" not in self._statuses

    @property
    def errored(self) -> tuple[str, ...]:
        """Leaves whose check errored (a judge failure is not a failed criterion)."""
        return self._leaves_where("error")

    @property
    def unverified(self) -> tuple[str, ...]:
        return self._leaves_where(None)

    @property
    def leaves_passed(self) -> int:
        return self._statuses.count("pass")

    @property
    def leaves_total(self) -> int:
        return len(self._statuses)

    def _leaves_where(self, status: str | None) -> tuple[str, ...]:
        return tuple(compress(self._compiled.leaf_ids, [s == status for s in self._statuses]))

    @property
    def root_status(self) -> NodeStatus:
        return _NAMES[self._status_codes()[-1]]

    def score_of(self, node_id: str) -> float:
        return self._scores[self._compiled.index[node_id]]

    def status_of(self, node_id: str) -> NodeStatus:
        return _NAMES[self._status_codes()[self._compiled.index[node_id]]]

    def verdict_of(self, node_id: str) -> LeafVerdict | None:
        return self._details.get(node_id) if self._details else None

    def _status_codes(self) -> list[int]:
        """All statuses at once, children before parents (the compiled order). `_scores` ends
        with the scorer's constant 1.0 slot, which has no status."""
        if self._codes is None:
            compiled, scores = self._compiled, self._scores
            codes = [_LEAF_CODE[status] for status in self._statuses]
            skipped = {pos for pos, _ in self._skipped}
            for pos in range(compiled.leaf_count, len(compiled.ids)):
                score = scores[pos]
                if score >= 1.0:
                    codes.append(_PASSED)
                elif score > 0.0:
                    codes.append(_PARTIAL)
                else:
                    codes.append(
                        max(_SKIPPED if k in skipped else codes[k] for k in compiled.children[pos])
                    )
            for pos in skipped:
                codes[pos] = _SKIPPED
            self._codes = codes
        return self._codes

    def nodes(self) -> list[NodeResult]:
        """Every node in pre-order (the order of the tree file), with its path."""
        compiled, codes = self._compiled, self._status_codes()
        results: list[NodeResult] = []
        stack: list[tuple[int, str]] = [(len(compiled.ids) - 1, "")]
        while stack:
            pos, parent_path = stack.pop()
            node_id = compiled.ids[pos]
            path = f"{parent_path}/{node_id}" if parent_path else node_id
            status = _NAMES[codes[pos]]
            verdict = self.verdict_of(node_id)
            results.append(NodeResult(node_id, path, self._scores[pos], status, verdict))
            stack.extend((kid, path) for kid in reversed(compiled.children[pos]))
        return results

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            **attributes(self, "root_score root_score_lower root_score_upper root_status complete"),
            "errored": list(self.errored),
            "unverified": list(self.unverified),
            "nodes": [node.to_dict() for node in self.nodes()],
        }
