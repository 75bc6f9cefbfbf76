"""The audit page without a keyboard: at a phone's width, by touch, an annotator judges every
node, comments, edits, undoes and submits with visible controls; and undo says what it undid."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.audit.models import Assignment, NodeVerdict
from tests.browser.audit_setup import demo_assignment
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)

NOTICE = "#notice"


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A touch screen 390 px wide, as a phone has."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def _assignment(make_user: Callable[..., User]) -> tuple[User, Assignment]:
    return demo_assignment(make_user, "By touch")


def _tool(page: Any, name: str) -> Any:
    toolbar = page.get_by_role("toolbar", name="Actions on the selected node")
    return toolbar.get_by_role("button", name=name)


def test_an_annotator_audits_a_whole_tree_by_touch_at_a_phones_width(
    live_server: Any, phone: Any, make_user: Callable[..., User], tmp_path: Path
) -> None:
    page = phone
    annotator, assignment = _assignment(make_user)
    base = live_server.url
    _login(page, base, annotator, f"/audit/a/{assignment.pk}/")
    page.wait_for_selector("#audit[data-ready]")
    nodes = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")
    judged = page.locator("#judged")

    page.locator(f".anode[data-node='{nodes[0]}'] .desc").tap()
    _tool(page, "Correct").tap()  # judged, and the toolbar moves on to the next node
    _tool(page, "Wrong").tap()
    page.screenshot(path=str(tmp_path / "error-type-390.png"))
    page.get_by_role("button", name="Not atomic").tap()
    page.locator(f".anode[data-node='{nodes[1]}'] .desc").tap()  # back to it, to comment
    _tool(page, "Comment").tap()
    page.fill("#dlg-comment textarea", "checks two facts at once")
    page.get_by_role("button", name="Save", exact=True).tap()
    assert page.inner_text(f".anode[data-node='{nodes[1]}'] .anote") == "checks two facts at once"
    assert judged.inner_text() == "2"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(tmp_path / "touch-390.png"))

    page.locator(f".anode[data-node='{nodes[2]}'] .desc").tap()
    _tool(page, "Edit").tap()
    page.fill("#dlg-edit [name=description]", "The facts asked for are right and each is cited")
    page.get_by_role("button", name="Save as new version").tap()
    page.wait_for_selector(".atree[data-version='2']")
    assert "Saved version 2" in page.inner_text(NOTICE)

    while judged.inner_text() != str(len(nodes)):
        page.get_by_role("button", name="Next without verdict").tap()
        _tool(page, "Correct").tap()
    page.get_by_role("button", name="Undo").tap()  # the last verdict goes again
    assert judged.inner_text() == str(len(nodes) - 1)
    assert "Undone: the verdict on" in page.inner_text(NOTICE)
    page.get_by_role("button", name="Next without verdict").tap()
    _tool(page, "Unverifiable").tap()

    page.get_by_role("button", name="Submit…").tap()
    page.screenshot(path=str(tmp_path / "submit-390.png"))
    page.get_by_role("radio", name="Fix and accept").tap()
    page.get_by_role("button", name="Submit and next").tap()
    page.wait_for_url(f"{base}/audit/campaigns/{assignment.campaign_id}/")
    assignment.refresh_from_db()
    assert (assignment.status, assignment.decision, assignment.version.number) == (
        "submitted",
        "fix_accept",
        2,
    )
    verdicts = {v.node_id: v for v in NodeVerdict.objects.filter(assignment=assignment)}
    assert set(verdicts) == set(nodes)
    assert (verdicts[nodes[1]].verdict, verdicts[nodes[1]].error_type) == ("wrong", "not_atomic")
    assert verdicts[nodes[1]].comment == "checks two facts at once"
    assert [v.verdict for v in verdicts.values()].count("unverifiable") == 1


def test_undo_after_a_comment_says_the_comment_was_undone(
    live_server: Any, page: Any, make_user: Callable[..., User], tmp_path: Path
) -> None:
    annotator, assignment = _assignment(make_user)
    _login(page, live_server.url, annotator, f"/audit/a/{assignment.pk}/")
    page.wait_for_selector("#audit[data-ready]")
    first = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")[0]
    note = page.locator(f".anode[data-node='{first}'] .anote")

    page.keyboard.press("1")  # a verdict on the first node, then a comment on it
    page.keyboard.press("k")
    page.keyboard.press("c")
    page.keyboard.type("the question asks three things")
    page.keyboard.press("Control+Enter")
    assert note.inner_text() == "the question asks three things"
    page.keyboard.press("u")
    assert page.inner_text(NOTICE) == f"Undone: the comment on {first}."
    assert note.is_hidden()
    assert page.inner_text(f".anode[data-node='{first}'] .vbadge") == "✓ correct"

    # With the mouse: the same, by the buttons.
    page.set_viewport_size({"width": 1280, "height": 900})
    _tool(page, "Comment").click()
    page.fill("#dlg-comment textarea", "a second thought")
    page.get_by_role("button", name="Save", exact=True).click()
    page.screenshot(path=str(tmp_path / "mouse-1280.png"))
    page.get_by_role("button", name="Undo").click()
    assert page.inner_text(NOTICE) == f"Undone: the comment on {first}."
    page.get_by_role("button", name="Undo").click()
    assert page.inner_text(NOTICE) == f"Undone: the verdict on {first}."
    assert page.inner_text("#judged") == "0"
