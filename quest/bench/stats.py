"""The numbers a benchmark run reports, each with its 95 % interval and how it was computed.

- A rate of yes/no outcomes (accuracy, exact match): Wilson's score interval.
- A mean of other values (F1, evidence recall, search calls) and a paired difference: the
  percentile bootstrap over questions (quest.training.evaluate.bootstrap_ci, 10,000 resamples,
  seed 0).
- Calibration error: the RMS calibration error as HLE and BrowseComp report it. Questions are
  sorted by stated confidence (a stable sort: ties keep the file's order) and cut into bins of
  `beta` consecutive questions, the last bin taking the remainder (one bin when there are fewer
  than `beta`); the error is sqrt(sum over bins of (bin size / n) * (mean confidence - accuracy)^2),
  with confidence as a fraction. Its interval is a percentile bootstrap of the whole statistic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from quest.audit.wilson import wilson_interval
from quest.training.evaluate import bootstrap_ci

DEFAULT_BETA = 100
CALIBRATION_RESAMPLES = 2_000
WILSON = "Wilson score interval"
BOOTSTRAP = "percentile bootstrap over questions (10,000 resamples)"


def rate(outcomes: Sequence[bool]) -> dict[str, Any]:
    interval = wilson_interval(sum(outcomes), len(outcomes))
    return {
        "value": interval.rate,
        "ci95": [interval.low, interval.high] if outcomes else None,
        "n": len(outcomes),
        "interval": WILSON,
    }


def mean(values: Sequence[float]) -> dict[str, Any]:
    return {
        "value": math.fsum(values) / len(values) if values else None,
        "ci95": list(bootstrap_ci(values)) if values else None,
        "n": len(values),
        "interval": BOOTSTRAP,
    }


def calibration_error(
    confidences: Sequence[float], correct: Sequence[bool], *, beta: int = DEFAULT_BETA
) -> float:
    """`confidences` as fractions (0-1), one per question, with whether it was right."""
    if len(confidences) != len(correct) or not confidences:
        raise ValueError("calibration_error needs one outcome per confidence, and at least one")
    if beta < 1:
        raise ValueError("beta must be at least 1")
    order = sorted(range(len(confidences)), key=lambda i: confidences[i])
    bins = max(len(order) // beta, 1)
    total = 0.0
    for b in range(bins):
        members = order[b * beta : (b + 1) * beta if b < bins - 1 else len(order)]
        gap = math.fsum(confidences[i] for i in members) / len(members) - sum(
            correct[i] for i in members
        ) / len(members)
        total += len(members) / len(order) * gap * gap
    return math.sqrt(total)


def calibration(
    confidences: Sequence[float], correct: Sequence[bool], *, beta: int = DEFAULT_BETA
) -> dict[str, Any]:
    if not confidences:
        return {"value": None, "ci95": None, "n": 0, "beta": beta, "interval": None}
    import numpy as np

    rng = np.random.default_rng(0)
    size = len(confidences)
    draws = [
        calibration_error([confidences[i] for i in rows], [correct[i] for i in rows], beta=beta)
        for rows in rng.integers(0, size, size=(CALIBRATION_RESAMPLES, size)).tolist()
    ]
    low, high = np.quantile(draws, [0.025, 0.975])
    return {
        "value": calibration_error(confidences, correct, beta=beta),
        "ci95": [float(low), float(high)],
        "n": size,
        "beta": beta,
        "interval": f"percentile bootstrap over questions ({CALIBRATION_RESAMPLES:,} resamples)",
    }


def paired(differences: Sequence[float]) -> dict[str, Any]:
    return {
        **mean(differences),
        "wins": sum(d > 0 for d in differences),
        "losses": sum(d < 0 for d in differences),
        "ties": sum(d == 0 for d in differences),
        "interval": "paired " + BOOTSTRAP,
    }
