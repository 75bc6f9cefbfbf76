"""A GRPO job's page in Debian's chromium against the real ASGI app, at a phone's width and a
laptop's: the reward per step, its components and the held-out reward by checkpoint are drawn
by the vendored plotly with whole-step ticks and every label inside its chart, nothing scrolls
sideways, and a step the run logs after the page opened is added to the curves live."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from tests.browser.test_layout import WIDE, WIDTHS
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/helper_plots/shots")
# Few steps: a default plotly axis would tick at half steps here.
STEPS = 3
PLOTS = ("[data-chart=reward] .chart", "[data-chart=components] .chart",
         "[data-figure=held_out]")  # fmt: skip
# Per plot: tick labels of the step axis, and any text drawn outside the plot's own box.
INSPECT = """(el) => {
  const box = el.getBoundingClientRect();
  const outside = [...el.querySelectorAll('svg text')].filter((t) => {
    const r = t.getBoundingClientRect();
    return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1
      || r.top < box.top - 1 || r.bottom > box.bottom + 1);
  }).map((t) => t.textContent);
  const ticks = [...el.querySelectorAll('.xtick text')].map((t) => t.textContent);
  return { ticks, outside, width: box.width };
}"""


def _values(step: int) -> dict[str, Any]:
    return {"loss": 0.01, "reward": 0.05 * step, "reward_std": 0.04,
            "frac_reward_zero_std": max(0.0, 0.6 - 0.05 * step), "dynamic/dropped_groups": 0.3,
            "dynamic/zero_std_trained": 0.05, "reward/base": 0.06 * step,
            "reward/citation": 0.01, "reward/dropped": 0.0, "reward/answered": 0.4 + 0.03 * step,
            "reward/cites": 0.9, "reward/valid_citations": 0.8, "reward/leaves": 0.04 * step,
            "step_s": 60.0}  # fmt: skip


def _evaluation(job: Any, checkpoint: str, mean: float, base: float | None = None) -> None:
    from apps.training.models import Evaluation

    def model(value: float) -> dict[str, Any]:
        scores = [{"task_id": str(n), "reward": value} for n in range(40)]
        return {"n": 40, "mean": value, "ci95": [value - 0.06, value + 0.07], "scores": scores}

    models = {"checkpoint": model(mean), **({"base": model(base)} if base is not None else {})}
    Evaluation.objects.create(
        job=job, checkpoint=f"{job.output_dir}/{checkpoint}", base_model="smollm2" if base else "",
        task_ids=[str(n) for n in range(40)], status="done", done=80, total=80,
        results={"models": models, "tasks": 40},
    )  # fmt: skip


@pytest.fixture
def grpo_job(make_user: Callable[..., User], tmp_path: Path) -> Any:
    """A running GRPO job with STEPS logged steps, and evaluations of two of its checkpoints."""
    from apps.training.models import TrainingJob, TrainingMetric
    from quest.training.config import parse_config

    admin = make_user("admin", username="ada")
    job = TrainingJob.objects.create(
        name="GRPO from the SFT model", kind="grpo", config={}, status="running", step=STEPS,
        max_steps=50, created_by=admin,
    )  # fmt: skip
    config = {"kind": "grpo", "model": "smollm2", "dataset": [str(tmp_path / "rl.jsonl")],
              "corpus": "/corpus", "output_dir": str(tmp_path / "runs" / str(job.pk)),
              "max_steps": 50}  # fmt: skip
    job.config = parse_config(config).model_dump(mode="json")
    job.save()
    for step in range(1, STEPS + 1):
        TrainingMetric.objects.create(job=job, line=step - 1, step=step, values=_values(step))
    _evaluation(job, "checkpoint-1", 0.12, base=0.05)
    _evaluation(job, "checkpoint-3", 0.2)
    return job


def _log_step(job: Any, step: int) -> None:
    """From another thread, as the worker would: Playwright's sync API keeps an event loop in
    this one, where the broadcast's async_to_sync may not run."""

    def write() -> None:
        from django.db import connection

        from apps.training.broadcast import metrics_append
        from apps.training.models import TrainingMetric

        metrics_append(job, [TrainingMetric(job_id=job.pk, line=step - 1, step=step,
                                            values=_values(step))])  # fmt: skip
        connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()


def _until(page: Any, expression: str, timeout_s: float = 15.0) -> None:
    """Wait for an expression to hold. Not page.wait_for_function: its polling evaluates a
    string, which the app's Content-Security-Policy (no unsafe-eval) refuses."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        page.wait_for_timeout(100)


def test_a_grpo_jobs_reward_plots_fit_a_phone_and_a_laptop_and_grow_live(
    asgi_server: str, page: Any, grpo_job: Any
) -> None:
    base = f"http://{asgi_server}"
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(base) else outside.append(r.url))
    path = f"/training/jobs/{grpo_job.pk}/"
    _login(page, base, grpo_job.created_by, path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(base + path)
        page.wait_for_selector("[data-role=connection]:has-text('live')")
        for selector in PLOTS:
            plot = page.locator(selector)
            plot.locator(".main-svg").first.wait_for()
            plot.scroll_into_view_if_needed()
            found = plot.evaluate(INSPECT)
            if not found["ticks"] or not all(t.isdigit() for t in found["ticks"]):
                problems.append(f"{selector} at {width} px: step ticks {found['ticks']}")
            if len(set(found["ticks"])) != len(found["ticks"]):
                problems.append(f"{selector} at {width} px: repeated ticks {found['ticks']}")
            if found["outside"]:
                problems.append(f"{selector} at {width} px: clipped {found['outside']}")
            plot.screenshot(path=str(SHOTS / f"{selector.split(']')[0][1:]}-{width}.png"))
        page.screenshot(path=str(SHOTS / f"job-{width}.png"), full_page=True)
        if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
            problems.append(f"{width} px scrolls sideways: {page.evaluate(WIDE)}")
    assert not problems, "\n".join(problems)
    assert not errors and not outside, (errors, outside)

    _log_step(grpo_job, STEPS + 1)
    # Redrawn with the new step: its tick appears, still a whole step.
    ticks = "[...document.querySelectorAll('[data-chart=reward] .xtick text')]"
    ticks += ".map((t) => t.textContent)"
    _until(page, f"{ticks}.includes('{STEPS + 1}')")
    assert all(t.isdigit() for t in page.evaluate(ticks))
    mean = "document.querySelector('[data-chart=reward] .chart').data.find((t) => t.name === '{}')"
    components = "document.querySelector('[data-chart=components] .chart').data"
    assert page.evaluate(components + f".every((t) => t.x.length === {STEPS + 1})")
    assert page.evaluate(mean.format("groups all equal") + ".x.length") == STEPS + 1
