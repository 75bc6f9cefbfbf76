"""Password guessing meets a lock: 5 failures for one user name from one address lock that pair."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def _login(client: Client, username: str, password: str, address: str = "198.51.100.7") -> Any:
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_five_wrong_passwords_lock_the_account_from_that_address_even_for_the_right_one(
    make_user: Callable[..., Any],
) -> None:
    user = make_user("viewer")
    client = Client()
    for _ in range(4):
        assert _login(client, user.username, "wrong").status_code == 401  # the form again
    locked = _login(client, user.username, "wrong")
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    assert _login(client, user.username, PASSWORD).status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_lock_holds_one_user_name_from_one_address_only(make_user: Callable[..., Any]) -> None:
    victim, other = make_user("viewer"), make_user("viewer")
    for _ in range(5):
        _login(Client(), victim.username, "wrong")
    assert _login(Client(), other.username, PASSWORD).status_code == 302
    assert _login(Client(), victim.username, PASSWORD, address="203.0.113.5").status_code == 302


def test_a_success_clears_the_count(make_user: Callable[..., Any]) -> None:
    user = make_user("viewer")
    for _ in range(4):
        _login(Client(), user.username, "wrong")
    assert _login(Client(), user.username, PASSWORD).status_code == 302
    for _ in range(4):
        _login(Client(), user.username, "wrong")
    assert _login(Client(), user.username, PASSWORD).status_code == 302
