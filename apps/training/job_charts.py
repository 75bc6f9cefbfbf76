"""A job page's figures: a GRPO run's reward per step (mean ± std, over a small plot of the share
of groups whose rewards were all equal), the reward's components, the run's other curves, and
the held-out reward of each evaluated checkpoint.

The curves are built here from the steps stored so far (the run's metrics.jsonl lines, whether
the app or `python -m quest train` started it). Each trace names in `meta` the metric it draws
and the one its band adds or subtracts, so static/js/training.js extends it in the same way
with every step the websocket brings. A metric a run never logged (an older run has no
`reward/answered` or `dynamic/dropped_groups`) leaves its trace empty and hidden, never an
error. Step axes tick at whole steps only."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from apps.training.charts import ACCENT, COLOURS, MUTED, figure_json, step_axis
from apps.training.selectors import START_MODEL, HeldOutScore

SHARE_AXIS = {"range": [0, 1], "tickformat": ".0%", "automargin": True}
ERROR_BAR = {"type": "data", "symmetric": False, "thickness": 2, "width": 6}
# Below the whole chart: a legend placed on the plot's own coordinates overlaps the step axis's
# title once the legend wraps to several rows on a phone.
LEGEND = {
    "orientation": "h",
    "traceorder": "normal",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
    "x": 0,
    "xanchor": "left",
}


@dataclass(frozen=True)
class Curve:
    """One metric drawn over steps; `band` and `sign` draw `key ± band` (a band's edge)."""

    key: str
    label: str
    band: str = ""
    sign: int = 0
    axis: str = "y"
    style: Mapping[str, Any] = field(default_factory=dict)

    def value(self, values: Mapping[str, Any]) -> float | None:
        y = _number(values.get(self.key))
        if y is None or not self.band:
            return y
        spread = _number(values.get(self.band))
        return None if spread is None else y + self.sign * spread

    def meta(self) -> dict[str, Any]:
        return {"key": self.key, "band": self.band, "sign": self.sign}


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    curves: tuple[Curve, ...]
    layout: Mapping[str, Any] = field(default_factory=dict)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _line(key: str, label: str, colour: str, **style: Any) -> Curve:
    line = {"mode": "lines+markers", "marker": {"size": 4}, "line": {"color": colour, "width": 2}}
    return Curve(key, label, style={**line, **style})


def _share(key: str, label: str, colour: str, dash: str = "solid") -> Curve:
    style = {"mode": "lines+markers", "marker": {"size": 4},
             "line": {"color": colour, "width": 1.5, "dash": dash}}  # fmt: skip
    return Curve(key, label, axis="y2", style=style)


_EDGE = {"mode": "lines", "line": {"width": 0}, "hoverinfo": "skip"}
_BAND = {"fill": "tonexty", "fillcolor": "rgba(47, 95, 208, .18)"}
REWARD_CURVES = (
    Curve("reward", "mean - std", band="reward_std", sign=-1, style={**_EDGE, "showlegend": False}),
    Curve("reward", "± std", band="reward_std", sign=1, style={**_EDGE, **_BAND}),
    _line("reward", "mean reward", ACCENT),
    _share("frac_reward_zero_std", "groups all equal", "#c2410c"),
    _share("dynamic/dropped_groups", "dropped (dynamic sampling)", "#7c3aed", "dot"),
    _share("dynamic/zero_std_trained", "all equal, trained", "#0e7490", "dash"),
    _share("reward/dropped", "rollouts unscored", "#b3261e", "dashdot"),
)
REWARD = Chart(
    "reward",
    "Reward per step",
    REWARD_CURVES,
    {
        "height": 380,
        "yaxis": {"domain": [0.42, 1], "title": {"text": "reward"}, "automargin": True},
        "yaxis2": {**SHARE_AXIS, "domain": [0, 0.3], "title": {"text": "share"}, "dtick": 0.5},
        "legend": LEGEND,
    },
)
COMPONENT_KEYS = (
    ("reward/base", "base", COLOURS[0]),
    ("reward/citation", "citation term", COLOURS[1]),
    ("reward/answered", "answered", COLOURS[2]),
    ("reward/cites", "cites a page", COLOURS[3]),
    ("reward/valid_citations", "valid citations", COLOURS[4]),
    ("reward/leaves", "leaves share", COLOURS[5]),
)
COMPONENTS = Chart(
    "components",
    "Reward components",
    tuple(_line(key, label, colour) for key, label, colour in COMPONENT_KEYS),
    {"yaxis": {"title": {"text": "mean per rollout"}, "automargin": True}},
)


def _single(name: str, title: str, key: str, **layout: Any) -> Chart:
    return Chart(name, title, (_line(key, title, COLOURS[0]),), {"showlegend": False, **layout})


TIME_SHARES = (("share/rollout", "rollouts"), ("share/reward", "reward"),
               ("share/optimisation", "optimisation"))  # fmt: skip
JOB_CHARTS: tuple[Chart, ...] = (
    REWARD,
    COMPONENTS,
    _single("loss", "Loss", "loss"),
    _single("kl", "KL divergence", "kl"),
    _single("entropy", "Entropy", "entropy"),
    _single("learning_rate", "Learning rate", "learning_rate",
            yaxis={"exponentformat": "e", "rangemode": "tozero"}),
    _single("throughput", "Tokens per second", "tokens_per_s"),
    _single("step_time", "Seconds per step", "step_s"),
    Chart("shares", "Share of a step's time",
          tuple(Curve(key, label, style={"mode": "lines", "stackgroup": "shares",
                                         "line": {"color": COLOURS[n]}})
                for n, (key, label) in enumerate(TIME_SHARES)),
          {"yaxis": SHARE_AXIS}),
)  # fmt: skip


def _trace(curve: Curve, series: Sequence[Mapping[str, Any]]) -> Any:
    import plotly.graph_objects as go

    steps, values = [], []
    for point in series:
        y = curve.value(point)
        if y is not None:
            steps.append(int(point["step"]))
            values.append(y)
    return go.Scatter(x=steps, y=values, name=curve.label, yaxis=curve.axis, visible=bool(values),
                      meta=curve.meta(), hovertemplate=f"{curve.label}: %{{y:.3g}}<extra></extra>",
                      **curve.style)  # fmt: skip


def chart_figure(chart: Chart, series: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    traces = [_trace(curve, series) for curve in chart.curves]
    steps = [x for trace in traces for x in trace.x]
    anchor = {"anchor": "y2"} if any(c.axis == "y2" for c in chart.curves) else {}
    layout = {"height": 260, "legend": LEGEND, "hovermode": "x unified", **chart.layout}
    return figure_json(traces, template="none", xaxis=step_axis(steps, **anchor), **layout)


def job_charts(series: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each of a job's live charts with its figure so far; `shown` once it has a point."""
    found = []
    for chart in JOB_CHARTS:
        figure = chart_figure(chart, series)
        shown = any(trace.get("visible") is not False for trace in figure["data"])
        found.append({"name": chart.name, "title": chart.title, "shown": shown, "figure": figure})
    return found


# ---- held-out reward by checkpoint -------------------------------------------------------------


def _held_out_trace(scores: Sequence[HeldOutScore], label: str, colour: str, symbol: str) -> Any:
    import plotly.graph_objects as go

    plus = [s.ci95[1] - s.mean if s.ci95 else 0.0 for s in scores]
    minus = [s.mean - s.ci95[0] if s.ci95 else 0.0 for s in scores]
    text = [f"{s.label} (evaluation {s.evaluation_id}): {s.mean:.3f}"
            + (f" [{s.ci95[0]:.3f}, {s.ci95[1]:.3f}]" if s.ci95 else "") + f", n={s.n}"
            for s in scores]  # fmt: skip
    return go.Scatter(
        x=[s.step for s in scores],
        y=[s.mean for s in scores],
        error_y={**ERROR_BAR, "array": plus, "arrayminus": minus, "color": colour},
        mode="lines+markers" if label != START_MODEL else "markers",
        marker={"size": 10, "symbol": symbol, "color": colour},
        line={"color": colour, "width": 2},
        name=label,
        text=text,
        hovertemplate="%{text}<extra></extra>",
    )


def held_out_figure(scores: Sequence[HeldOutScore]) -> dict[str, Any] | None:
    """Mean held-out reward with its 95% interval at each evaluated checkpoint's step, the
    model the job started from at step 0; None when nothing is evaluated yet."""
    if not scores:
        return None
    checkpoints = [s for s in scores if s.label != START_MODEL]
    start = [s for s in scores if s.label == START_MODEL]
    traces = [_held_out_trace(found, label, colour, symbol)
              for found, label, colour, symbol in ((start, START_MODEL, MUTED, "diamond"),
                                                   (checkpoints, "checkpoint", ACCENT, "circle"))
              if found]  # fmt: skip
    steps = [s.step for s in scores]
    pad = max(0.6, (max(steps) - min(steps)) * 0.06)  # a marker at either end stays whole
    return figure_json(
        traces,
        template="none",
        height=300,
        xaxis=step_axis(steps, range=[min(steps) - pad, max(steps) + pad]),
        yaxis={"title": {"text": "held-out reward"}, "rangemode": "tozero", "automargin": True},
        legend=LEGEND,
    )
