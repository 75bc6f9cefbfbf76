"""Plotly figures for a batch's page, as JSON the page hands to the vendored plotly.js."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from apps.audit.charts import LAYOUT, count_axis
from apps.synthesis.models import ALL_STAGES
from apps.synthesis.selectors import BatchReport
from quest.synthesis.model import STAGE_LABELS

CLASSES = [f"C{i}" for i in range(1, 10)]
OK, BAD, ACCENT, MUTED = "#1f7a3d", "#b3261e", "#2f5fd0", "#9aa5b1"


# Titles are the page's headings, which wrap on a narrow screen where a plotly title would not.
MARGIN = {"l": 50, "r": 10, "t": 10, "b": 50}


def _figure(data: Any, **layout: Any) -> dict[str, Any]:
    import plotly.graph_objects as go

    figure = go.Figure(data=data, layout={**LAYOUT, "margin": MARGIN, **layout})
    result: dict[str, Any] = json.loads(figure.to_json())
    return result


def funnel_chart(report: BatchReport) -> dict[str, Any]:
    """Per stage, in funnel order from the top: the candidates that ran it and those that
    passed; the gap between the two bars is what the stage rejected."""
    import plotly.graph_objects as go

    stages = [s for s in ALL_STAGES if s in report.reached]
    labels = [STAGE_LABELS[s] for s in stages]
    bars = [
        go.Bar(name=name, y=labels, x=[counts.get(s, 0) for s in stages], orientation="h",
               marker_color=colour, text=[counts.get(s, 0) for s in stages], textposition="outside",
               textfont={"size": 12}, cliponaxis=False,
               hovertemplate="%{y}: %{x} " + name + "<extra></extra>")
        for name, counts, colour in (("reached", report.reached, MUTED),
                                     ("passed", report.passed, OK))
    ]  # fmt: skip
    return _figure(
        bars,
        barmode="group",
        yaxis={"autorange": "reversed", "automargin": True},
        xaxis={"rangemode": "tozero", "title": {"text": "candidates"}},
        margin={**MARGIN, "l": 10},
        legend={"orientation": "h", "y": -0.25},
    )


def category_chart(report: BatchReport) -> dict[str, Any]:
    import plotly.graph_objects as go

    names = sorted(set(report.categories["accepted"]) | set(report.categories["rejected"]))
    bars = [
        go.Bar(name=outcome, x=names, y=[report.categories[outcome][n] for n in names],
               marker_color=colour)
        for outcome, colour in (("accepted", OK), ("rejected", BAD))
    ]  # fmt: skip
    return _figure(bars, barmode="stack", xaxis={"automargin": True})


def class_chart(report: BatchReport) -> dict[str, Any]:
    """How often each target class measured as each class: the diagonal is on target."""
    import plotly.graph_objects as go

    seen = {c for pair in report.classes for c in pair}
    axis = CLASSES + sorted(seen - set(CLASSES))
    counts = [[report.classes[(target, measured)] for measured in axis] for target in axis]
    heat = go.Heatmap(
        x=axis,
        y=axis,
        z=counts,
        text=[[str(n or "") for n in row] for row in counts],
        texttemplate="%{text}",
        colorscale=[[0, "#ffffff"], [1, ACCENT]],
        showscale=False,
        hovertemplate="target %{y}, measured %{x}: %{z}<extra></extra>",
    )
    return _figure(
        [heat],
        xaxis={"title": {"text": "measured"}, "type": "category"},
        yaxis={"title": {"text": "target"}, "type": "category", "autorange": "reversed"},
    )


def count_chart(values: Sequence[int], axis_title: str) -> dict[str, Any]:
    """How many candidates' trees have each value (depth, breadth): one bar per value."""
    import plotly.graph_objects as go

    counted = Counter(values)
    keys = sorted(counted)
    bars = go.Bar(x=keys, y=[counted[k] for k in keys], marker_color=ACCENT,
                  hovertemplate=axis_title + " %{x}: %{y}<extra></extra>")  # fmt: skip
    return _figure(
        [bars],
        xaxis={"dtick": 1, "title": {"text": axis_title}},
        yaxis=count_axis(max(counted.values(), default=0)),
    )


def baseline_chart(rewards: Sequence[float]) -> dict[str, Any]:
    import plotly.graph_objects as go

    bins = [0] * 10  # [0, 0.1), ..., [0.9, 1.0]
    for reward in rewards:
        bins[min(9, max(0, int(reward * 10)))] += 1
    histogram = go.Bar(
        x=[i / 10 + 0.05 for i in range(10)],
        y=bins,
        width=0.095,
        marker_color=ACCENT,
        hovertemplate="reward about %{x:.2f}: %{y}<extra></extra>",
    )
    return _figure(
        [histogram],
        xaxis={"range": [0, 1], "title": {"text": "reward (lower is harder)"}},
        yaxis=count_axis(max(bins)),
    )


TITLES = {
    "funnel": "Funnel: candidates reaching and passing each stage",
    "categories": "Candidates by category",
    "classes": "Measured class vs target class",
    "depth": "Rubric tree depth",
    "breadth": "Rubric tree breadth (widest layer)",
    "baseline": "Baseline difficulty: the scripted agent's reward",
}


def batch_figures(report: BatchReport) -> dict[str, dict[str, Any]]:
    """The batch page's figures by name (TITLES); a distribution with nothing to show is left
    out."""
    figures = {"funnel": funnel_chart(report)}
    if any(report.categories.values()):
        figures["categories"] = category_chart(report)
    if report.classes:
        figures["classes"] = class_chart(report)
    if report.depths:
        figures["depth"] = count_chart(report.depths, "levels")
    if report.breadths:
        figures["breadth"] = count_chart(report.breadths, "nodes in the widest layer")
    if report.rewards:
        figures["baseline"] = baseline_chart(report.rewards)
    return figures
