"""The rubric tree lighting up during a task session.

While the agent works, the trusted facts of each condensed state are scored as if they were the
answer (deterministic checks only: judging every state would cost an LLM call per leaf); the
final answer is scored at the end, with the judge when one is configured, and the RL reward.
Only nodes whose status or score changed are sent, so a 300-node tree does not flood viewers.
A node that a check which could not run (no judge, a judge error) leaves open is sent as
undecided, with its score bracket, as the task page shows it: never as a failed 0.
"""

from __future__ import annotations

from typing import Any

from apps.rubrics.evaluation import TryResult, answer_evaluate
from apps.rubrics.models import Task
from apps.rubrics.tree_view import tree_rows


class TaskScorer:
    def __init__(self, task: Task, judge: Any = None) -> None:
        self.task = task
        self.judge = judge
        self.shown: dict[str, dict[str, Any]] = {}

    def on_state(self, state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        info = state.get("information_state") or {}
        claims = [str(item.get("claim", "")) for item in info.get("trusted") or []]
        text = "\n".join(claim for claim in claims if claim)
        if not text:
            return []
        return self._events(answer_evaluate(task=self.task, text=text), final=False)

    def final(self, answer: str) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
        result = answer_evaluate(task=self.task, text=answer, judge=self.judge)
        events = self._events(result, final=True)
        return events, dict(events[-1][1])

    def _events(self, result: TryResult, *, final: bool) -> list[tuple[str, dict[str, Any]]]:
        changed: dict[str, dict[str, Any]] = {}
        for node_id, shown in _shown_nodes(result).items():
            if self.shown.get(node_id) != shown:
                self.shown[node_id] = shown
                changed[node_id] = dict(shown)
        report = result.report
        score: dict[str, Any] = {
            "root_score": report.root_score,
            "lower": report.root_score_lower,
            "upper": report.root_score_upper,
            "complete": report.complete,
            "final": final,
        }
        if final:
            score["reward"] = {
                k: v for k, v in result.reward.items() if k != "citations" and v is not None
            }
            score["reward"]["invalid"] = _invalid_citations(result.reward.get("citations") or [])
        events: list[tuple[str, dict[str, Any]]] = []
        if changed:
            events.append(("verdict", {"nodes": changed, "final": final}))
        events.append(("score", score))
        return events


def _invalid_citations(citations: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The citations that did not hold (or could not be checked), with why: the page names them
    beside the share that held."""
    return [
        {k: str(c.get(k) or "") for k in ("url", "label", "reason", "fact")}
        for c in citations
        if c.get("label") != "supported"
    ]


def _shown_nodes(result: TryResult) -> dict[str, dict[str, Any]]:
    """What the page draws of each scored node: its status and score, `negative` on a criterion
    a good answer does not meet, and for a node left open
    by an undecided check `undecided` and, on a node with a bracket, its `upper` bound. The
    task page's rule (tree_view.Row.state) decides which nodes are undecided."""
    nodes: dict[str, dict[str, Any]] = {}
    for row in tree_rows(result.tree, result.node_results):
        if row.result is None:
            continue
        shown = {"status": str(row.result["status"]), "score": round(float(row.result["score"]), 4)}
        if row.is_leaf and (row.node.get("weight") or 0) < 0:
            # Points scoring's negative criterion: not met is the good outcome (the page says so).
            shown["negative"] = True
        if row.state == "undecided":
            shown["undecided"] = True
            if "upper" in row.result:
                shown["upper"] = round(float(row.result["upper"]), 4)
        nodes[str(row.node["id"])] = shown
    return nodes
