"""Comparing runs: where their configs differ, key by key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apps.training.models import TrainingJob
from quest.training.config import flat_fields

MIN_JOBS, MAX_JOBS = 2, 6


def config_diff(jobs: Sequence[TrainingJob]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(keys whose values differ → {job id: value}, keys every job shares → value)."""
    flat = {str(job.pk): flat_fields(job.config) for job in jobs}
    keys = sorted({key for values in flat.values() for key in values})
    differ, same = {}, {}
    for key in keys:
        values = {job_id: values.get(key) for job_id, values in flat.items()}
        if len({repr(v) for v in values.values()}) > 1:
            differ[key] = values
        else:
            same[key] = next(iter(values.values()))
    return differ, same
