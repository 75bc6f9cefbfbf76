"""A finished batch's campaign button in a real browser, at 1280 and 390 px: pressed a second
time it names the campaign the batch already has instead of making another, the page links
that campaign, and a new one is a separate button. Screenshots go to /tmp/shots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.audit.models import Campaign
from apps.synthesis.models import SynthesisBatch
from tests.browser.test_task_pages import _login
from tests.factories import SynthesisBatchFactory
from tests.synthesis.conftest import admin
from tests.synthesis.test_batch_campaigns import _accept_new

__all__ = ["admin"]

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/shots")
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth"


def test_a_second_press_names_the_batchs_campaign_and_the_page_links_it(
    live_server: Any, page: Any, admin: User
) -> None:
    batch: SynthesisBatch = SynthesisBatchFactory(created_by=admin)
    for _ in range(3):
        _accept_new(admin, batch)
    url = f"/synthesis/{batch.pk}/"
    _login(page, live_server.url, admin, url)
    page.click("[data-testid=campaign]:has-text('Create an audit campaign')")
    page.wait_for_selector("text=created with 3 undecided tasks")
    campaign = Campaign.objects.get()

    _accept_new(admin, batch)
    SHOTS.mkdir(exist_ok=True)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + url)
        links = page.locator("[data-testid=batch-campaigns] a")
        assert links.all_inner_texts() == [f"Synthesis batch {batch.pk}"]
        assert page.locator("[data-testid=campaign-pending]").inner_text() == (
            "1 undecided task not in it yet"
        )
        assert page.locator("[data-testid=campaign-new]").is_visible()
        assert page.evaluate(NO_OVERFLOW), f"the batch page overflows at {width} px"
        shot = SHOTS / f"synthesis-batch-campaigns-{width}.png"
        page.screenshot(path=str(shot), full_page=True)

    page.click("[data-testid=campaign]")
    page.wait_for_selector("text=already exists for this batch: added 1 new undecided task.")
    assert page.url == f"{live_server.url}/audit/campaigns/{campaign.pk}/"
    page.goto(live_server.url + url)
    # Nothing is left to add: the button says so and cannot be pressed (a POST made anyway
    # answers "nothing new to add", tests/synthesis/test_batch_campaigns.py).
    assert page.locator("[data-testid=campaign-pending]").inner_text() == "nothing new to add"
    assert page.locator("[data-testid=campaign]").is_disabled()
    assert Campaign.objects.count() == 1 and campaign.items.count() == 4
