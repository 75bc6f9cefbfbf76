"""Plotly figures for the quality dashboard, as JSON the page hands to the vendored plotly.js."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from apps.audit.selectors.quality import AnnotatorStats, GroupRate

LAYOUT = {
    "margin": {"l": 60, "r": 20, "t": 40, "b": 80},
    "height": 320,
    "font": {"family": "system-ui, sans-serif", "size": 12},
    "plot_bgcolor": "#ffffff",
    "paper_bgcolor": "#ffffff",
}


def _figure(data: Any, title: str, **layout: Any) -> dict[str, Any]:
    import plotly.graph_objects as go

    figure = go.Figure(data=data, layout={**LAYOUT, "title": {"text": title}, **layout})
    result: dict[str, Any] = json.loads(figure.to_json())
    return result


def whole_dtick(span: float, intervals: int = 6) -> int:
    """Whole units between ticks: 1, 2, 5, 10, 20, ... the least that keeps an axis spanning
    `span` to `intervals` intervals (so a count or a step never reads 1.5)."""
    scale = 1
    while True:
        for factor in (1, 2, 5):
            if span <= intervals * factor * scale:
                return factor * scale
        scale *= 10


def count_axis(most: int, **more: Any) -> dict[str, Any]:
    """An axis of counts up to `most`: whole ticks from 0."""
    return {"tickformat": "d", "tick0": 0, "dtick": whole_dtick(most), "rangemode": "tozero",
            "automargin": True, **more}  # fmt: skip


def rate_chart(title: str, rows: Sequence[GroupRate]) -> dict[str, Any]:
    """Error rate per group, with the Wilson 95% interval as asymmetric error bars."""
    import plotly.graph_objects as go

    rates = [r.interval.rate or 0.0 for r in rows]
    bars = go.Bar(
        x=[r.key for r in rows],
        y=rates,
        marker_color="#b3261e",
        error_y={
            "type": "data",
            "symmetric": False,
            "array": [r.interval.high - rate for r, rate in zip(rows, rates, strict=True)],
            "arrayminus": [rate - r.interval.low for r, rate in zip(rows, rates, strict=True)],
        },
        customdata=[[r.interval.successes, r.interval.n] for r in rows],
        hovertemplate="%{x}: %{y:.1%} (%{customdata[0]} of %{customdata[1]})<extra></extra>",
    )
    return _figure([bars], title, yaxis={"tickformat": ".0%", "range": [0, 1]})


def throughput_chart(annotators: Sequence[AnnotatorStats]) -> dict[str, Any]:
    import plotly.graph_objects as go

    names = [a.username for a in annotators]
    return _figure(
        [
            go.Bar(name="submitted", x=names, y=[a.submitted for a in annotators]),
            go.Bar(name="last 24 h", x=names, y=[a.last_day for a in annotators]),
        ],
        "Tasks audited per annotator",
        barmode="group",
        yaxis=count_axis(max((a.submitted for a in annotators), default=0)),
    )


def progress_chart(states: dict[str, int], labels: dict[str, str]) -> dict[str, Any]:
    import plotly.graph_objects as go

    colours = {"open": "#9aa5b1", "disputed": "#8a5a00", "decided": "#1f7a3d"}
    bars = [
        go.Bar(
            name=labels[state],
            y=["tasks"],
            x=[count],
            orientation="h",
            marker_color=colours.get(state),
        )
        for state, count in states.items()
    ]
    return _figure(
        bars, "Progress", barmode="stack", height=200, xaxis=count_axis(sum(states.values()))
    )
