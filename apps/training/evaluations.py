"""An evaluation inside a gpu worker (runner.evaluation_run): the checkpoint, then the model it
started from, run by the same agent loop (same budgets, tools and reward) on the same held-out
tasks; each model's mean reward with a 95% bootstrap interval, and the paired difference.

Results are saved after every model so a cancelled or failed evaluation keeps what it measured.
The built-in `tiny` model is random weights built from a seed; to be run as a base it is
written once to TRAINING_DIR/models/tiny-seed-N, exactly as a run builds it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.corpus.selectors import research_toolbox
from apps.jobs.models import JobStatus
from apps.training import datasets, selectors
from apps.training.models import Evaluation
from quest.agent import Budgets
from quest.training import task_from_record
from quest.training.config import SMOLLM2, TINY
from quest.training.evaluate import TaskScore, evaluate, paired_difference, policy_for, summarize
from quest.training.models import load_model


def run(evaluation_id: int, beat: Callable[..., bool]) -> None:
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    try:
        tasks = _tasks(evaluation.task_ids)
        results: dict[str, Any] = {"models": {}, "tasks": len(tasks)}
        models = [("checkpoint", evaluation.checkpoint)]
        if evaluation.base_model:
            models.append(("base", evaluation.base_model))
        for label, model in models:
            scores = _scores(evaluation, tasks, model, beat)
            results["models"][label] = _model_result(model, scores)
            _save(evaluation_id, results)
            if len(scores) < len(tasks):  # cancelled: what was measured stays
                _save(evaluation_id, results, status=JobStatus.CANCELLED)
                return
        if evaluation.base_model:
            results["difference"] = _difference(results)
        _save(evaluation_id, results, status=JobStatus.DONE)
    except Exception as error:  # the reason is shown on the evaluation's page
        _save(
            evaluation_id, None, status=JobStatus.FAILED, error=f"{type(error).__name__}: {error}"
        )


def _tasks(task_ids: list[str]) -> list[Any]:
    wanted = set(task_ids)
    found = {
        str(task.pk): task_from_record(selectors.task_record(task, version))
        for task, version in selectors.gated_versions(split="all")
        if str(task.pk) in wanted
    }
    missing = [t for t in task_ids if t not in found]
    if missing:
        raise ValueError(f"tasks no longer gated for training: {', '.join(missing[:10])}")
    return [found[t] for t in task_ids]


def _scores(
    evaluation: Evaluation, tasks: list[Any], model: str, beat: Callable[..., bool]
) -> list[Any]:
    budgets = Budgets(**evaluation.budgets)
    policy_factory, condenser_factory = policy_for(_spec(model), budgets=budgets)
    done = Evaluation.objects.values_list("done", flat=True).get(pk=evaluation.pk)
    stopped = False

    def on_task(index: int, score: Any) -> None:
        nonlocal stopped
        stopped = not beat(done=done + index + 1)

    return list(
        evaluate(
            tasks,
            policy_factory=policy_factory,
            condenser_factory=condenser_factory,
            toolbox=research_toolbox(),
            budgets=budgets,
            store=datasets._store(),
            judge=datasets._judge(model),
            on_task=on_task,
            should_stop=lambda: stopped,
        )
    )


def _spec(model: str) -> str:
    if model == SMOLLM2:
        return "transformers:smollm2"
    if model == TINY:
        return f"transformers:{_tiny_directory()}"
    return f"transformers:{model}"


def _tiny_directory(seed: int = 0) -> Path:
    directory = selectors.training_root() / "models" / f"tiny-seed-{seed}"
    if not (directory / "config.json").is_file():
        model, tokenizer = load_model("tiny", seed=seed)
        model.save_pretrained(directory)
        tokenizer.save_pretrained(directory)
    return directory


def _model_result(model: str, scores: list[Any]) -> dict[str, Any]:
    return {"model": model, **summarize(scores), "scores": [s.to_dict() for s in scores]}


def _difference(results: dict[str, Any]) -> dict[str, Any]:
    def scores(label: str) -> list[TaskScore]:
        return [TaskScore(**s) for s in results["models"][label]["scores"]]

    return paired_difference(scores("checkpoint"), scores("base"))


def _save(
    evaluation_id: int, results: dict[str, Any] | None, *, status: str = "", error: str = ""
) -> None:
    with transaction.atomic():
        row = Evaluation.objects.select_for_update().get(pk=evaluation_id)
        if results is not None:
            row.results = results
        if status and row.status == JobStatus.RUNNING:
            row.status, row.error, row.finished_at = status, error[:20_000], timezone.now()
        row.save()
