"""Charts of the training pages. A running job's curves are drawn in the browser from the
series below (static/js/training.js appends what the websocket brings); everything that does
not change once drawn (a dataset's token lengths, an evaluation, a comparison of jobs) is a
plotly figure built here as JSON, which the page hands to the vendored plotly.js."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from apps.audit.charts import LAYOUT
from apps.training.models import TrainingJob

OK, BAD, ACCENT, MUTED = "#1f7a3d", "#b3261e", "#2f5fd0", "#9aa5b1"
# Titles are the page's headings, which wrap on a narrow screen where a plotly title would not.
MARGIN = {"l": 50, "r": 10, "t": 10, "b": 45}

# A job's live charts: the metric keys each draws (a chart is shown once one of them has a
# value). "band" draws mean ± that key; "stack" stacks the keys as shares of a step; "yaxis"
# is plotly's, for a scale the default draws badly (a constant learning rate of 1e-6).
JOB_CHARTS: tuple[dict[str, Any], ...] = (
    {"name": "loss", "title": "Loss", "keys": ["loss"]},
    {"name": "reward", "title": "Reward (mean ± std)", "keys": ["reward"], "band": "reward_std"},
    {"name": "components", "title": "Reward components", "keys": ["reward/base",
                                                                "reward/citation"]},
    {"name": "kl", "title": "KL divergence", "keys": ["kl"]},
    {"name": "entropy", "title": "Entropy", "keys": ["entropy"]},
    {"name": "learning_rate", "title": "Learning rate", "keys": ["learning_rate"],
     "yaxis": {"exponentformat": "e", "rangemode": "tozero"}},
    {"name": "throughput", "title": "Tokens per second", "keys": ["tokens_per_s"]},
    {"name": "step_time", "title": "Seconds per step", "keys": ["step_s"]},
    {"name": "shares", "title": "Share of a step's time", "stack": True,
     "keys": ["share/rollout", "share/reward", "share/optimisation"]},
)  # fmt: skip
COMPARE_METRICS = ("loss", "reward", "reward/base", "reward/citation", "kl", "entropy", "step_s")
COLOURS = ("#2f5fd0", "#c2410c", "#1f7a3d", "#7c3aed", "#b3261e", "#0e7490")


def _figure(data: Any, **layout: Any) -> dict[str, Any]:
    import plotly.graph_objects as go

    figure = go.Figure(data=data, layout={**LAYOUT, "margin": MARGIN, **layout})
    result: dict[str, Any] = json.loads(figure.to_json())
    return result


def _has(series: Sequence[Mapping[str, Any]], key: str) -> bool:
    return any(isinstance(point.get(key), int | float) for point in series)


def job_charts(series: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """JOB_CHARTS, each marked shown when the series already has a value for it."""
    return [{**chart, "shown": any(_has(series, k) for k in chart["keys"])} for chart in JOB_CHARTS]


# ---- a dataset's token lengths ---------------------------------------------------------------


def length_summary(lengths: Sequence[int]) -> dict[str, int]:
    ordered = sorted(lengths)
    if not ordered:
        return {}
    return {
        "rows": len(ordered),
        "median": ordered[len(ordered) // 2],
        "p95": ordered[int(len(ordered) * 0.95)],
        "max": ordered[-1],
    }


def length_histogram(lengths: Sequence[int]) -> dict[str, Any]:
    import plotly.graph_objects as go

    histogram = go.Histogram(
        x=list(lengths),
        nbinsx=40,
        marker_color=ACCENT,
        hovertemplate="%{x} tokens: %{y} rows<extra></extra>",
    )
    return _figure(
        [histogram],
        xaxis={"title": {"text": "tokens per row (chat template applied)"}},
        yaxis={"title": {"text": "rows"}},
        bargap=0.05,
    )


# ---- an evaluation -----------------------------------------------------------------------------


def _mean_marker(label: str, mean: float, ci: Sequence[float] | None) -> Any:
    import plotly.graph_objects as go

    error = None
    if ci:
        error = {"type": "data", "symmetric": False, "array": [ci[1] - mean],
                 "arrayminus": [mean - ci[0]], "thickness": 2, "width": 8}  # fmt: skip
    return go.Scatter(
        x=[label],
        y=[mean],
        mode="markers",
        error_y=error,
        marker={"symbol": "diamond", "size": 12, "color": BAD},
        name="mean, 95% CI",
        showlegend=label == "checkpoint",
        hovertemplate=label + " mean %{y:.3f}<extra></extra>",
    )


def evaluation_chart(models: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per model: every task's reward as a box with its points, and the mean with its 95%
    interval on it, on one axis so the two models read side by side."""
    import plotly.graph_objects as go

    traces: list[Any] = []
    for label, colour in (("checkpoint", ACCENT), ("base", MUTED)):
        model = models.get(label)
        if not model:
            continue
        rewards = [s["reward"] for s in model.get("scores") or [] if s.get("reward") is not None]
        traces.append(
            go.Box(
                y=rewards,
                name=label,
                marker_color=colour,
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                showlegend=False,
                hovertemplate=label + ": %{y:.3f}<extra></extra>",
            )
        )
        mean = model.get("mean")
        if mean is not None:
            traces.append(_mean_marker(label, mean, model.get("ci95")))
    return _figure(
        traces,
        yaxis={"title": {"text": "reward"}, "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.15},
    )


# ---- jobs compared -----------------------------------------------------------------------------


def compare_figures(
    jobs: Sequence[TrainingJob], series: Mapping[int, Sequence[Mapping[str, Any]]]
) -> dict[str, dict[str, Any]]:
    """One figure per metric any of the jobs logged: a curve per job over steps."""
    import plotly.graph_objects as go

    figures = {}
    for metric in COMPARE_METRICS:
        if not any(_has(series[job.pk], metric) for job in jobs):
            continue
        lines = []
        for number, job in enumerate(jobs):
            points = [p for p in series[job.pk] if isinstance(p.get(metric), int | float)]
            lines.append(go.Scatter(x=[p["step"] for p in points], y=[p[metric] for p in points],
                                    mode="lines+markers", marker={"size": 4},
                                    line={"color": COLOURS[number % len(COLOURS)]},
                                    name=f"#{job.pk} {job.name}"[:40]))  # fmt: skip
        figures[metric] = _figure(
            lines,
            xaxis={"title": {"text": "step"}},
            showlegend=True,
            legend={"orientation": "h", "y": -0.25},
            margin={**MARGIN, "b": 60},
        )
    return figures
