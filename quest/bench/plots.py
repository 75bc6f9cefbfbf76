"""A run's two plots, on one standalone page that opens offline (plots.html: plotly.js is
inlined once, no CDN), and as plotly JSON for a page that has its own plotly.js:

- calibration: for each confidence bin of the calibration error (the same bins of `beta`
  questions), the mean stated confidence against the share answered correctly, with the
  diagonal a calibrated agent would lie on;
- search calls: how many searches the agent made per question (of the questions whose saved
  response says).

Both axes of the calibration plot run a little past 0 and 1 (AXIS_RANGE), so a bin at
confidence 1.0 or share correct 0 shows its whole marker.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quest.bench.results import BenchResults

PLOTS = "plots.html"
AXIS_RANGE = (-0.02, 1.02)


def calibration_bins(
    confidences: list[float], correct: list[bool], beta: int
) -> list[tuple[float, float, int]]:
    """(mean confidence, accuracy, size) per bin, bins as the calibration error cuts them."""
    order = sorted(range(len(confidences)), key=lambda i: confidences[i])
    count = max(len(order) // beta, 1) if order else 0
    bins = []
    for b in range(count):
        members = order[b * beta : (b + 1) * beta if b < count - 1 else len(order)]
        mean = sum(confidences[i] for i in members) / len(members)
        bins.append((mean, sum(correct[i] for i in members) / len(members), len(members)))
    return bins


def figures(results: BenchResults) -> dict[str, Any]:
    """The plotly figures by name: "calibration" and "search_calls" (left out when no row knows
    its search calls: saved responses that do not say them)."""
    import plotly.graph_objects as go

    rows = results.rows
    title = f"{results.setup.get('benchmark')}: {results.setup.get('model') or 'responses'}"
    bins = calibration_bins(
        [r.confidence / 100 for r in rows], [r.correct for r in rows], results.beta
    )
    calibration = go.Figure()
    calibration.add_trace(
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="calibrated", line={"dash": "dot"})
    )
    calibration.add_trace(
        go.Scatter(
            x=[b[0] for b in bins],
            y=[b[1] for b in bins],
            mode="lines+markers",
            name=f"bins of {results.beta}",
            text=[f"{b[2]} questions" for b in bins],
        )
    )
    calibration.update_layout(
        title=f"Calibration, {title}",
        xaxis={"title": "stated confidence", "range": list(AXIS_RANGE)},
        yaxis={"title": "share correct", "range": list(AXIS_RANGE)},
    )
    # One bar per whole number of calls: plotly's automatic bins would merge counts.
    calls = go.Histogram(
        x=[r.search_calls for r in rows if r.search_calls_known],
        name="questions",
        xbins={"start": -0.5, "size": 1},
    )
    histogram = go.Figure(calls)
    histogram.update_layout(
        title=f"Search calls per question, {title}",
        xaxis={"title": "search calls"},
        yaxis={"title": "questions"},
        bargap=0.15,
    )
    if not any(r.search_calls_known for r in rows):
        return {"calibration": calibration}
    return {"calibration": calibration, "search_calls": histogram}


def figures_json(results: BenchResults) -> dict[str, Any]:
    return {name: figure.to_plotly_json() for name, figure in figures(results).items()}


def write_plots(directory: str | Path, results: BenchResults) -> Path:
    from plotly.io import to_html

    parts = [
        to_html(figure, full_html=False, include_plotlyjs="inline" if i == 0 else False)
        for i, figure in enumerate(figures(results).values())
    ]
    title = html.escape(f"questweb benchmark run: {results.setup.get('benchmark')}")
    path = Path(directory) / PLOTS
    path.write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body style='font-family:sans-serif;max-width:1100px;margin:auto'>{''.join(parts)}"
        "</body></html>",
        encoding="utf-8",
    )
    return path
