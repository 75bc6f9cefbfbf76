"""A finished benchmark run's page in Debian's chromium, at a laptop's width and a phone's: the
calibration plot and the search-call histogram are drawn by the vendored plotly.js (nothing is
loaded from elsewhere, no console error), the metric and the published numbers are there, and
neither the run's page nor the runs with their form scroll sideways (wide tables scroll inside
their own box). At a phone's width a form error naming a long path wraps, the runs' A/B compare
radios are on screen without scrolling the table sideways, and a run's per-question answers are
not squeezed to a word per line."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.benchmarks import tasks
from apps.benchmarks.services import RunRequest, run_create
from tests.browser.test_layout import WIDE
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)

DATA = Path(__file__).resolve().parents[1] / "quest" / "data" / "bench"
SHOTS = Path("/tmp")
FITS = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def finished_run(
    make_user: Callable[..., User], settings: Any, tmp_path: Path, sent_tasks: list[Any]
) -> Any:
    """BrowseComp-Plus scored from saved responses, run by the task as a worker runs it."""
    settings.BENCHMARKS_DIR = tmp_path / "benchmarks"
    shutil.copytree(DATA, settings.BENCHMARKS_DIR)
    admin = make_user("admin", username="ada")
    asked = RunRequest(
        benchmark="browsecomp-plus",
        data="browsecomp_plus_queries.jsonl",
        responses="browsecomp_plus_responses.jsonl",
        corpus="browsecomp_plus_corpus.jsonl",
    )
    run = run_create(user=admin, request=asked)
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert run.status == "done", run.error
    return run


def test_a_finished_runs_plots_draw_at_a_laptops_and_a_phones_width(
    live_server: Any, page: Any, finished_run: Any
) -> None:
    base = live_server.url
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(base) else outside.append(r.url))
    path = f"/benchmarks/{finished_run.pk}/"
    _login(page, base, finished_run.created_by, path)
    problems = []
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(base + path)
        for name in ("calibration", "search_calls"):
            plot = page.locator(f"[data-figure={name}]")
            plot.locator(".plot-container svg.main-svg").first.wait_for()
            plot.scroll_into_view_if_needed()
            plot.screenshot(path=str(SHOTS / f"bench39_{name}_{width}.png"))
            box = plot.bounding_box()
            if box is None or box["width"] > width:
                problems.append(f"{name} at {width} px: {box}")
        assert "not comparable to judged accuracy" in page.inner_text("[data-testid=no-judge]")
        assert "3.86 %" in page.inner_text("[data-testid=published]")
        page.screenshot(path=str(SHOTS / f"bench39_run_{width}.png"), full_page=True)
        if not page.evaluate(FITS):
            problems.append(f"{path} at {width} px scrolls sideways: {page.evaluate(WIDE)}")
        page.goto(base + "/benchmarks/")
        page.click("summary:has-text('New benchmark run')")
        page.screenshot(path=str(SHOTS / f"bench39_list_{width}.png"), full_page=True)
        if not page.evaluate(FITS):
            problems.append(f"/benchmarks/ at {width} px scrolls sideways: {page.evaluate(WIDE)}")
    assert not problems, "\n".join(problems)
    assert not errors and not outside, (errors, outside)


PHONE = {"width": 390, "height": 844}
LONG = "uploads/" + "a_long_benchmark_file_name_without_spaces_or_hyphens" * 4 + ".jsonl"


def test_the_benchmark_pages_fit_a_phone(live_server: Any, page: Any, finished_run: Any) -> None:
    admin = finished_run.created_by
    queued = run_create(
        user=admin,
        request=RunRequest(
            benchmark="browsecomp-plus",
            data="browsecomp_plus_queries.jsonl",
            responses="browsecomp_plus_responses.jsonl",
        ),
    )
    base = live_server.url
    _login(page, base, admin, "/benchmarks/")
    page.set_viewport_size(PHONE)
    page.goto(base + "/benchmarks/")
    for run in (finished_run, queued):
        for name in ("a", "b"):
            box = page.locator(f"tr[data-run='{run.pk}'] input[name={name}]").bounding_box()
            assert box is not None and box["x"] + box["width"] <= PHONE["width"], (name, box)
    page.click("summary:has-text('New benchmark run')")
    page.fill("input[name=data]", LONG)
    page.click("button:has-text('Start the run')")
    assert LONG in page.inner_text("[data-testid=form-error]")
    assert page.evaluate(FITS), page.evaluate("document.documentElement.scrollWidth")
    page.goto(f"{base}/benchmarks/{finished_run.pk}/")
    answer = page.locator("[data-testid=rows] tbody tr td:nth-child(3)").first
    box = answer.bounding_box()
    assert box is not None and box["width"] >= 150, box
