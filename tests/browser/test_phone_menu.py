"""The top navigation and the audit's submit dialog at a phone's width (390 px) and a laptop's
(1280 px), in a real browser: on a phone the header is one row whose menu button unfolds the
links; on a laptop it is the row of links it always was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from tests.browser.audit_setup import demo_assignment
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 900}


def _tops(page: Any, selector: str) -> list[float]:
    return [round(box["y"]) for box in map(_box, page.locator(selector).all())]


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not shown"
    return dict(box)


def test_on_a_phone_the_header_is_one_row_and_the_menu_opens_onto_clickable_links(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    page.set_viewport_size(PHONE)
    _login(page, live_server.url, make_user("viewer"), "/")
    header = page.locator("header.topbar")
    menu = header.get_by_role("button", name="Menu")
    assert _box(header)["height"] <= 64
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(header.get_by_role("link", name="Tasks")).to_be_hidden()

    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(header.get_by_role("link", name="API")).to_be_visible()
    header.get_by_role("link", name="Tasks").click()
    page.wait_for_url(f"{live_server.url}/tasks/")
    expect(menu).to_have_attribute("aria-expanded", "false")  # a new page starts folded
    assert _box(header)["height"] <= 64


def test_the_menu_button_works_from_the_keyboard(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    page.set_viewport_size(PHONE)
    _login(page, live_server.url, make_user("viewer"), "/")
    menu = page.get_by_role("button", name="Menu")
    assert menu.get_attribute("aria-controls") == "topbar-menu"
    menu.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#topbar-menu")).to_be_visible()
    page.keyboard.press("Tab")  # into the links it unfolded
    expect(page.locator("#topbar-menu a").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#topbar-menu")).to_be_hidden()
    expect(menu).to_be_focused()
    page.keyboard.press("Space")
    expect(menu).to_have_attribute("aria-expanded", "true")


def test_on_a_laptop_the_header_is_the_one_row_of_links_it_was(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    page.set_viewport_size(LAPTOP)
    _login(page, live_server.url, make_user("viewer"), "/")
    header = page.locator("header.topbar")
    expect(header.get_by_role("button", name="Menu")).to_be_hidden()
    links = header.locator("a, button:visible")
    assert links.count() == 12  # the brand, eight sections, the user, log out, API
    box = _box(header)
    assert box["height"] <= 56
    middle = box["y"] + box["height"] / 2
    for link in links.all():
        b = _box(link)
        assert abs(b["y"] + b["height"] / 2 - middle) < 6, f"{link.inner_text()} is off the row"


def test_without_javascript_the_links_are_all_shown(browser: Any, live_server: Any) -> None:
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        expect(page.get_by_role("button", name="Menu")).to_be_hidden()
        expect(page.locator("header.topbar nav a").first).to_be_visible()
    finally:
        context.close()


def test_the_submit_dialogs_three_choices_stay_on_one_line(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    annotator, assignment = demo_assignment(make_user, "Narrow submit")
    _login(page, live_server.url, annotator, f"/audit/a/{assignment.pk}/")
    page.wait_for_selector("#audit[data-ready]")
    for viewport in (PHONE, LAPTOP):
        page.set_viewport_size(viewport)
        page.get_by_role("button", name="Submit…").click()
        expect(page.locator("#dlg-submit")).to_be_visible()
        expect(page.locator("#dlg-submit .fix-note")).to_be_visible()  # the tree is unedited
        tops = _tops(page, "#dlg-submit .decisions label")
        assert len(tops) == 3 and len(set(tops)) == 1, f"at {viewport['width']} px: {tops}"
        note = _box(page.locator("#dlg-submit .fix-note"))
        assert note["y"] > tops[0], "the hint sits under the choices, not between them"
        dialog = _box(page.locator("#dlg-submit"))
        assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= viewport["width"]
        page.keyboard.press("Escape")
        expect(page.locator("#dlg-submit")).to_be_hidden()
