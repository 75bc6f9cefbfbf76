"""Scoring against a task's current tree: a map of leaf verdicts, or a free-text answer.

Cited pages are read from the corpus (an empty corpus means no document store: citations are
labelled "unknown"). There is no LLM judge in the web app yet, so judge leaves come back as
errors and a report on a QUEST tree says it is incomplete instead of pretending it failed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from apps.accounts.models import User
from apps.common.errors import Invalid
from apps.corpus.selectors import corpus_store
from apps.rubrics import engine, selectors
from apps.rubrics.models import Task
from quest.rubric import (
    CompiledTree,
    RubricError,
    ScoreReport,
    compile_tree,
    evaluate,
    extract_answer,
    label_citations,
    parse_citations,
    reward_from_report,
)
from quest.rubric.verdict import verdict_from_json

MAX_ANSWER_CHARS = 200_000
MAX_VERDICTS = 10_000


@dataclass(frozen=True)
class TryResult:
    tree: dict[str, Any]
    report: ScoreReport
    node_results: dict[str, dict[str, Any]]
    reward: dict[str, Any]

    @property
    def complete(self) -> bool:
        return self.report.complete

    @property
    def errored(self) -> list[str]:
        return list(self.report.errored)


def _current_tree(task: Task) -> dict[str, Any]:
    if task.current_version is None:
        raise Invalid(f"task {task.pk} has no rubric tree")
    tree: dict[str, Any] = task.current_version.tree
    return tree


def _upper_scores(compiled: CompiledTree, report: ScoreReport) -> dict[str, float]:
    """Each node's score with every undecided leaf (check errored, or no verdict) passed: with
    the node's score (undecided leaves failed) it brackets what a judge could make of it. Only
    failed or skipped leaves skip others, so passing the undecided ones changes no skip. The
    root takes the report's own bracket, which also handles points scoring's negative items."""
    undecided = set(report.errored) | set(report.unverified)
    if not undecided:
        return {}
    verdicts: dict[str, Any] = {
        leaf: "pass" if leaf in undecided else (report.verdict_of(leaf) or "skipped")
        for leaf in compiled.leaf_ids
    }
    optimistic = compiled.score(verdicts)
    upper = {node_id: optimistic.score_of(node_id) for node_id in compiled.ids}
    upper[compiled.ids[-1]] = report.root_score_upper
    return upper


def _node_results(compiled: CompiledTree, report: ScoreReport) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    upper = _upper_scores(compiled, report)
    for node in report.nodes():
        entry: dict[str, Any] = {"score": node.score, "status": node.status}
        if upper.get(node.id, node.score) > node.score:
            entry["upper"] = upper[node.id]
        if node.verdict is not None:
            entry["status"] = node.verdict.status
            entry["reasoning"] = node.verdict.reasoning
            entry["evidence"] = node.verdict.evidence.to_dict()
        results[node.id] = entry
    return results


def task_score(*, user: User, task_id: int, verdicts: Any) -> ScoreReport:
    """Score the current tree from a map of leaf id → pass/fail/error/skipped (or objects)."""
    task = selectors.task_get(user=user, task_id=task_id)
    if not isinstance(verdicts, dict):
        raise Invalid("verdicts must be an object mapping leaf ids to verdicts")
    if len(verdicts) > MAX_VERDICTS:
        raise Invalid(f"at most {MAX_VERDICTS} verdicts")
    compiled = compile_tree(engine.load(_current_tree(task)))
    try:
        parsed = {str(k): verdict_from_json(v, f"verdicts.{k}") for k, v in verdicts.items()}
        return compiled.score(parsed)
    except (RubricError, KeyError) as exc:
        raise Invalid(str(exc)) from exc


def task_try_answer(*, user: User, task_id: int, answer: str) -> TryResult:
    """Evaluate a free-text answer with the deterministic checks and compute the RL reward."""
    if len(answer) > MAX_ANSWER_CHARS:
        raise Invalid(f"the answer is longer than {MAX_ANSWER_CHARS:,} characters")
    text = extract_answer(answer) if "<answer>" in answer.lower() else answer.strip()
    if not text:
        raise Invalid("the answer is empty")
    task = selectors.task_get(user=user, task_id=task_id)
    return answer_evaluate(task=task, text=text)


def answer_evaluate(*, task: Task, text: str, judge: Any = None) -> TryResult:
    """Score `text` against the task's current tree, reading cited pages from the corpus; judge
    leaves go to `judge` (a ChatClient) when one is given."""
    tree = _current_tree(task)
    pages = corpus_store()
    compiled = compile_tree(engine.load(tree))
    report = evaluate(compiled, text, pages, judge, task=task.question)
    labels = label_citations(parse_citations(text), pages, judge, task=task.question)
    reward = reward_from_report(report, labels)
    counts = Counter(label.label for label in labels)
    summary = {
        **reward.to_dict(),
        "supported": counts["supported"],
        "unsupported": counts["unsupported"],
        "unknown": counts["unknown"],
        "root_score_lower": report.root_score_lower,
        "root_score_upper": report.root_score_upper,
    }
    return TryResult(
        tree=tree, report=report, node_results=_node_results(compiled, report), reward=summary
    )
