"""Comparing runs: where their configs differ, key by key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from apps.training.models import TrainingJob

MIN_JOBS, MAX_JOBS = 2, 6


def flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"grpo": {"epsilon": 0.2}} → {"grpo.epsilon": 0.2}."""
    flat: dict[str, Any] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def config_diff(jobs: Sequence[TrainingJob]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(keys whose values differ → {job id: value}, keys every job shares → value)."""
    flat = {str(job.pk): flatten(job.config) for job in jobs}
    keys = sorted({key for values in flat.values() for key in values})
    differ, same = {}, {}
    for key in keys:
        values = {job_id: values.get(key) for job_id, values in flat.items()}
        if len({repr(v) for v in values.values()}) > 1:
            differ[key] = values
        else:
            same[key] = next(iter(values.values()))
    return differ, same
