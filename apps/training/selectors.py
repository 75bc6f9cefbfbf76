"""Reads for training pages and REST: datasets, jobs with their metrics, rollouts, logs and
checkpoints on disk, presets, evaluations; and which gated tasks are held out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.selectors import training_versions
from apps.common.errors import NotFound
from apps.jobs.models import ENDED, JobStatus
from apps.live.checkpoints import LiveCheckpoint
from apps.rubrics.models import RubricVersion, Task
from apps.training.models import (
    Evaluation,
    TrainingDataset,
    TrainingJob,
    TrainingMetric,
    TrainingPreset,
    TrainingRollout,
)
from apps.training.paths import shown_paths
from quest.training.config import checkpoint_step, holds_optimizer_state
from quest.training.tasks import held_out

MAX_PAGE_SIZE = 200
# The most metric lines one answer carries (the REST page, a websocket catch-up).
MAX_METRICS_PER_PAGE = 5_000
LOG_TAIL_BYTES = 64_000
PREVIEW_FILE = "preview.json"
START_MODEL = "start model"  # the model a job started from, at step 0 of its held-out curve


def gated_versions(*, split: str) -> Iterator[tuple[Task, RubricVersion]]:
    """The training gate's tasks (accepted in an audit, probed sound) with their gated tree
    version, of one split: "train", "held_out" or "all"."""
    for task, version in training_versions():
        if split == "all" or held_out(task.pk) == (split == "held_out"):
            yield task, version


def task_record(task: Task, version: RubricVersion) -> dict[str, Any]:
    """A gated task as quest.training.tasks reads it."""
    return {
        "task_id": str(task.pk),
        "question": task.question,
        "rubric": version.tree,
        "type": task.type,
        "category": task.category,
    }


def split_counts() -> dict[str, int]:
    counts = {"train": 0, "held_out": 0}
    for task, _ in gated_versions(split="all"):
        counts["held_out" if held_out(task.pk) else "train"] += 1
    return counts


def _viewer(user: Any) -> None:
    require_role(user, Role.VIEWER)


def dataset_list(*, user: Any) -> QuerySet[TrainingDataset]:
    _viewer(user)
    return TrainingDataset.objects.select_related("created_by")


def dataset_get(*, user: Any, dataset_id: int) -> TrainingDataset:
    _viewer(user)
    try:
        return TrainingDataset.objects.select_related("created_by").get(pk=dataset_id)
    except TrainingDataset.DoesNotExist:
        raise NotFound(f"no dataset {dataset_id}") from None


def dataset_preview(dataset: TrainingDataset) -> list[dict[str, Any]]:
    """The first rows with the chat template applied, as [{"segments": [[text, trained]]}]."""
    path = Path(dataset.directory) / PREVIEW_FILE
    try:
        return list(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return []


def job_list(*, user: Any) -> QuerySet[TrainingJob]:
    _viewer(user)
    return TrainingJob.objects.select_related("created_by", "dataset")


def job_get(*, user: Any, job_id: int) -> TrainingJob:
    _viewer(user)
    try:
        return TrainingJob.objects.select_related("created_by", "dataset", "resumed_from").get(
            pk=job_id
        )
    except TrainingJob.DoesNotExist:
        raise NotFound(f"no training job {job_id}") from None


def metric_list(job: TrainingJob, *, after: int = -1) -> QuerySet[TrainingMetric]:
    """The run's metrics log after line `after`, in order."""
    return job.metrics.filter(line__gt=after).order_by("line")


def metrics_after(
    job: TrainingJob, *, after: int = -1, limit: int = MAX_METRICS_PER_PAGE
) -> list[TrainingMetric]:
    return list(metric_list(job, after=after)[:limit])


def metric_series(job: TrainingJob) -> list[dict[str, Any]]:
    """Every logged step as {"step", **values} (summaries left out)."""
    return [
        {"step": m.step, **m.values}
        for m in job.metrics.filter(kind="step").order_by("line").only("step", "values")
    ]


def rollout_list(job: TrainingJob, *, step: int | None) -> QuerySet[TrainingRollout]:
    """The run's rollouts, newest step first (only `step`'s, when given)."""
    rows = job.rollouts.all()
    if step is not None:
        rows = rows.filter(step=step)
    return rows.order_by("-step", "index")


def rollout_page(
    job: TrainingJob, *, step: int | None, page: int, page_size: int = 20
) -> Page[TrainingRollout]:
    return Paginator(rollout_list(job, step=step), page_size).get_page(page)


def rollout_steps(job: TrainingJob) -> list[int]:
    return list(job.rollouts.order_by("-step").values_list("step", flat=True).distinct())


def log_tail(job: TrainingJob, *, max_bytes: int = LOG_TAIL_BYTES) -> str:
    """The end of the run's log (train.log in its output directory): kept after a failure. Its
    paths are shown relative to the training directory, as every reader may see it."""
    return shown_paths(file_tail(Path(job.output_dir) / "train.log", max_bytes=max_bytes))


def file_tail(path: Path, *, max_bytes: int = LOG_TAIL_BYTES) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - max_bytes))
            data = handle.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return text if size <= max_bytes else "…" + text.split("\n", 1)[-1]


@dataclass(frozen=True)
class Checkpoint:
    name: str
    path: str
    step: int
    size_bytes: int
    final: bool = False
    resumable: bool = False  # holds the optimiser state a resumed job continues from


def checkpoints(job: TrainingJob) -> list[Checkpoint]:
    """Checkpoints on disk (checkpoint-N and final), newest step first, with size."""
    out = Path(job.output_dir)
    found = []
    for path in out.glob("checkpoint-*"):
        step = checkpoint_step(path)
        if step is not None and (path / "trainer_state.json").is_file():
            resumable = holds_optimizer_state(path)
            found.append(Checkpoint(path.name, str(path), step, _size(path), resumable=resumable))
    final = out / "final"
    if (final / "config.json").is_file():
        found.append(Checkpoint("final", str(final), job.step, _size(final), final=True))
    return sorted(found, key=lambda c: (c.step, c.final), reverse=True)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def checkpoint_get(job: TrainingJob, name: str) -> Checkpoint:
    for checkpoint in checkpoints(job):
        if checkpoint.name == name:
            return checkpoint
    raise NotFound(f"job {job.pk} has no checkpoint {name!r}")


def preset_list(*, user: Any) -> QuerySet[TrainingPreset]:
    _viewer(user)
    return TrainingPreset.objects.all()


def preset_get(*, user: Any, preset_id: int) -> TrainingPreset:
    _viewer(user)
    try:
        return TrainingPreset.objects.get(pk=preset_id)
    except TrainingPreset.DoesNotExist:
        raise NotFound(f"no preset {preset_id}") from None


def evaluation_list(*, user: Any, job: TrainingJob | None = None) -> QuerySet[Evaluation]:
    _viewer(user)
    rows = Evaluation.objects.select_related("created_by", "job")
    return rows.filter(job=job) if job is not None else rows


def evaluation_get(*, user: Any, evaluation_id: int) -> Evaluation:
    _viewer(user)
    try:
        return Evaluation.objects.select_related("created_by", "job").get(pk=evaluation_id)
    except Evaluation.DoesNotExist:
        raise NotFound(f"no evaluation {evaluation_id}") from None


@dataclass(frozen=True)
class HeldOutScore:
    """One model's mean reward on an evaluation's held-out tasks, placed at a step of the job:
    the checkpoint's, or 0 for the model the job started from (`label` "start model")."""

    evaluation_id: int
    label: str
    step: int
    mean: float
    ci95: tuple[float, float] | None
    n: int


def held_out_scores(job: TrainingJob) -> list[HeldOutScore]:
    """The held-out reward of each evaluated checkpoint of `job` (the newest evaluation per
    step that scored every task) and of the model it started from, in step order. A model an
    evaluation has not scored on every task yet (running, cancelled, failed) is left out."""
    found: dict[int, HeldOutScore] = {}
    for evaluation in job.evaluations.order_by("created_at", "id"):
        results = evaluation.results if isinstance(evaluation.results, dict) else {}
        scored = results.get("models")
        models: dict[str, Any] = scored if isinstance(scored, dict) else {}
        places = ((models.get("checkpoint"), Path(evaluation.checkpoint).name,
                   _checkpoint_step(job, evaluation.checkpoint)),
                  (models.get("base"), START_MODEL, 0))  # fmt: skip
        for model, label, step in places:
            score = _held_out_score(evaluation, model, label, step)
            if score is not None:
                found[score.step] = score
    return [found[step] for step in sorted(found)]


def _checkpoint_step(job: TrainingJob, path: str) -> int | None:
    if Path(path).name == "final":
        return job.step
    return checkpoint_step(Path(path))


def _held_out_score(
    evaluation: Evaluation, model: Any, label: str, step: int | None
) -> HeldOutScore | None:
    if not isinstance(model, dict) or step is None:
        return None
    mean, ci95, scores = model.get("mean"), model.get("ci95"), model.get("scores") or []
    if not isinstance(mean, int | float) or len(scores) < len(evaluation.task_ids):
        return None
    interval = (float(ci95[0]), float(ci95[1])) if isinstance(ci95, list) and ci95 else None
    return HeldOutScore(evaluation.pk, label, step, float(mean), interval, int(model.get("n") or 0))


def training_root() -> Path:
    return Path(settings.TRAINING_DIR)


def dataset_file_path(dataset: TrainingDataset, name: str) -> Path:
    """One of the files the build listed: a name looked up, never a path taken from a request."""
    listed = dataset.stats.get("files") or []
    path = Path(dataset.directory) / name
    if name not in listed or not path.is_file():
        raise NotFound(f"dataset {dataset.pk} has no file {name!r}")
    return path


# ---- page helpers ---------------------------------------------------------------------------


def dataset_built(*, user: Any, kind: str | None = None) -> QuerySet[TrainingDataset]:
    """Datasets a job can train on (built, with rows), of one kind or all."""
    rows = dataset_list(user=user).filter(status=JobStatus.DONE, rows__gt=0)
    return rows.filter(kind=kind) if kind else rows


def last_metric_line(job: TrainingJob) -> int:
    """The last stored metrics.jsonl line (-1: none): where a live page's websocket resumes."""
    line = job.metrics.order_by("-line").values_list("line", flat=True).first()
    return -1 if line is None else int(line)


def ended_checkpoints(*, user: Any, limit: int = 30) -> list[tuple[TrainingJob, Checkpoint]]:
    """The checkpoints on disk of the latest ended jobs: base models a new job can start from."""
    jobs = job_list(user=user).filter(status__in=ENDED)[:limit]
    return [(job, checkpoint) for job in jobs if job.output_dir for checkpoint in checkpoints(job)]


# A run that ended this way left checkpoints someone meant to keep; a failed one may not have.
LIVE_RUN_STATUSES = (JobStatus.DONE, JobStatus.STOPPED, JobStatus.CANCELLED)


def live_checkpoints(*, limit: int = 30) -> list[LiveCheckpoint]:
    """The loadable checkpoints (a model config beside the weights) of the latest finished,
    stopped or cancelled runs, newest run first, each with its held-out reward when an
    evaluation scored its step: what a live session may run (apps.live.checkpoints)."""
    jobs = TrainingJob.objects.filter(status__in=LIVE_RUN_STATUSES).order_by("-pk")[:limit]
    found: list[LiveCheckpoint] = []
    for job in jobs:
        if not job.output_dir:
            continue
        rewards = {s.step: s.mean for s in held_out_scores(job) if s.label != START_MODEL}
        found += [
            LiveCheckpoint(
                path=shown_paths(checkpoint.path),
                directory=checkpoint.path,
                job_id=job.pk,
                job_kind=job.get_kind_display(),
                step=checkpoint.step,
                held_out_reward=rewards.get(checkpoint.step),
            )
            for checkpoint in checkpoints(job)
            if (Path(checkpoint.path) / "config.json").is_file()
        ]
    return found
