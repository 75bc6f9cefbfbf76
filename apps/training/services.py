"""Training writes: datasets asked for, jobs launched, cancelled and resumed, presets saved,
evaluations asked for, and the watchdog that ends work whose worker died.

Only admins (the `manage` permission) write here; viewers read through selectors. A job's
config is quest.training.config's TrainConfig, validated here exactly as `python -m quest
train` validates it, so the form, REST and the CLI refuse the same things with the same words.
Work is enqueued after the transaction commits (a worker never looks for a row that is not
there yet).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, Invalid, NotFound
from apps.common.storable import ensure_storable, printable
from apps.training import selectors
from apps.training.models import (
    ACTIVE,
    DatasetKind,
    Evaluation,
    JobKind,
    Status,
    TrainingDataset,
    TrainingJob,
    TrainingPreset,
)

SCRIPTED = "scripted"
MAX_QUEUED_PER_USER = 5
MAX_STEPS = 1_000_000
NAME_MAX = 120
# The dataset kind each job kind trains on.
JOB_DATASET = {
    JobKind.GRPO: DatasetKind.RL,
    JobKind.SFT: DatasetKind.SFT,
    JobKind.MID: DatasetKind.MID,
}
# What a launch form or REST body may set besides kind, name, dataset and model.
TUNABLE = ("max_steps", "save_steps", "logging_steps", "seed", "sft", "grpo", "rollout", "lora")
DATASET_PARAMS = {
    DatasetKind.RL: ("split", "limit"),
    DatasetKind.SFT: ("split", "limit", "policy", "attempts", "min_reward", "hint_retry"),
    DatasetKind.MID: ("source_dataset",),
}
SPLITS = ("train", "all")
MAX_ATTEMPTS = 16
MAX_TASKS = 100_000
DEFAULT_EVAL_TASKS = 40
MAX_EVAL_TASKS = 2_000
# Small by default: on a CPU every turn of a 135M model costs seconds.
EVAL_BUDGETS = {"max_turns": 8, "max_turn_tokens": 384}


def _admin(user: Any) -> None:
    require_role(user, Role.ADMIN)


def _name(value: Any, default: str) -> str:
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise Invalid("name must be text")
    name = printable(" ".join(value.split()))
    if len(name) > NAME_MAX:
        raise Invalid(f"name: at most {NAME_MAX} characters")
    return name or default


def _whole(data: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{key} must be a whole number")
    if not low <= value <= high:
        raise Invalid(f"{key} must be between {low} and {high}")
    return value


# ---- datasets -------------------------------------------------------------------------------


def policy_choices() -> list[str]:
    from apps.live import llm

    return [SCRIPTED, *llm.model_choices()]


def dataset_params(kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The build parameters of a dataset kind, checked; Invalid names the field."""
    allowed = DATASET_PARAMS[DatasetKind(kind)]
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise Invalid(f"unknown field {unknown[0]!r} (a {kind} dataset takes {', '.join(allowed)})")
    if kind == DatasetKind.MID:
        return {"source_dataset": _source_dataset(data.get("source_dataset"))}
    params: dict[str, Any] = {
        "split": data.get("split") or "train",
        "limit": _whole(data, "limit", 0, 0, MAX_TASKS),
    }
    if params["split"] not in SPLITS:
        raise Invalid(f"split must be one of {', '.join(SPLITS)}")
    if kind == DatasetKind.SFT:
        params.update(_collect_params(data))
    return params


def _collect_params(data: Mapping[str, Any]) -> dict[str, Any]:
    policy = data.get("policy") or SCRIPTED
    if policy not in policy_choices():
        raise Invalid(f"policy must be one of {', '.join(policy_choices())}")
    min_reward = data.get("min_reward", 0.5)
    if isinstance(min_reward, bool) or not isinstance(min_reward, int | float):
        raise Invalid("min_reward must be a number")
    if not 0.0 <= float(min_reward) <= 1.0:
        raise Invalid("min_reward must be between 0 and 1")
    hint_retry = data.get("hint_retry", True)
    if not isinstance(hint_retry, bool):
        raise Invalid("hint_retry must be true or false")
    return {
        "policy": policy,
        "attempts": _whole(data, "attempts", 2, 1, MAX_ATTEMPTS),
        "min_reward": float(min_reward),
        "hint_retry": hint_retry,
    }


def _source_dataset(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("source_dataset must be the id of a built SFT dataset")
    source = TrainingDataset.objects.filter(pk=value, kind=DatasetKind.SFT).first()
    if source is None or source.status != Status.DONE:
        raise Invalid(f"source_dataset: no built SFT dataset {value} (its trajectories are read)")
    return value


def dataset_create(
    *, user: Any, kind: str, name: str = "", params: Mapping[str, Any] | None = None
) -> TrainingDataset:
    """Queue a dataset build: on the gpu queue when its policy runs a model in this worker
    (SmolLM2, vLLM), else on the cpu queue."""
    _admin(user)
    if kind not in DatasetKind.values:
        raise Invalid(f"kind must be one of {', '.join(DatasetKind.values)}")
    ensure_storable(dict(params or {}), field="params")
    checked = dataset_params(kind, params or {})
    with transaction.atomic():
        _room(TrainingDataset, user)
        dataset = TrainingDataset.objects.create(
            name=_name(name, f"{kind} dataset"), kind=kind, params=checked, created_by=user
        )
        dataset.directory = str(selectors.training_root() / "datasets" / str(dataset.pk))
        dataset.save(update_fields=["directory"])
        transaction.on_commit(lambda: _enqueue_dataset(dataset))
    return dataset


def _room(model: type[Any], user: Any) -> None:
    active = model.objects.select_for_update().filter(created_by=user, status__in=ACTIVE)
    if len(active) >= MAX_QUEUED_PER_USER:
        raise Conflict(
            f"you already have {MAX_QUEUED_PER_USER} queued or running; cancel one or wait"
        )


def runs_in_process(policy: str) -> bool:
    """Whether a policy's model runs inside the worker (so on the gpu queue's solo worker)."""
    from apps.live import llm
    from quest.llm.local import SMOLLM2

    return policy == SMOLLM2 or llm.needs_gpu(policy)


def _enqueue_dataset(dataset: TrainingDataset) -> None:
    from apps.training import tasks

    policy = str(dataset.params.get("policy", SCRIPTED))
    run = tasks.gpu_training_dataset if runs_in_process(policy) else tasks.cpu_training_dataset
    run.delay(dataset.pk)


def dataset_cancel(*, user: Any, dataset_id: int) -> TrainingDataset:
    _admin(user)
    with transaction.atomic():
        dataset = _locked(TrainingDataset, dataset_id, "dataset")
        if dataset.status not in ACTIVE:
            raise Conflict(f"dataset {dataset_id} is {dataset.status}: nothing to cancel")
        dataset.status, dataset.finished_at = Status.CANCELLED, timezone.now()
        dataset.save(update_fields=["status", "finished_at"])
    return dataset


def dataset_file(dataset: TrainingDataset) -> Path:
    """The rows a job trains on: rl.jsonl (TRL's layout), sft.jsonl or mid.jsonl."""
    return Path(dataset.directory) / f"{dataset.kind}.jsonl"


def _locked(model: type[Any], pk: int, noun: str) -> Any:
    try:
        return model.objects.select_for_update().get(pk=pk)
    except model.DoesNotExist:
        raise NotFound(f"no {noun} {pk}") from None


# ---- jobs -----------------------------------------------------------------------------------


def model_check(model: Any) -> str:
    """tiny, smollm2, or an absolute path: a model directory here (it must hold config.json),
    or one that exists only on the gpu workers (the worker says so if it does not)."""
    from quest.training.config import SMOLLM2, TINY

    if not isinstance(model, str) or not model.strip():
        raise Invalid("model must be tiny, smollm2 or an absolute path to a model directory")
    model = model.strip()
    if any(ord(char) < 32 or ord(char) == 127 for char in model):
        raise Invalid("model: a path holds no control characters")
    if model in (TINY, SMOLLM2):
        return model
    path = Path(model)
    if not path.is_absolute() or ".." in path.parts:
        raise Invalid("model: a model directory must be an absolute path without '..'")
    if path.exists() and not (path / "config.json").is_file():
        raise Invalid(f"model: {model} is not a model directory (no config.json)")
    return model


def job_config(
    *, kind: str, dataset: TrainingDataset, model: str, params: Mapping[str, Any], output_dir: str
) -> Any:
    """The TrainConfig of a launch: the form's fields over the defaults (QUEST-SPEC §5, §6)."""
    from quest.training.config import ConfigError, parse_config

    if kind not in JobKind.values:
        raise Invalid(f"kind must be one of {', '.join(JobKind.values)}")
    wanted = JOB_DATASET[JobKind(kind)]
    if dataset.kind != wanted:
        raise Invalid(f"dataset: a {kind} job trains on a {wanted} dataset, not {dataset.kind}")
    if dataset.status != Status.DONE or not dataset.rows:
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
    from quest.training.config import render_yaml

    _admin(user)
    dataset = selectors.dataset_get(user=user, dataset_id=dataset_id)
    output = str(selectors.training_root() / "runs" / "<job id>")
    config = job_config(kind=kind, dataset=dataset, model=model, params=params, output_dir=output)
    return str(render_yaml(config))


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
    _admin(user)
    ensure_storable(dict(params or {}), field="params")
    dataset = selectors.dataset_get(user=user, dataset_id=dataset_id)
    draft = str(selectors.training_root() / "runs" / "0")
    job_config(kind=kind, dataset=dataset, model=model, params=params or {}, output_dir=draft)
    with transaction.atomic():
        _room(TrainingJob, user)
        job = TrainingJob.objects.create(
            name=_name(name, f"{kind} on {dataset.name}"),
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
    transaction.on_commit(lambda: _enqueue_job(job.pk))


def _enqueue_job(job_id: int) -> None:
    from apps.training import tasks

    tasks.gpu_training_job.delay(job_id)


def job_cancel(*, user: Any, job_id: int) -> TrainingJob:
    """A queued job ends cancelled; a running one is asked to stop: it saves a checkpoint at
    the end of its current step and ends stopped (resumable)."""
    from apps.training import broadcast

    _admin(user)
    with transaction.atomic():
        job = _locked(TrainingJob, job_id, "training job")
        if job.status == Status.QUEUED:
            job.status, job.finished_at = Status.CANCELLED, timezone.now()
            job.save(update_fields=["status", "finished_at"])
            broadcast.job_status(job)
        elif job.status == Status.RUNNING:
            job.cancel_requested = True
            job.save(update_fields=["cancel_requested"])
            broadcast.job_status(job)
        else:
            raise Conflict(f"job {job_id} is {job.status}: nothing to cancel")
    return job


def job_resume(
    *, user: Any, job_id: int, checkpoint: str, max_steps: int | None = None
) -> TrainingJob:
    """A new job that continues `job` from one of its checkpoints (optimiser, scheduler and
    step count restored), writing to its own directory."""
    from quest.training.config import ConfigError, parse_config

    _admin(user)
    parent = selectors.job_get(user=user, job_id=job_id)
    if parent.is_active:
        raise Conflict(f"job {job_id} is {parent.status}: resume it once it has ended")
    found = selectors.checkpoint_get(parent, checkpoint)
    if found.final:
        raise Invalid("checkpoint: the final model holds no optimiser state; pick checkpoint-N")
    steps = parent.config.get("max_steps", 1) if max_steps is None else max_steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps <= found.step:
        raise Invalid(f"max_steps must be a whole number above the checkpoint's step {found.step}")
    with transaction.atomic():
        _room(TrainingJob, user)
        job = TrainingJob.objects.create(
            name=_name(f"{parent.name} (resumed at {found.step})", "resumed"),
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


# ---- presets --------------------------------------------------------------------------------


def preset_save(
    *, user: Any, name: str, kind: str, model: str, params: Mapping[str, Any]
) -> TrainingPreset:
    """Save (or replace) a named launch form: kind, model and the tunable fields, validated."""
    from quest.training.config import ConfigError, parse_config

    _admin(user)
    preset_name = _name(name, "")
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
    _admin(user)
    deleted, _ = TrainingPreset.objects.filter(pk=preset_id).delete()
    if not deleted:
        raise NotFound(f"no preset {preset_id}")


# ---- evaluations ----------------------------------------------------------------------------


def evaluation_create(
    *,
    user: Any,
    job_id: int,
    checkpoint: str = "final",
    compare_base: bool = True,
    limit: int = DEFAULT_EVAL_TASKS,
    budgets: Mapping[str, Any] | None = None,
) -> Evaluation:
    """Queue an evaluation of a job's checkpoint, and of the model it started from, by the same
    agent loop on held-out gated tasks none of the job's data came from."""
    _admin(user)
    job = selectors.job_get(user=user, job_id=job_id)
    found = selectors.checkpoint_get(job, checkpoint)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_EVAL_TASKS:
        raise Invalid(f"limit must be a whole number between 1 and {MAX_EVAL_TASKS}")
    task_ids = held_out_tasks(job, limit)
    if not task_ids:
        raise Invalid(
            "no held-out gated task to evaluate on: accept and probe more tasks (a fixed fifth "
            "of gated tasks is held out of every dataset)"
        )
    with transaction.atomic():
        _room(Evaluation, user)
        evaluation = Evaluation.objects.create(
            job=job,
            checkpoint=found.path,
            base_model=job.model if compare_base else "",
            task_ids=task_ids,
            budgets=_eval_budgets(budgets or {}),
            total=len(task_ids) * (2 if compare_base else 1),
            created_by=user,
        )
        transaction.on_commit(lambda: _enqueue_evaluation(evaluation.pk))
    return evaluation


def held_out_tasks(job: TrainingJob, limit: int) -> list[str]:
    used = set(job.dataset.task_ids) if job.dataset else set()
    ids = [
        str(task.pk)
        for task, _ in selectors.gated_versions(split="held_out")
        if str(task.pk) not in used
    ]
    return ids[:limit]


def _eval_budgets(data: Mapping[str, Any]) -> dict[str, int]:
    unknown = sorted(set(data) - set(EVAL_BUDGETS))
    if unknown:
        raise Invalid(f"budgets: unknown field {unknown[0]!r}")
    return {
        "max_turns": _whole(data, "max_turns", EVAL_BUDGETS["max_turns"], 1, 50),
        "max_turn_tokens": _whole(
            data, "max_turn_tokens", EVAL_BUDGETS["max_turn_tokens"], 16, 10_240
        ),
    }


def _enqueue_evaluation(evaluation_id: int) -> None:
    from apps.training import tasks

    tasks.gpu_training_evaluation.delay(evaluation_id)


def evaluation_cancel(*, user: Any, evaluation_id: int) -> Evaluation:
    _admin(user)
    with transaction.atomic():
        evaluation = _locked(Evaluation, evaluation_id, "evaluation")
        if evaluation.status == Status.QUEUED:
            evaluation.status, evaluation.finished_at = Status.CANCELLED, timezone.now()
            evaluation.save(update_fields=["status", "finished_at"])
        elif evaluation.status == Status.RUNNING:
            evaluation.cancel_requested = True
            evaluation.save(update_fields=["cancel_requested"])
        else:
            raise Conflict(f"evaluation {evaluation_id} is {evaluation.status}: nothing to cancel")
    return evaluation


# ---- the watchdog ---------------------------------------------------------------------------


def work_expire(*, now: Any = None, stall_seconds: int | None = None) -> int:
    """End failed every running job, dataset build and evaluation whose worker has not
    reported for TRAINING_STALL_SECONDS: it died. A job's log stays on disk and on its page."""
    from apps.training import broadcast

    now = now or timezone.now()
    seconds = settings.TRAINING_STALL_SECONDS if stall_seconds is None else stall_seconds
    cutoff = now - timedelta(seconds=seconds)
    why = f"the worker stopped reporting for over {seconds} s (it died or lost its database)"
    ended = 0
    for model in (TrainingJob, TrainingDataset, Evaluation):
        with transaction.atomic():
            stale = model.objects.select_for_update().filter(
                status=Status.RUNNING, active_at__lt=cutoff
            )
            for row in stale:
                row.status, row.finished_at, row.error = Status.FAILED, now, why
                row.save(update_fields=["status", "finished_at", "error"])
                if isinstance(row, TrainingJob):
                    broadcast.job_status(row)
                ended += 1
    return ended
