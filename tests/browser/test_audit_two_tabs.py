"""One annotator, one task, two tabs of the same browser: neither tab's autosave may silently
overwrite the other's work; the tab that fell behind merges, by keyboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from apps.accounts.models import User
from apps.audit.models import Assignment
from tests.browser.audit_setup import demo_assignment
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

SAVED = "#save-state:text-matches('^saved ')"
MERGE = "#dlg-draft-conflict"


def _keys(page: Any, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def _two_tabs(live_server: Any, page: Any, make_user: Callable[..., User]) -> tuple[Any, Any]:
    """Tab A and tab B of one logged-in annotator, both open on the same assignment."""
    annotator, assignment = demo_assignment(make_user, "Two tabs")
    url = f"{live_server.url}/audit/a/{assignment.pk}/"
    page.goto(f"{live_server.url}/accounts/login/?next=/audit/a/{assignment.pk}/")
    page.keyboard.type(annotator.username)  # the login form focuses the user name
    _keys(page, "Tab")
    page.keyboard.type(PASSWORD)
    _keys(page, "Enter")
    page.wait_for_url(url)
    page.wait_for_selector("#audit[data-ready]")
    other = page.context.new_page()
    other.set_default_timeout(15_000)
    other.goto(url)
    other.wait_for_selector("#audit[data-ready]")
    return page, other


def _nodes(tab: Any) -> list[str]:
    return list(tab.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)"))


def _badge(tab: Any, node: str) -> str:
    return str(tab.inner_text(f".anode[data-node='{node}'] .vbadge"))


def test_a_tab_that_fell_behind_merges_instead_of_overwriting_and_both_verdicts_stay(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    tab_a, tab_b = _two_tabs(live_server, page, make_user)
    first, second = _nodes(tab_a)[:2]

    _keys(tab_a, "1")  # A: the first node is correct; autosaved as revision 1
    tab_a.wait_for_selector(SAVED)

    _keys(tab_b, "j", "2", "1")  # B, still on revision 0: the second is wrong (error type 1)
    tab_b.wait_for_selector(f"{MERGE}[open]")
    told = tab_b.inner_text(MERGE)
    assert "Your draft changed elsewhere" in told
    assert (
        "Revision 1 of this draft was saved in another tab or on another device "
        "while you worked on revision 0" in told
    )
    assert "1 change made elsewhere and 1 change of yours" in told
    assert "Nothing was changed on both sides" in told
    assert tab_b.inner_text("#save-state") == "not saved: changed elsewhere"
    assert _badge(tab_b, first) == "", "nothing is taken before the annotator merges"

    _keys(tab_b, "Enter")  # merge: keep both
    tab_b.wait_for_selector(SAVED)
    assert not tab_b.is_visible(MERGE)
    assert "Merged your draft with revision 1" in tab_b.inner_text("#notice")

    for tab in (tab_a, tab_b):
        tab.reload()
        tab.wait_for_selector("#audit[data-ready]")
        assert tab.inner_text("#judged") == "2"
        assert _badge(tab, first) == "✓ correct"
        assert _badge(tab, second).startswith("✗ wrong")
    assert Assignment.objects.get().draft_revision == 2


def test_nodes_changed_in_both_tabs_are_settled_one_by_one_with_the_keyboard(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    tab_a, tab_b = _two_tabs(live_server, page, make_user)
    first, second = _nodes(tab_a)[:2]

    _keys(tab_a, "1", "1")  # A: both correct
    tab_a.wait_for_selector(SAVED)
    _keys(tab_b, "3", "2", "1")  # B: unverifiable, and wrong
    tab_b.wait_for_selector(f"{MERGE}[open]")
    rows = tab_b.locator(f"{MERGE} .mrow")
    assert rows.count() == 2
    row = rows.nth(0).inner_text()
    assert first in row and "this node was changed elsewhere" in row
    assert "mine: ? unverifiable" in row and "theirs: ✓ correct" in row
    assert "mine: ✗ wrong" in rows.nth(1).inner_text()

    _keys(tab_b, "Escape")  # not a way out: the draft would stay unsaved
    assert tab_b.is_visible(MERGE)
    _keys(tab_b, "Enter")
    assert "Choose for 2 more" in tab_b.inner_text(f"{MERGE} .merge-error")

    _keys(tab_b, "t", "1", "Enter")  # all theirs, then mine for the first node
    tab_b.wait_for_selector(SAVED)
    assert _badge(tab_b, first) == "? unverifiable"
    assert _badge(tab_b, second) == "✓ correct"

    tab_a.reload()
    tab_a.wait_for_selector("#audit[data-ready]")
    assert (_badge(tab_a, first), _badge(tab_a, second)) == ("? unverifiable", "✓ correct")
