"""The batch list, a finished synthesis batch and one of its candidates in a real browser, at
1280 and 390 px:
the charts draw, tables scroll inside their boxes, the polled progress reloads the page when a
batch ends, and a hand rejection goes through its CSRF-protected form. Screenshots are saved to
/tmp/shots/ for a person to look at."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.synthesis.models import SynthesisBatch
from tests.browser.test_task_pages import _login
from tests.factories import SynthesisBatchFactory
from tests.synthesis.conftest import admin, geo_corpus, geo_corpus_dir, run_batch

__all__ = ["admin", "geo_corpus", "geo_corpus_dir", "run_batch"]

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/shots")
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth"
WIDTHS = (1280, 390)
DRAWN = "[...document.querySelectorAll('[data-figure]')].every(e => e.querySelector('.main-svg'))"


def _shoot(page: Any, name: str, width: int) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"synthesis-{name}-{width}.png"), full_page=True)


def test_a_finished_batch_and_a_candidate_read_well_wide_and_narrow(
    live_server: Any, page: Any, admin: User, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=8, seed=3, baseline=True)
    candidate = batch.candidates.filter(accepted=True).order_by("index").first()
    assert candidate is not None
    _login(page, live_server.url, admin, f"/synthesis/{batch.pk}/")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/synthesis/")
        page.click("summary:has-text('New batch')")
        page.click("summary:has-text('Category mix')")
        assert page.locator("[data-testid=batch-form] input[name^='category:']").count() == 24
        assert page.evaluate(NO_OVERFLOW), f"the batch list overflows at {width} px"
        _shoot(page, "list", width)

        page.goto(f"{live_server.url}/synthesis/{batch.pk}/")
        page.wait_for_selector("[data-figure=funnel] .main-svg")
        assert page.locator("[data-figure]").count() == 6
        assert page.evaluate(DRAWN), "every chart is drawn"
        assert page.locator("tr[data-candidate]").count() == 8
        assert page.evaluate(NO_OVERFLOW), f"the batch page overflows at {width} px"
        _shoot(page, "batch", width)

        page.goto(f"{live_server.url}/synthesis/candidates/{candidate.pk}/")
        assert page.locator("li.stage-passed").count() == 9  # red-team and difficulty too
        assert page.locator("[data-testid=tree] li.leaf").count() > 0
        assert page.evaluate(NO_OVERFLOW), f"the candidate page overflows at {width} px"
        _shoot(page, "candidate", width)

    page.fill("input[name=note]", "too easy for training")
    page.click("[data-testid=reject]")
    page.wait_for_selector("text=Rejected: its task was removed")
    assert "Rejected by hand by ada" in page.locator("[data-testid=decision]").inner_text()
    assert page.locator("[data-testid=accept]").is_visible()


def test_the_progress_bar_polls_and_the_page_reloads_when_the_batch_ends(
    live_server: Any, page: Any, admin: User
) -> None:
    batch = SynthesisBatchFactory(status="running", created_by=admin, total=10, proposed=3)
    _login(page, live_server.url, admin, f"/synthesis/{batch.pk}/")
    assert page.locator("[data-testid=batch-status]").inner_text() == "Running"
    assert page.locator("#batch-progress progress").get_attribute("value") == "3"
    SynthesisBatch.objects.filter(pk=batch.pk).update(done=7)
    page.wait_for_selector("#batch-progress progress[value='7']")
    SynthesisBatch.objects.filter(pk=batch.pk).update(status="done", done=10)
    page.wait_for_selector("[data-testid=batch-status]:has-text('Done')")
    assert page.locator("#batch-progress[hx-trigger]").count() == 0, "no more polling"
