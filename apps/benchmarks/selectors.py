"""Reading benchmark runs as a user may (every role reads every run, as training's jobs; only
admins start or cancel them), their per-question rows and plots, the paired difference of two
runs, and what the form offers: models and the files in the benchmarks directory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from apps.benchmarks.models import BenchmarkRun
from apps.benchmarks.paths import benchmarks_root, shown
from apps.common.errors import Invalid
from apps.jobs import selectors as jobs
from apps.training.paths import shown_paths
from apps.training.selectors import ended_checkpoints
from quest.bench import BenchResults, BenchRow, figures_json, paired_difference, side_by_side
from quest.bench.results import ROWS, read_rows
from quest.llm.config import parse_endpoints
from workers.queues import Queue

KIND = "benchmark"
SCRIPTED = "scripted"
SMOLLM2 = "smollm2"
RUNS = "runs"
UPLOADS = "uploads"
LISTED_FILES = 200


@dataclass(frozen=True)
class ModelChoice:
    """A model a run may use: `value` as the form and REST send it, `spec` as the engine reads
    it, and the queue it runs on (gpu when its weights load inside the worker)."""

    value: str
    label: str
    spec: str
    queue: Queue


def run_list(*, user: Any) -> QuerySet[BenchmarkRun]:
    rows: QuerySet[BenchmarkRun] = jobs.job_list(user=user, kind=KIND)
    return rows


def run_get(*, user: Any, run_id: int) -> BenchmarkRun:
    run: BenchmarkRun = jobs.job_get(user=user, kind=KIND, job_id=run_id)
    return run


def run_rows(run: BenchmarkRun) -> list[BenchRow]:
    """The questions answered so far, in the order they were run."""
    return read_rows(Path(run.directory) / ROWS) if run.directory else []


def run_results(run: BenchmarkRun) -> BenchResults:
    return BenchResults(dict(run.setup), run_rows(run))


def run_metrics(run: BenchmarkRun) -> dict[str, Any]:
    """The metrics results.json gave at the end; for a run that ended without them (it
    failed), those of the questions it finished."""
    if run.metrics or run.is_active:
        return dict(run.metrics or {})
    results = run_results(run)
    return results.metrics() if results.rows else {}


def run_published(run: BenchmarkRun) -> dict[str, Any]:
    """The published numbers of the run's benchmark, each with where its setup differs."""
    found: dict[str, Any] = side_by_side(run.benchmark, run.setup or {"corpus": run.corpus})
    return found


def run_figures(run: BenchmarkRun) -> dict[str, Any]:
    """The calibration plot and search-call histogram (plotly JSON); none before a row."""
    results = run_results(run)
    if not results.rows:
        return {}
    if not results.setup:
        results.setup = {"benchmark": run.benchmark, "model": run.model or "responses"}
    figures: dict[str, Any] = figures_json(results)
    return figures


def runs_compare(*, user: Any, a: int, b: int) -> dict[str, Any]:
    """a - b on the same questions of the same benchmark; Invalid names what differs. The
    difference says which metric it compares and why (`metric_reason`)."""
    if a == b:
        raise Invalid(f"b: choose two different runs: run {a} is both a and b")
    first, second = run_get(user=user, run_id=a), run_get(user=user, run_id=b)
    if first.benchmark != second.benchmark:
        raise Invalid(
            f"b: run {b} is of {second.benchmark}, run {a} of {first.benchmark}: "
            "only runs of one benchmark compare"
        )
    rows_a, rows_b = run_rows(first), run_rows(second)
    ids_a, ids_b = {row.id for row in rows_a}, {row.id for row in rows_b}
    if not ids_a or ids_a != ids_b:
        raise Invalid(
            f"b: the runs answered different questions ({len(ids_a - ids_b)} only in run {a}, "
            f"{len(ids_b - ids_a)} only in run {b}): a paired difference needs the same set"
        )
    difference = paired_difference(rows_a, rows_b, benchmark=first.benchmark)
    difference["metric_reason"] = _metric_reason({a: rows_a, b: rows_b})
    return {"a": first, "b": second, "difference": difference}


def _metric_reason(rows: dict[int, list[BenchRow]]) -> str:
    """Why the paired difference compares judged accuracy or exact match."""
    unjudged = [run for run, found in rows.items() if not all(row.judged for row in found)]
    if not unjudged:
        return "a judge graded every question of both runs"
    if len(unjudged) == len(rows) and not any(row.judged for f in rows.values() for row in f):
        return "no judge graded either run"
    said = " and ".join(f"run {run}" for run in unjudged)
    verb = "was" if len(unjudged) == 1 else "were"
    return (
        f"{said} {verb} not judged on every question, and judged accuracy compares only when "
        "a judge graded every question of both runs"
    )


def model_choices(*, user: Any) -> list[ModelChoice]:
    """scripted, the built-in base model, the vLLM models a gpu worker loads, and the
    checkpoints of ended training jobs, newest first."""
    found = [
        ModelChoice(SCRIPTED, "scripted policy (no model)", SCRIPTED, Queue.CPU),
        ModelChoice(SMOLLM2, "SmolLM2-135M (built in)", "transformers:smollm2", Queue.GPU),
        *(ModelChoice(m, m, m, Queue.GPU) for m in settings.LLM_VLLM_MODELS),
    ]
    for job, checkpoint in ended_checkpoints(user=user):
        label = f"training job {job.pk} {job.name}: {checkpoint.name} (step {checkpoint.step})"
        found.append(ModelChoice(shown_paths(checkpoint.path), label, checkpoint.path, Queue.GPU))
    return found


def model_choice(*, user: Any, value: str) -> ModelChoice:
    """The model a request names: one of model_choices, or OpenAI-compatible endpoints written
    out (`URL|MODEL[|KEY_ENV]`, the key read from that variable on the worker)."""
    text = value.strip()
    for choice in model_choices(user=user):
        if text in (choice.value, choice.spec):
            return choice
    if not text.startswith(("http://", "https://")):
        raise Invalid(
            f"model: {value!r} is not scripted, a built-in model, a checkpoint of an ended "
            "training job or an endpoint URL|MODEL"
        )
    endpoints_check(text, field="model")
    return ModelChoice(text, text, text, Queue.CPU)


def endpoints_check(spec: str, *, field: str) -> None:
    try:
        parse_endpoints(spec)
    except ValueError as error:
        raise Invalid(f"{field}: {error}") from None


def data_files() -> list[str]:
    """Files in the benchmarks directory (not the runs' own), as the form offers them."""
    root = benchmarks_root()
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.relative_to(root).parts[0] != RUNS:
            found.append(shown(str(path)))
            if len(found) >= LISTED_FILES:
                break
    return found
