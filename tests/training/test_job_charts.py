"""A job page's figures: a GRPO run's metrics.jsonl, read the way the worker reads it, becomes the
reward per step (mean ± std over the share of all-equal groups), the reward's components and the
held-out reward of each evaluated checkpoint; an older run's missing metrics leave their curves
out, and step axes tick at whole steps."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training import job_charts, selectors
from apps.training.charts import step_dtick
from apps.training.models import Evaluation, TrainingJob
from apps.training.runner import _ingest, _Tail
from tests.training.page_fixtures import _html, _login, dataset, make_job

__all__ = ["dataset", "make_job"]

pytestmark = pytest.mark.django_db

NEW_KEYS = ("dynamic/dropped_groups", "dynamic/zero_std_trained", "reward/answered",
            "reward/cites", "reward/valid_citations", "reward/leaves")  # fmt: skip


def _step(step: int, **over: Any) -> dict[str, Any]:
    """A step line as quest.training.callbacks writes it for a GRPO run with dynamic sampling."""
    values = {"kind": "step", "step": step, "time": 1_700_000_000.0 + step, "loss": 0.01,
              "reward": 0.1 * step, "reward_std": 0.05, "frac_reward_zero_std": 0.5 / step,
              "dynamic/dropped_groups": 0.25, "dynamic/zero_std_trained": 0.0,
              "reward/base": 0.2 * step, "reward/citation": 0.02, "reward/dropped": 0.0,
              "reward/answered": 0.5, "reward/cites": 0.9, "reward/valid_citations": 0.8,
              "reward/leaves": 0.3,
              "step_s": 40.0, "share/rollout": 0.7}  # fmt: skip
    return {**values, **over}


def _run(job: TrainingJob, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Write the run's metrics.jsonl, ingest it as the worker does, and read the job's series."""
    out = Path(job.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    _ingest(job, _Tail(out / "metrics.jsonl"), _Tail(out / "rollouts.jsonl"))
    return selectors.metric_series(job)


def _charts(series: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {chart["name"]: chart for chart in job_charts.job_charts(series)}


def _traces(figure: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {trace["name"]: trace for trace in figure["data"]}


def test_a_grpo_runs_metrics_become_the_reward_per_step_over_the_share_of_all_equal_groups(
    make_job: Callable[..., TrainingJob],
) -> None:
    summary = {"kind": "summary", "step": 3, "train_runtime": 120.0}
    series = _run(make_job(), [_step(1), _step(2), _step(3), summary])
    reward = _charts(series)["reward"]
    assert reward["shown"] and reward["title"] == "Reward per step"
    traces = _traces(reward["figure"])

    mean = traces["mean reward"]
    assert mean["x"] == [1, 2, 3] and mean["y"] == pytest.approx([0.1, 0.2, 0.3])
    assert traces["mean - std"]["y"] == pytest.approx([0.05, 0.15, 0.25])
    assert traces["± std"]["y"] == pytest.approx([0.15, 0.25, 0.35])
    assert traces["± std"]["fill"] == "tonexty", "the band is filled between its edges"

    zero = traces["groups all equal"]
    assert zero["y"] == pytest.approx([0.5, 0.25, 0.5 / 3]) and zero["yaxis"] == "y2"
    assert traces["dropped (dynamic sampling)"]["y"] == [0.25, 0.25, 0.25]
    assert traces["all equal, trained"]["y"] == [0.0, 0.0, 0.0]
    layout = reward["figure"]["layout"]
    assert layout["yaxis2"]["range"] == [0, 1] and layout["yaxis2"]["tickformat"] == ".0%"
    assert all(isinstance(t["x"], list) for t in traces.values()), "the page appends to lists"


def test_the_reward_components_are_plotted_per_step(
    make_job: Callable[..., TrainingJob],
) -> None:
    series = _run(make_job(), [_step(1), _step(2)])
    components = _charts(series)["components"]
    traces = _traces(components["figure"])
    assert list(traces) == [
        "base",
        "citation term",
        "answered",
        "cites a page",
        "valid citations",
        "leaves share",
    ]
    assert traces["base"]["y"] == pytest.approx([0.2, 0.4])
    assert traces["citation term"]["y"] == [0.02, 0.02]
    shown = ("answered", "cites a page", "valid citations", "leaves share")
    expected = [[0.5, 0.5], [0.9, 0.9], [0.8, 0.8], [0.3, 0.3]]
    assert [traces[n]["y"] for n in shown] == expected
    assert all(t["visible"] is True and t["x"] == [1, 2] for t in traces.values())


def test_an_older_run_without_the_new_metrics_is_plotted_with_what_it_logged(
    make_job: Callable[..., TrainingJob],
) -> None:
    old = [{k: v for k, v in _step(step).items() if k not in NEW_KEYS} for step in (1, 2)]
    old[1]["reward_std"] = None  # a step whose std TRL did not log: its band is left out there
    charts = _charts(_run(make_job(), old))
    reward = _traces(charts["reward"]["figure"])
    assert reward["mean reward"]["x"] == [1, 2] and reward["± std"]["x"] == [1]
    for name in ("dropped (dynamic sampling)", "all equal, trained"):
        assert reward[name]["visible"] is False and reward[name]["x"] == [], name
    components = _traces(charts["components"]["figure"])
    assert [n for n, t in components.items() if t["visible"]] == ["base", "citation term"]
    assert charts["kl"]["shown"] is False and charts["loss"]["shown"] is True


def test_an_sft_run_shows_no_reward_chart(make_job: Callable[..., TrainingJob]) -> None:
    lines = [{"kind": "step", "step": s, "loss": 1.0 / s, "learning_rate": 1e-5} for s in (1, 2)]
    charts = _charts(_run(make_job(), lines))
    assert not charts["reward"]["shown"] and not charts["components"]["shown"]
    assert charts["loss"]["shown"] and charts["learning_rate"]["shown"]


def test_step_axes_tick_at_whole_steps_only(make_job: Callable[..., TrainingJob]) -> None:
    for steps, dtick in (([], 1), ([3], 1), ([1, 2], 1), ([1, 7], 1), ([1, 8], 2),
                         ([0, 13], 5), ([0, 31], 10), ([5, 5000], 1000)):  # fmt: skip
        assert step_dtick(steps) == dtick, steps
    series = _run(make_job(), [_step(1), _step(2)])
    for chart in job_charts.job_charts(series):
        axis = chart["figure"]["layout"]["xaxis"]
        assert (axis["tickformat"], axis["tick0"], axis["dtick"]) == ("d", 0, 1), chart["name"]
        assert axis["automargin"] is True, "tick labels are not clipped"


# ---- held-out reward by checkpoint -------------------------------------------------------------


def _evaluation(job: TrainingJob, checkpoint: str, mean: float, *, base: float | None = None,
                scored: int = 3, status: str = "done") -> Evaluation:  # fmt: skip
    def model(value: float, count: int) -> dict[str, Any]:
        scores = [{"task_id": str(n), "reward": value} for n in range(count)]
        return {"n": count, "mean": value, "ci95": [value - 0.1, value + 0.1], "scores": scores}

    models = {"checkpoint": model(mean, scored)}
    if base is not None:
        models["base"] = model(base, 3)
    return Evaluation.objects.create(
        job=job, checkpoint=f"{job.output_dir}/{checkpoint}", base_model="tiny" if base else "",
        task_ids=["0", "1", "2"], status=status, results={"models": models, "tasks": 3},
    )  # fmt: skip


def test_each_evaluated_checkpoint_is_plotted_at_its_step_with_its_interval(
    make_job: Callable[..., TrainingJob],
) -> None:
    job = make_job(status="done")
    TrainingJob.objects.filter(pk=job.pk).update(step=6)
    job.refresh_from_db()
    _evaluation(job, "checkpoint-2", 0.3, base=0.1)
    _evaluation(job, "final", 0.5)
    _evaluation(job, "checkpoint-4", 0.2)
    _evaluation(job, "checkpoint-4", 0.45)  # the newest evaluation of a checkpoint is plotted
    _evaluation(job, "checkpoint-5", 0.9, scored=1, status="running")  # not every task yet

    scores = selectors.held_out_scores(job)
    assert [(s.label, s.step, s.mean) for s in scores] == [
        ("start model", 0, 0.1), ("checkpoint-2", 2, 0.3), ("checkpoint-4", 4, 0.45),
        ("final", 6, 0.5),
    ]  # fmt: skip
    figure = job_charts.held_out_figure(scores)
    assert figure is not None
    traces = _traces(figure)
    checkpoints = traces["checkpoint"]
    assert checkpoints["x"] == [2, 4, 6] and checkpoints["y"] == [0.3, 0.45, 0.5]
    assert checkpoints["error_y"]["array"] == pytest.approx([0.1, 0.1, 0.1])
    assert checkpoints["error_y"]["arrayminus"] == pytest.approx([0.1, 0.1, 0.1])
    assert traces["start model"]["x"] == [0] and traces["start model"]["y"] == [0.1]
    axis = figure["layout"]["xaxis"]
    assert (axis["tickformat"], axis["dtick"]) == ("d", 1)


def test_the_job_page_plots_the_reward_and_the_held_out_reward_or_says_none_yet(
    client: Client, viewer: User, make_job: Callable[..., TrainingJob]
) -> None:
    job = make_job(status="done")
    _run(job, [_step(1), _step(2)])
    _login(client, viewer)
    page = _html(client.get(f"/training/jobs/{job.pk}/"))
    assert '<figure class="chart-box" data-chart="reward">' in page
    assert '<figure class="chart-box" data-chart="components">' in page
    assert "No evaluation yet." in page and 'data-figure="held_out"' not in page

    _evaluation(job, "checkpoint-2", 0.3, scored=1, status="running")
    assert "No evaluation has scored every held-out task yet." in _html(
        client.get(f"/training/jobs/{job.pk}/")
    )
    _evaluation(job, "checkpoint-2", 0.3)
    page = _html(client.get(f"/training/jobs/{job.pk}/"))
    figures = json.loads(page.split('id="training-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    assert 'data-figure="held_out"' in page and "No evaluation" not in page
    assert figures["held_out"]["data"][0]["x"] == [2]
