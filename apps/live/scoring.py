"""The rubric tree lighting up during a task session.

While the agent works, the trusted facts of each condensed state are scored as if they were the
answer (deterministic checks only: judging every state would cost an LLM call per leaf); the
final answer is scored at the end, with the judge when one is configured, and the RL reward.
Only nodes whose status or score changed are sent, so a 300-node tree does not flood viewers.
"""

from __future__ import annotations

from typing import Any

from apps.rubrics.evaluation import TryResult, answer_evaluate
from apps.rubrics.models import Task


class TaskScorer:
    def __init__(self, task: Task, judge: Any = None) -> None:
        self.task = task
        self.judge = judge
        self.shown: dict[str, tuple[str, float]] = {}

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
        for node_id, entry in result.node_results.items():
            seen = (str(entry["status"]), round(float(entry["score"]), 4))
            if self.shown.get(node_id) != seen:
                self.shown[node_id] = seen
                changed[node_id] = {"status": seen[0], "score": seen[1]}
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
        events: list[tuple[str, dict[str, Any]]] = []
        if changed:
            events.append(("verdict", {"nodes": changed, "final": final}))
        events.append(("score", score))
        return events
