from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from apps.accounts.models import ApiToken, User
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_user_logs_in_creates_a_token_sees_it_once_uses_it_and_revokes_it(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    user = make_user("annotator")
    page.goto(f"{live_server.url}/accounts/login/?next=/accounts/settings/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button:has-text('Log in')")
    page.wait_for_url(f"{live_server.url}/accounts/settings/")
    assert page.locator(".tag", has_text="annotator").is_visible()

    page.fill("input[name=name]", "my laptop")
    page.click("button:has-text('Create token')")
    secret = page.locator("[data-testid=new-token]").inner_text().strip()
    assert secret.startswith("qw_")
    # htmx swapped the fragment in place: no navigation to the POST endpoint happened.
    assert page.url == f"{live_server.url}/accounts/settings/"
    row = page.locator("tr", has_text="my laptop")
    assert row.get_attribute("data-state") == "active"

    me = httpx.get(f"{live_server.url}/api/me", headers={"Authorization": f"Bearer {secret}"})
    assert me.status_code == 200 and me.json()["username"] == user.username
    example = page.locator("[data-testid=token-curl]").inner_text()
    assert example == f'curl -H "Authorization: Bearer {secret}" {live_server.url}/api/tasks'
    tasks = httpx.get(example.split()[-1], headers={"Authorization": f"Bearer {secret}"})
    assert tasks.status_code == 200, "the example works as written"
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("[data-testid=copy-token]")
    page.wait_for_selector("[data-testid=copy-token]:has-text('copied')")
    assert page.evaluate("navigator.clipboard.readText()") == secret

    page.reload()
    assert page.locator("[data-testid=new-token]").count() == 0  # shown once
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("tr", has_text="my laptop").locator("button:has-text('Revoke')").click()
    page.wait_for_selector("tr[data-state=revoked]")
    assert ApiToken.objects.get(user=user).state == "revoked"
    again = httpx.get(f"{live_server.url}/api/me", headers={"Authorization": f"Bearer {secret}"})
    assert again.status_code == 401


def test_a_wrong_password_shows_a_message_in_the_browser(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", "wrong")
    page.click("button:has-text('Log in')")
    assert page.get_by_role("alert").inner_text() == "Wrong username or password."
