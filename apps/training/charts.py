"""Charts of the training pages: plotly figures built here as JSON, which the page hands to the
vendored plotly.js. A dataset's token lengths, an evaluation and a comparison of jobs are here;
a job's own curves and its held-out reward by checkpoint are in job_charts.py."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from apps.audit.charts import LAYOUT, count_axis, whole_dtick
from apps.training.models import TrainingJob

OK, BAD, ACCENT, MUTED = "#1f7a3d", "#b3261e", "#2f5fd0", "#9aa5b1"
# Titles are the page's headings, which wrap on a narrow screen where a plotly title would not.
MARGIN = {"l": 50, "r": 10, "t": 10, "b": 45}

COMPARE_METRICS = ("loss", "reward", "frac_reward_zero_std", "reward/base", "reward/citation",
                   "kl", "entropy", "step_s")  # fmt: skip
COLOURS = ("#2f5fd0", "#c2410c", "#1f7a3d", "#7c3aed", "#b3261e", "#0e7490")
# At most this many intervals between step ticks: the labels fit a phone's 390 px.
STEP_INTERVALS = 6


def figure_json(data: Any, **layout: Any) -> dict[str, Any]:
    import plotly.graph_objects as go

    figure = go.Figure(data=data, layout={**LAYOUT, "margin": MARGIN, **layout})
    result: dict[str, Any] = json.loads(figure.to_json())
    return result


def step_dtick(steps: Iterable[int]) -> int:
    """Whole steps between ticks: 1, 2, 5, 10, 20, ... the least that keeps the axis to
    STEP_INTERVALS intervals (static/js/training.js's stepDtick is the same)."""
    seen = list(steps)
    return whole_dtick(max(seen) - min(seen) if seen else 0, STEP_INTERVALS)


def step_axis(steps: Iterable[int], **more: Any) -> dict[str, Any]:
    return {"title": {"text": "step"}, "tickformat": "d", "tick0": 0, "dtick": step_dtick(steps),
            "zeroline": False, "automargin": True, **more}  # fmt: skip


def _has(series: Sequence[Mapping[str, Any]], key: str) -> bool:
    return any(isinstance(point.get(key), int | float) for point in series)


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
    import numpy as np
    import plotly.graph_objects as go

    counts, edges = np.histogram(lengths, bins=min(40, max(1, len(set(lengths)))))
    histogram = go.Bar(
        x=((edges[:-1] + edges[1:]) / 2).tolist(),
        y=counts.tolist(),
        width=float(edges[1] - edges[0]) * 0.95 if len(edges) > 1 else None,
        marker_color=ACCENT,
        hovertemplate="about %{x:.0f} tokens: %{y} rows<extra></extra>",
    )
    return figure_json(
        [histogram],
        xaxis={"title": {"text": "tokens per row (chat template applied)"}, "automargin": True},
        yaxis=count_axis(int(counts.max()) if len(counts) else 0, title={"text": "rows"}),
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
    return figure_json(
        traces,
        yaxis={"title": {"text": "reward"}, "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.15},
    )


# ---- jobs compared -----------------------------------------------------------------------------


def _is_control(job: TrainingJob) -> bool:
    """A GRPO run trained on rewards shuffled within each step (`grpo.reward: shuffled`): its
    curves are drawn dashed, so the real run's gain over it reads at a glance. Its `reward`
    is what the policy earned, as the real run's is; only the update saw the shuffled one."""
    grpo = (job.config or {}).get("grpo") or {}
    return job.kind == "grpo" and grpo.get("reward") == "shuffled"


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
            control = _is_control(job)
            name = f"#{job.pk} {job.name}"[:40] + (" (shuffled-reward control)" if control else "")
            lines.append(go.Scatter(x=[p["step"] for p in points], y=[p[metric] for p in points],
                                    mode="lines+markers", marker={"size": 4},
                                    line={"color": COLOURS[number % len(COLOURS)],
                                          "dash": "dash" if control else "solid"},
                                    name=name))  # fmt: skip
        steps = [x for line in lines for x in line.x]
        figures[metric] = figure_json(
            lines,
            xaxis=step_axis(steps),
            showlegend=True,
            legend={"orientation": "h", "y": -0.25},
            margin={**MARGIN, "b": 60},
        )
    return figures
