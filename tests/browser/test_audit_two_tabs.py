"""One annotator, one task, two tabs of the same browser (or two devices): neither tab's
autosave may silently overwrite the other's work. Changes made in one tab only merge by
themselves; a node changed in both is settled in the merge dialog, by keyboard."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from apps.accounts.models import User
from apps.audit.models import Assignment
from tests.browser.audit_setup import demo_assignment
from tests.browser.test_task_pages import _login
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

SAVED = "#save-state:text-matches('^saved ')"
MERGE = "#dlg-draft-conflict"
MERGED_ONE = "#save-state:has-text('merged 1 change from another tab or device')"


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


@pytest.fixture
def device(browser: Any) -> Iterator[Callable[[], Any]]:
    """A page in a browser context of its own: another device, with its own localStorage."""
    contexts: list[Any] = []

    def new() -> Any:
        contexts.append(browser.new_context())
        tab = contexts[-1].new_page()
        tab.set_default_timeout(15_000)
        return tab

    yield new
    for context in contexts:
        context.close()


def _open(tab: Any, live_server: Any, annotator: User, assignment: Assignment) -> Any:
    _login(tab, live_server.url, annotator, f"/audit/a/{assignment.pk}/")
    tab.wait_for_selector("#audit[data-ready]")
    return tab


def _nodes(tab: Any) -> list[str]:
    return list(tab.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)"))


def _badge(tab: Any, node: str) -> str:
    return str(tab.inner_text(f".anode[data-node='{node}'] .vbadge"))


def test_a_tab_that_fell_behind_takes_the_other_tabs_change_without_asking(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    tab_a, tab_b = _two_tabs(live_server, page, make_user)
    first, second = _nodes(tab_a)[:2]

    _keys(tab_a, "1")  # A: the first node is correct; autosaved as revision 1
    tab_a.wait_for_selector(SAVED)

    _keys(tab_b, "j", "2", "1")  # B, still on revision 0: the second is wrong (error type 1)
    tab_b.wait_for_selector(MERGED_ONE)  # each node changed in one tab only: nothing to ask
    assert tab_b.inner_text("#save-state").startswith("saved ")
    assert not tab_b.is_visible(MERGE) and not tab_b.is_visible("#notice")
    assert _badge(tab_b, first) == "✓ correct", "the other tab's verdict shows at once"

    for tab in (tab_a, tab_b):
        tab.reload()
        tab.wait_for_selector("#audit[data-ready]")
        assert tab.inner_text("#judged") == "2"
        assert _badge(tab, first) == "✓ correct"
        assert _badge(tab, second).startswith("✗ wrong")
    assert Assignment.objects.get().draft_revision == 2


def test_two_devices_merge_by_themselves_until_both_change_the_same_node(
    live_server: Any, device: Callable[[], Any], make_user: Callable[..., User]
) -> None:
    annotator, assignment = demo_assignment(make_user, "Two devices")
    laptop, phone = (_open(device(), live_server, annotator, assignment) for _ in range(2))
    first, second = _nodes(laptop)[:2]

    _keys(laptop, "1")  # the laptop: the first node is correct (revision 1), focus on the second
    laptop.wait_for_selector(SAVED)
    _keys(phone, "j", "3")  # the phone, on revision 0: the second is unverifiable
    phone.wait_for_selector(MERGED_ONE)
    assert not phone.is_visible(MERGE)
    assert (_badge(phone, first), _badge(phone, second)) == ("✓ correct", "? unverifiable")

    _keys(laptop, "2", "1")  # the laptop, on revision 1: the second is wrong; a real conflict
    laptop.wait_for_selector(f"{MERGE}[open]")
    rows = laptop.locator(f"{MERGE} .mrow")
    assert rows.count() == 1
    row = rows.nth(0).inner_text()
    assert second in row and "mine: ✗ wrong" in row and "theirs: ? unverifiable" in row
    assert laptop.inner_text("#save-state") == "not saved: changed elsewhere"


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
