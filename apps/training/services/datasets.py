"""Datasets asked for and cancelled; a worker builds them (apps/training/datasets.py)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.db import transaction

from apps.audit.models import Campaign
from apps.common import llm
from apps.common.errors import Invalid
from apps.common.storable import ensure_storable
from apps.jobs.dispatch import job_enqueue
from apps.jobs.models import JobStatus
from apps.training import selectors
from apps.training.models import DatasetKind, TrainingDataset
from apps.training.services.common import admin, name_of, room, stop_or_cancel, whole
from quest.llm.local import SMOLLM2
from workers.queues import Queue

SCRIPTED = "scripted"
DATASET_PARAMS = {
    DatasetKind.RL: ("split", "limit", "campaign"),
    DatasetKind.SFT: (
        "split",
        "limit",
        "campaign",
        "policy",
        "attempts",
        "min_reward",
        "hint_retry",
    ),
    DatasetKind.MID: ("source_dataset",),
}
SPLITS = ("train", "all")
MAX_ATTEMPTS = 16
MAX_TASKS = 100_000


def policy_choices() -> list[str]:
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
        "limit": whole(data, "limit", 0, 0, MAX_TASKS),
    }
    if params["split"] not in SPLITS:
        raise Invalid(f"split must be one of {', '.join(SPLITS)}")
    if data.get("campaign") is not None:
        params["campaign"] = _campaign(data["campaign"])
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
        "attempts": whole(data, "attempts", 2, 1, MAX_ATTEMPTS),
        "min_reward": float(min_reward),
        "hint_retry": hint_retry,
    }


def _campaign(value: Any) -> int:
    """An audit campaign whose gated tasks alone the dataset is built from (a recipe's)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("campaign must be the id of an audit campaign")
    if not Campaign.objects.filter(pk=value).exists():
        raise Invalid(f"campaign: no audit campaign {value}")
    return value


def _source_dataset(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("source_dataset must be the id of a built SFT dataset")
    source = TrainingDataset.objects.filter(pk=value, kind=DatasetKind.SFT).first()
    if source is None or source.status != JobStatus.DONE:
        raise Invalid(f"source_dataset: no built SFT dataset {value} (its trajectories are read)")
    return value


def dataset_create(
    *, user: Any, kind: str, name: str = "", params: Mapping[str, Any] | None = None
) -> TrainingDataset:
    """Queue a dataset build: on the gpu queue when its policy runs a model in this worker
    (SmolLM2, vLLM), else on the cpu queue."""
    admin(user)
    if kind not in DatasetKind.values:
        raise Invalid(f"kind must be one of {', '.join(DatasetKind.values)}")
    ensure_storable(dict(params or {}), field="params")
    checked = dataset_params(kind, params or {})
    with transaction.atomic():
        room(TrainingDataset, user)
        dataset = TrainingDataset.objects.create(
            name=name_of(name, f"{kind} dataset"), kind=kind, params=checked, created_by=user
        )
        dataset.directory = str(selectors.training_root() / "datasets" / str(dataset.pk))
        dataset.save(update_fields=["directory"])
        policy = str(checked.get("policy", SCRIPTED))
        job_enqueue("dataset", dataset.pk, queue=Queue.GPU if runs_in_process(policy) else None)
    return dataset


def runs_in_process(policy: str) -> bool:
    """Whether a policy's model runs inside the worker (so on the gpu queue's solo worker)."""
    return policy == SMOLLM2 or llm.needs_gpu(policy)


def dataset_cancel(*, user: Any, dataset_id: int) -> TrainingDataset:
    admin(user)
    dataset: TrainingDataset = stop_or_cancel(
        "dataset", TrainingDataset, dataset_id, "dataset", stops=False
    )
    return dataset


def dataset_file(dataset: TrainingDataset) -> Path:
    """The rows a job trains on: rl.jsonl (TRL's layout), sft.jsonl or mid.jsonl."""
    return Path(dataset.directory) / f"{dataset.kind}.jsonl"
