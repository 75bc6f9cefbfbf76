"""Jobs launched, cancelled and resumed, and presets of the launch form. A job's config is
quest.training.config's TrainConfig, validated exactly as `python -m quest train` validates it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.common.errors import Conflict, Invalid, NotFound
from apps.common.storable import ensure_storable
from apps.jobs.dispatch import job_enqueue
from apps.jobs.models import JobStatus
from apps.training import selectors
from apps.training.models import DatasetKind, JobKind, TrainingDataset, TrainingJob, TrainingPreset
from apps.training.paths import shown_paths
from apps.training.services.common import admin, name_of, room, stop_or_cancel
from apps.training.services.datasets import dataset_file
from quest.training.config import SMOLLM2, TINY, ConfigError, parse_config, render_yaml

MAX_STEPS = 1_000_000
# The dataset kind each job kind trains on.
JOB_DATASET = {
    JobKind.GRPO: DatasetKind.RL,
    JobKind.SFT: DatasetKind.SFT,
    JobKind.MID: DatasetKind.MID,
}
# What a launch form or REST body may set besides kind, name, dataset and model.
TUNABLE = ("max_steps", "save_steps", "logging_steps", "seed", "resumable", "sft", "grpo",
           "rollout", "lora")  # fmt: skip


def model_check(model: Any) -> str:
    """tiny, smollm2, a model directory under the training directory named relative to it (as
    the pages and REST show a checkpoint: runs/3/final), or an absolute path: a model
    directory here (it must hold config.json), or one that exists only on the gpu workers (the
    worker says so if it does not). Returns the model as a run gets it: a directory absolute."""
    if not isinstance(model, str) or not model.strip():
        raise Invalid("model must be tiny, smollm2 or an absolute path to a model directory")
    name = model.strip()
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        raise Invalid("model: a path holds no control characters")
    if name in (TINY, SMOLLM2):
        return name
    path = Path(name)
    if ".." in path.parts:
        raise Invalid("model: a model directory is a path without '..'")
    if not path.is_absolute():
        return _training_model(path)
    if path.exists() and not (path / "config.json").is_file():
        raise Invalid(f"model: {name} is not a model directory (no config.json)")
    return name


def _training_model(relative: Path) -> str:
    path = selectors.training_root() / relative
    if not (path / "config.json").is_file():
        raise Invalid(
            f"model: {relative} is not a model directory under the training directory (one "
            "elsewhere is given as an absolute path)"
        )
    return str(path)


def job_config(
    *, kind: str, dataset: TrainingDataset, model: str, params: Mapping[str, Any], output_dir: str
) -> Any:
    """The TrainConfig of a launch: the form's fields over the defaults (QUEST-SPEC §5, §6)."""
    if kind not in JobKind.values:
        raise Invalid(f"kind must be one of {', '.join(JobKind.values)}")
    wanted = JOB_DATASET[JobKind(kind)]
    if dataset.kind != wanted:
        raise Invalid(f"dataset: a {kind} job trains on a {wanted} dataset, not {dataset.kind}")
    if dataset.status != JobStatus.DONE or not dataset.rows:
        raise Invalid(f"dataset: dataset {dataset.pk} is not built yet (or has no rows)")
    unknown = sorted(set(params) - set(TUNABLE))
    if unknown:
        raise Invalid(f"unknown field {unknown[0]!r} (a job sets {', '.join(TUNABLE)})")
    data: dict[str, Any] = {
        **params,
        "kind": kind,
        "model": model_check(model),
        "dataset": [str(dataset_file(dataset))],
        "output_dir": output_dir,
    }
    if kind == JobKind.GRPO:
        data["corpus"] = str(settings.CORPUS_DIR)
    try:
        config = parse_config(data)
    except ConfigError as error:
        raise Invalid(str(error)) from None
    if config.max_steps > MAX_STEPS:  # the job's step counters are 32-bit columns
        raise Invalid(f"max_steps: at most {MAX_STEPS:,}")
    return config


def config_preview(
    *, user: Any, kind: str, dataset_id: int, model: str, params: Mapping[str, Any]
) -> str:
    """The YAML `python -m quest train` would get (the output directory is the job's once
    it exists)."""
    admin(user)
    dataset = selectors.dataset_get(user=user, dataset_id=dataset_id)
    output = str(selectors.training_root() / "runs" / "<job id>")
    config = job_config(kind=kind, dataset=dataset, model=model, params=params, output_dir=output)
    return shown_paths(str(render_yaml(config)))


def job_create(
    *,
    user: Any,
    kind: str,
    dataset_id: int,
    model: str,
    params: Mapping[str, Any] | None = None,
    name: str = "",
) -> TrainingJob:
    """Queue a training run on the gpu queue (its solo worker runs it in a subprocess)."""
    admin(user)
    ensure_storable(dict(params or {}), field="params")
    dataset = selectors.dataset_get(user=user, dataset_id=dataset_id)
    draft = str(selectors.training_root() / "runs" / "0")
    job_config(kind=kind, dataset=dataset, model=model, params=params or {}, output_dir=draft)
    with transaction.atomic():
        room(TrainingJob, user)
        job = TrainingJob.objects.create(
            name=name_of(name, f"{kind} on {dataset.name}"),
            kind=kind,
            dataset=dataset,
            config={},
            created_by=user,
        )
        output = str(selectors.training_root() / "runs" / str(job.pk))
        config = job_config(
            kind=kind, dataset=dataset, model=model, params=params or {}, output_dir=output
        )
        _set_config(job, config)
    return job


def _set_config(job: TrainingJob, config: Any) -> None:
    job.config = config.model_dump(mode="json")
    job.max_steps = config.max_steps
    job.save(update_fields=["config", "max_steps"])
    job_enqueue("training", job.pk)


def job_cancel(*, user: Any, job_id: int) -> TrainingJob:
    """A queued job ends cancelled; a running one is asked to stop: it saves a checkpoint at
    the end of its current step and ends stopped (resumable from it if the job is)."""
    admin(user)
    job: TrainingJob = stop_or_cancel("training", TrainingJob, job_id, "training job", stops=True)
    return job


def job_resume(
    *, user: Any, job_id: int, checkpoint: str, max_steps: int | None = None
) -> TrainingJob:
    """A new job that continues `job` from one of its checkpoints (optimiser, scheduler and
    step count restored), writing to its own directory."""
    admin(user)
    parent = selectors.job_get(user=user, job_id=job_id)
    if parent.is_active:
        raise Conflict(f"job {job_id} is {parent.status}: resume it once it has ended")
    found = selectors.checkpoint_get(parent, checkpoint)
    if found.final:
        raise Invalid("checkpoint: the final model holds no optimiser state; pick checkpoint-N")
    if not found.resumable:
        raise Invalid(_not_resumable(parent, found))
    steps = parent.config.get("max_steps", 1) if max_steps is None else max_steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps <= found.step:
        raise Invalid(f"max_steps must be a whole number above the checkpoint's step {found.step}")
    with transaction.atomic():
        room(TrainingJob, user)
        job = TrainingJob.objects.create(
            name=name_of(f"{parent.name} (resumed at {found.step})", "resumed"),
            kind=parent.kind,
            dataset=parent.dataset,
            config={},
            resumed_from=parent,
            created_by=user,
        )
        output = str(selectors.training_root() / "runs" / str(job.pk))
        data = {**parent.config, "output_dir": output, "resume_from": found.path}
        data.update(max_steps=steps, stop_file=None)
        try:
            config = parse_config(data)
        except ConfigError as error:
            raise Invalid(str(error)) from None
        _set_config(job, config)
    return job


def _not_resumable(job: TrainingJob, checkpoint: Any) -> str:
    """Why `checkpoint` of `job` cannot be resumed, and what can be done with it instead."""
    if job.config.get("resumable"):
        why = "only the newest checkpoint of a resumable job keeps its optimiser state"
    else:
        why = f"job {job.pk} was not resumable, so its checkpoints hold the weights only"
    return (
        f"checkpoint: {checkpoint.name} holds no optimiser state and cannot be resumed ({why}); "
        f"a new job can train from its weights with {checkpoint.path} as the model"
    )


def preset_save(
    *, user: Any, name: str, kind: str, model: str, params: Mapping[str, Any]
) -> TrainingPreset:
    """Save (or replace) a named launch form: kind, model and the tunable fields, validated."""
    admin(user)
    preset_name = name_of(name, "")
    if not preset_name:
        raise Invalid("name: a preset needs a name")
    ensure_storable(dict(params), field="params")
    unknown = sorted(set(params) - set(TUNABLE))
    if unknown:
        raise Invalid(f"unknown field {unknown[0]!r} (a preset sets {', '.join(TUNABLE)})")
    if kind not in JobKind.values:
        raise Invalid(f"kind must be one of {', '.join(JobKind.values)}")
    probe = {**params, "kind": kind, "model": model_check(model), "dataset": ["-"],
             "output_dir": "-", "corpus": "-"}  # fmt: skip
    try:
        parse_config(probe)
    except ConfigError as error:
        raise Invalid(str(error)) from None
    config = {"kind": kind, "model": model.strip(), **params}
    preset, _ = TrainingPreset.objects.update_or_create(
        name=preset_name, defaults={"config": config, "created_by": user}
    )
    return preset


def preset_delete(*, user: Any, preset_id: int) -> None:
    admin(user)
    deleted, _ = TrainingPreset.objects.filter(pk=preset_id).delete()
    if not deleted:
        raise NotFound(f"no preset {preset_id}")
