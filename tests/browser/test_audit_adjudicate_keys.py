"""Adjudication by keyboard, in a real browser: j and Enter open a task from the list of
disputes, j/k walk its disputed nodes, b takes B's verdict
(saved at once, the row swapped in place), 1/2/3 set a gold verdict, "Take A's decision" fills
the decision, ? shows the keys, and Ctrl+Enter decides."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.audit.models import CampaignTask, GoldVerdict
from apps.audit.services import campaign_create
from apps.rubrics.models import AuditState, Task
from tests.audit.conftest import all_nodes, make_tasks
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)

FOCUSED = "document.querySelector('tr.focus')?.dataset.node"


@pytest.fixture
def disputed_item(make_user: Callable[..., User]) -> CampaignTask:
    from apps.audit.services import assignment_claim_next, assignment_submit

    make_tasks(1)
    campaign = campaign_create(user=make_user("admin"), name="Disputes", filters={})
    votes = [
        ("accept", all_nodes()),
        (
            "reject",
            all_nodes(
                capital={"verdict": "wrong", "error_type": "hard_coded_answer"},
                cited="unverifiable",
            ),
        ),
    ]
    for name, (decision, verdicts) in zip(("alice", "bob"), votes, strict=True):
        annotator = make_user("annotator", username=name)
        held = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
        assert held is not None
        assignment_submit(
            user=annotator, assignment_id=held.pk, version=1, decision=decision, verdicts=verdicts
        )
    return CampaignTask.objects.get()


def test_a_reviewer_adjudicates_a_dispute_with_the_keyboard(
    live_server: Any, page: Any, make_user: Callable[..., User], disputed_item: CampaignTask
) -> None:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    disputes = f"/audit/campaigns/{disputed_item.campaign_id}/disputes/"
    _login(page, live_server.url, make_user("reviewer"), disputes)
    expect(page.get_by_test_id("dispute-keys")).to_contain_text("next / previous task")
    page.keyboard.press("j")  # the first task of the list, then Enter opens it
    expect(page.get_by_role("link", name="Adjudicate")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/audit/items/{disputed_item.pk}/")
    page.wait_for_selector("#adjudicate-form[data-ready]")
    expect(page.get_by_test_id("adjudicate-keys")).to_contain_text("take A's / B's verdict")
    assert page.locator("td .etype").first.inner_text() == "Hard-coded answer"
    assert page.evaluate(FOCUSED) == "capital", "the first disputed node has the focus"

    page.keyboard.press("b")  # take B's verdict on capital: saved at once
    expect(page.locator("#adj-notice")).to_contain_text("Gold verdict on capital: Wrong")
    gold = GoldVerdict.objects.get()
    assert (gold.node_id, gold.verdict, gold.error_type) == (
        "capital",
        "wrong",
        "hard_coded_answer",
    )
    expect(page.locator("select[name=gold_type-capital]")).to_have_value("hard_coded_answer")
    assert page.evaluate(FOCUSED) == "capital"

    page.keyboard.press("j")
    assert page.evaluate(FOCUSED) == "cited"
    page.keyboard.press("a")  # A's verdict on cited
    expect(page.locator("select[name=gold-cited]")).to_have_value("correct")
    page.keyboard.press("k")  # moving on before the save settles keeps the reviewer's place
    assert page.evaluate(FOCUSED) == "capital"
    expect(page.locator("#adj-notice")).to_contain_text("Gold verdict on cited: Correct")
    assert page.evaluate(FOCUSED) == "capital"
    page.keyboard.press("j")
    page.keyboard.press("3")  # overrule in the form: unverifiable, saved with the decision
    expect(page.locator("select[name=gold-cited]")).to_have_value("unverifiable")

    page.keyboard.press("?")
    expect(page.locator("#dlg-adj-keys")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#dlg-adj-keys")).to_be_hidden()

    page.get_by_role("button", name="Take B's decision (Reject on v1)").click()
    expect(page.locator("input[name=decision][value=reject]")).to_be_checked()
    expect(page.locator("input[name=decision][value=fix_accept]")).to_be_disabled()
    page.keyboard.press("s")
    expect(page.locator("input[name=decision][value=reject]")).to_be_focused()
    page.keyboard.press("Control+Enter")  # decides
    page.wait_for_url(f"{live_server.url}{disputes}")
    assert Task.objects.get().audit_state == AuditState.REJECTED
    assert GoldVerdict.objects.get(node_id="cited").verdict == "unverifiable"
    assert errors == []


def test_take_buttons_work_without_javascript(
    live_server: Any, browser: Any, make_user: Callable[..., User], disputed_item: CampaignTask
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    _login(page, live_server.url, make_user("reviewer"), f"/audit/items/{disputed_item.pk}/")
    page.locator("#node-capital").get_by_role("button", name="Take B's verdict").click()
    page.wait_for_url(f"{live_server.url}/audit/items/{disputed_item.pk}/#node-capital")
    assert GoldVerdict.objects.get().verdict == "wrong"
    expect(page.locator("select[name=gold-capital]")).to_have_value("wrong")
    context.close()
