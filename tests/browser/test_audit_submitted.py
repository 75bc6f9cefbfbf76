"""A submitted audit, opened again, shows what was submitted: not an empty tree that looks like
lost work."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from tests.browser.audit_setup import demo_assignment
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)


def _keys(page: Any, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def test_a_submitted_audit_reopens_with_every_verdict_comment_and_the_decision(
    live_server: Any, page: Any, make_user: Callable[..., User], tmp_path: Path
) -> None:
    annotator, assignment = demo_assignment(make_user, "Reopen")
    base = live_server.url
    _login(page, base, annotator, f"/audit/a/{assignment.pk}/")
    page.wait_for_selector("#audit[data-ready]")
    nodes = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")
    _keys(page, "1", "2", "2", "k", "c")  # root correct; the second wrong (not atomic), noted
    page.keyboard.type("checks two facts at once")
    _keys(page, "Control+Enter", "j")
    _keys(page, *["3"] + ["1"] * (len(nodes) - 3))
    _keys(page, "s", "r")
    page.fill("#dlg-submit textarea", "The tree misses the year it became the capital.")
    page.click("#dlg-submit [data-save=submit]")
    page.wait_for_url(f"{base}/audit/campaigns/{assignment.campaign_id}/")

    page.click(f"a[href='/audit/a/{assignment.pk}/']")
    page.wait_for_selector(".atree")
    assert page.inner_text("[data-testid=progress]") == f"{len(nodes)} of {len(nodes)} nodes judged"
    badges = page.eval_on_selector_all(".anode .vbadge", "els => els.map(e => e.textContent)")
    assert badges == ["✓ correct", "✗ wrong · Not atomic", "? unverifiable"] + ["✓ correct"] * (
        len(nodes) - 3
    )
    assert page.inner_text(f".anode[data-node='{nodes[1]}'] .anote") == "checks two facts at once"
    submitted = page.inner_text("[data-testid=submitted]")
    assert "Submitted audit" in submitted and "Decision: Reject" in submitted
    assert "The tree misses the year it became the capital." in submitted
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(tmp_path / f"submitted-{width}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
