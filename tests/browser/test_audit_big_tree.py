"""The audit page on a real 58-node QUEST tree, in a real browser: subtrees collapse and expand
with buttons and keys and stay that way after a reload, j/k skip what is collapsed, the
decision panel stays in view while the tree scrolls (a bar at the bottom on a phone), and a
reload puts the focus back on the next node without a verdict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.audit.services import assignment_claim_next
from tests.audit.conftest import big_tree_campaign
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)

FOCUSED = "document.activeElement.dataset.node"
HIDDEN = "[...document.querySelectorAll('.anode')].filter(e => e.hidden).length"


@pytest.fixture
def opened(live_server: Any, page: Any, make_user: Callable[..., User]) -> Any:
    """An annotator's page on the big tree, keys ready, no console error so far."""
    campaign = big_tree_campaign(make_user("admin"))
    annotator = make_user("annotator")
    held = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert held is not None
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_viewport_size({"width": 1280, "height": 800})
    _login(page, live_server.url, annotator, f"/audit/a/{held.pk}/")
    page.wait_for_selector("#audit[data-ready]")
    page.errors = errors
    return page


def _groups(page: Any) -> list[str]:
    return page.eval_on_selector_all(".anode.group", "els => els.map(e => e.dataset.node)")  # type: ignore[no-any-return]


def test_subtrees_collapse_by_button_and_key_and_stay_collapsed_after_a_reload(
    opened: Any,
) -> None:
    page = opened
    total = page.locator(".anode").count()
    assert total >= 58
    first_group = _groups(page)[1]  # a group below the root
    toggle = page.locator(f".anode[data-node='{first_group}'] [data-toggle]").first
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.focus()
    page.keyboard.press("Enter")  # a button: Tab reaches it, Enter presses it
    expect(toggle).to_have_attribute("aria-expanded", "false")
    hidden = page.evaluate(HIDDEN)
    assert hidden > 0

    page.locator(f".anode[data-node='{first_group}']").click()
    page.keyboard.press("j")  # j skips the collapsed subtree
    after = page.evaluate(FOCUSED)
    assert page.locator(f".anode[data-node='{after}']").is_visible()
    page.keyboard.press("k")
    assert page.evaluate(FOCUSED) == first_group
    page.keyboard.press("ArrowRight")  # expands it
    assert page.evaluate(HIDDEN) == 0
    page.keyboard.press("ArrowLeft")  # collapses it again
    assert page.evaluate(HIDDEN) == hidden

    page.reload()
    page.wait_for_selector("#audit[data-ready]")
    assert page.evaluate(HIDDEN) == hidden, "the collapsed subtree stays collapsed"
    page.get_by_role("button", name="Expand all").click()
    assert page.evaluate(HIDDEN) == 0
    page.locator(".anode").first.click()
    page.keyboard.press("[")  # collapse all: only the root shows
    assert page.evaluate(HIDDEN) == total - 1
    page.keyboard.press("]")
    assert page.evaluate(HIDDEN) == 0
    page.keyboard.press("x")  # x toggles the focused (root) subtree
    assert page.evaluate(HIDDEN) == total - 1
    assert page.errors == []


def test_n_opens_a_collapsed_subtree_holding_the_next_node_without_a_verdict(
    opened: Any,
) -> None:
    page = opened
    page.keyboard.press("1")  # the root: correct; the focus moves into its first child
    page.keyboard.press("[")
    page.keyboard.press("n")
    nodes = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")
    assert page.evaluate(FOCUSED) == nodes[1]
    assert page.locator(f".anode[data-node='{nodes[1]}']").is_visible()


def test_a_reload_returns_the_focus_to_the_next_node_without_a_verdict(opened: Any) -> None:
    page = opened
    nodes = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")
    assert page.evaluate(FOCUSED) == nodes[0]
    for _ in range(5):
        page.keyboard.press("1")
    page.keyboard.press("k")
    page.keyboard.press("k")  # the focus is on a judged node now
    page.wait_for_selector("#save-state:text-matches('^saved ')")
    page.reload()
    page.wait_for_selector("#audit[data-ready]")
    assert page.inner_text("#judged") == "5"
    assert page.evaluate(FOCUSED) == nodes[5]
    box = page.locator(f".anode[data-node='{nodes[5]}']").bounding_box()
    assert 0 <= box["y"] < page.viewport_size["height"], "the focused node is in view"


def test_the_decision_panel_stays_in_view_while_the_tree_scrolls(opened: Any) -> None:
    page = opened
    panel = page.get_by_test_id("decision-panel")
    assert panel.evaluate("e => getComputedStyle(e).position") == "sticky"
    page.keyboard.press("End")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("window.scrollY") > 500, "the big tree is taller than the window"
    box = panel.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800
    expect(panel.get_by_role("button", name="Submit…")).to_be_visible()

    page.set_viewport_size({"width": 390, "height": 800})
    assert panel.evaluate("e => getComputedStyle(e).position") == "fixed"
    page.evaluate("window.scrollTo(0, 1500)")
    box = panel.bounding_box()
    assert box["y"] + box["height"] <= 800 + 1 and box["width"] == 390
    assert not page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert page.errors == []


def test_fix_and_accept_is_disabled_until_the_tree_is_edited(opened: Any) -> None:
    page = opened
    page.keyboard.press("s")
    fix = page.locator("#dlg-submit input[value=fix_accept]")
    expect(fix).to_be_disabled()
    expect(page.locator("#dlg-submit .fix-note")).to_be_visible()
    page.keyboard.press("f")
    expect(page.locator("#dlg-submit .submit-error")).to_contain_text("needs an edited tree")
    expect(fix).not_to_be_checked()
