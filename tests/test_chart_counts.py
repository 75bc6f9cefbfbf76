"""Plots of counts tick in whole numbers: a histogram of three rows never reads 0.5 or 1.5."""

from __future__ import annotations

from typing import Any

import pytest

from apps.audit.charts import count_axis, whole_dtick
from apps.synthesis.charts import baseline_chart, count_chart
from apps.training.charts import length_histogram


def _whole(axis: dict[str, Any]) -> None:
    assert axis["tickformat"] == "d" and axis["tick0"] == 0
    assert float(axis["dtick"]).is_integer() and axis["dtick"] >= 1


@pytest.mark.parametrize(
    ("span", "dtick"), [(0, 1), (3, 1), (6, 1), (7, 2), (12, 2), (13, 5), (31, 10), (700, 200)]
)
def test_ticks_are_whole_and_at_most_six_intervals(span: int, dtick: int) -> None:
    assert whole_dtick(span) == dtick


def test_a_token_length_histogram_of_three_rows_counts_in_whole_rows() -> None:
    figure = length_histogram([310, 420, 2_900])
    _whole(figure["layout"]["yaxis"])
    assert sum(figure["data"][0]["y"]) == 3
    assert figure["layout"]["yaxis"]["title"]["text"] == "rows"


def test_the_synthesis_histograms_count_in_whole_tasks() -> None:
    baseline = baseline_chart([0.0, 0.0, 0.55, 1.0])
    _whole(baseline["layout"]["yaxis"])
    assert baseline["data"][0]["y"] == [2, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    _whole(count_chart([2, 3, 3], "depth")["layout"]["yaxis"])


def test_a_large_count_axis_keeps_few_ticks() -> None:
    assert count_axis(950)["dtick"] == 200
