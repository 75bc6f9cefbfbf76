from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.audit.models import Assignment, NodeVerdict
from apps.audit.services import campaign_create
from apps.rubrics.models import AuditState, Task
from apps.rubrics.services import demo_tasks_load
from tests.factories import PASSWORD
from tests.rubrics.conftest import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def _keys(page: Any, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def test_an_annotator_audits_a_whole_tree_with_the_keyboard_only_and_submits(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    campaign = campaign_create(
        user=make_user("admin"),
        name="Keyboard audit",
        filters={"generator": "questweb demo"},
        annotators_per_task=1,
        limit=1,
    )
    annotator = make_user("annotator")
    base = live_server.url
    page.goto(f"{base}/accounts/login/?next=/audit/campaigns/{campaign.pk}/")
    page.keyboard.type(annotator.username)  # the login form focuses the user name
    _keys(page, "Tab")
    page.keyboard.type(PASSWORD)
    _keys(page, "Enter")
    page.wait_for_url(f"{base}/audit/campaigns/{campaign.pk}/")
    # The browser applies autofocus after the page loads: Enter before it reaches nothing.
    expect(page.get_by_role("button", name="Next task")).to_be_focused()
    _keys(page, "Enter")
    page.wait_for_selector("#audit[data-ready] .atree[data-version='1']")
    nodes = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")
    assert len(nodes) == 7 and page.inner_text("#judged") == "0"

    _keys(page, "?")
    assert page.locator("#dlg-cheatsheet").is_visible()
    _keys(page, "Escape", "1")  # root: correct, focus moves on
    _keys(page, "2", "2")  # second node: wrong, error type 2 (not atomic)
    _keys(page, "k", "c")
    page.keyboard.type("checks two facts at once")
    _keys(page, "Control+Enter", "j", "3", "u", "1")  # unverifiable, undone, then correct
    assert page.inner_text("#judged") == "3"

    _keys(page, "e")  # edit the focused node: a clearer description, a new version
    page.keyboard.press("Control+a")
    page.keyboard.type("It was officially named Canberra in 1913")
    _keys(page, "Control+Enter")
    page.wait_for_selector(".atree[data-version='2']")
    assert "Saved version 2" in page.inner_text("#notice")

    page.reload()  # the draft survives a reload
    page.wait_for_selector("#audit[data-ready] .atree[data-version='2']")
    assert page.inner_text("#judged") == "3"
    _keys(page, "n", "1", "n", "1", "n", "1", "n", "1")
    assert page.inner_text("#judged") == "7"

    _keys(page, "s", "f", "Enter")
    page.wait_for_url(f"{base}/audit/campaigns/{campaign.pk}/")
    assert "Nothing left for you" in page.inner_text(".messages")

    assignment = Assignment.objects.get(annotator=annotator)
    assert (assignment.status, assignment.decision, assignment.version.number) == (
        "submitted",
        "fix_accept",
        2,
    )
    verdicts = {v.node_id: v for v in NodeVerdict.objects.filter(assignment=assignment)}
    assert set(verdicts) == set(nodes)
    second = verdicts[nodes[1]]
    assert (second.verdict, second.error_type) == ("wrong", "not_atomic")
    assert second.comment == "checks two facts at once"
    assert verdicts[nodes[2]].verdict == "correct"
    task = Task.objects.get(pk=assignment.item.task_id)
    assert task.audit_state == AuditState.FIX_ACCEPTED
    assert "Canberra in 1913" in str(task.current_version.tree)
