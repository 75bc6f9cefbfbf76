from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import ApiToken, User
from apps.accounts.services import token_create
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def _login(client: Client, user: User) -> str:
    """Log in through the real login form and return the CSRF token the browser would hold."""
    client.get("/accounts/login/")
    response = client.post(
        "/accounts/login/",
        {
            "username": user.username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert response.status_code == 302
    return client.cookies["csrftoken"].value


def test_a_token_created_through_the_api_is_shown_once_and_stored_hashed(
    csrf_client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    csrf = _login(csrf_client, user)
    response = csrf_client.post(
        "/api/tokens",
        data={"name": "laptop", "expires_in_days": 30},
        content_type="application/json",
        headers={"X-CSRFToken": csrf},
    )
    assert response.status_code == 201
    secret = response.json()["token"]
    assert secret.startswith("qw_") and len(secret) > 40
    stored = ApiToken.objects.get(user=user)
    assert secret not in (stored.digest, stored.prefix) and secret.startswith(stored.prefix)
    listing = csrf_client.get("/api/tokens").json()["results"]
    assert listing[0]["name"] == "laptop" and "token" not in listing[0]
    assert secret not in str(listing)


def test_a_bearer_token_authenticates_and_records_its_last_use(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    issued = token_create(user=user, name="ci")
    response = client.get("/api/me", headers={"Authorization": f"Bearer {issued.secret}"})
    assert response.status_code == 200 and response.json()["username"] == user.username
    assert ApiToken.objects.get(pk=issued.token.pk).last_used_at is not None


def test_a_revoked_token_is_refused_with_a_reason(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    issued = token_create(user=user, name="old")
    headers = {"Authorization": f"Bearer {issued.secret}"}
    revoke = client.delete(f"/api/tokens/{issued.token.pk}", headers=headers)
    assert revoke.status_code == 204
    response = client.get("/api/me", headers=headers)
    assert response.status_code == 401
    assert response.json() == {"detail": "API token revoked"}


def test_an_expired_token_is_refused_with_a_reason(
    client: Client, make_user: Callable[..., User]
) -> None:
    issued = token_create(user=make_user("viewer"), name="short", expires_in_days=1)
    ApiToken.objects.filter(pk=issued.token.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    response = client.get("/api/me", headers={"Authorization": f"Bearer {issued.secret}"})
    assert response.status_code == 401
    assert response.json() == {"detail": "API token expired"}


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("Bearer qw_notarealtokenatall0000000", "unknown API token"),
        ("Bearer something-else", "malformed API token"),
        ("Token qw_abc", "Authorization header must be 'Bearer <token>'"),
        ("Bearer ", "Authorization header must be 'Bearer <token>'"),
    ],
)
def test_bad_credentials_get_401_with_a_clear_message(
    client: Client, header: str, detail: str
) -> None:
    response = client.get("/api/me", headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json() == {"detail": detail}


def test_no_credentials_at_all_is_401(client: Client) -> None:
    response = client.get("/api/me")
    assert response.status_code == 401
    assert response.json() == {"detail": "Unauthorized"}


def test_a_token_of_an_inactive_user_is_refused(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    issued = token_create(user=user, name="x")
    User.objects.filter(pk=user.pk).update(is_active=False)
    response = client.get("/api/me", headers={"Authorization": f"Bearer {issued.secret}"})
    assert response.status_code == 401


def test_a_session_post_without_csrf_is_403_and_creates_nothing(
    csrf_client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    _login(csrf_client, user)
    response = csrf_client.post(
        "/api/tokens", data={"name": "sneaky"}, content_type="application/json"
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not ApiToken.objects.filter(user=user).exists()


def test_nobody_can_revoke_someone_elses_token(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    victim_token = token_create(user=make_user("viewer"), name="mine")
    response = client.delete(
        f"/api/tokens/{victim_token.token.pk}", headers=bearer(make_user("admin"))
    )
    assert response.status_code == 404
    assert ApiToken.objects.get(pk=victim_token.token.pk).revoked_at is None


@pytest.mark.parametrize(
    "payload",
    [{"name": ""}, {"name": "x" * 101}, {"name": "ok", "expires_in_days": 0}, {"nom": "typo"}],
)
def test_invalid_token_requests_get_422_with_the_field_named(
    client: Client, make_user: Callable[..., User], bearer, payload: dict[str, object]
) -> None:
    response = client.post(
        "/api/tokens", data=payload, content_type="application/json", headers=bearer(make_user())
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"][-1] in {"name", "expires_in_days"}


def test_tokens_never_reach_the_logs(
    client: Client, make_user: Callable[..., User], caplog: pytest.LogCaptureFixture
) -> None:
    issued = token_create(user=make_user("viewer"), name="quiet")
    with caplog.at_level(logging.DEBUG):
        client.get("/api/users", headers={"Authorization": f"Bearer {issued.secret}"})
        client.get("/api/me", headers={"Authorization": f"Bearer {issued.secret}x"})
        logging.getLogger("questweb.test").warning("header was Bearer %s", issued.secret)
    handler = logging.getLogger().handlers[0]
    rendered = [handler.format(r) for r in caplog.records if handler.filter(r)]
    assert rendered, "expected the requests to log something"
    assert all(issued.secret not in line for line in rendered)
    assert any("[redacted]" in line for line in rendered)


def test_the_settings_page_creates_a_token_with_htmx_and_shows_it_once(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("annotator")
    client.force_login(user)
    created = client.post(
        "/accounts/settings/tokens/", {"name": "notebook"}, headers={"HX-Request": "true"}
    )
    assert created.status_code == 200
    html = created.content.decode()
    assert 'id="tokens"' in html and "<html" not in html  # a fragment, not the page
    token = ApiToken.objects.get(user=user)
    assert token.prefix in html and "Copy it now" in html
    page = client.get("/accounts/settings/").content.decode()
    assert token.prefix in page and "Copy it now" not in page


def test_the_settings_page_revokes_a_token(client: Client, make_user: Callable[..., User]) -> None:
    user = make_user("viewer")
    issued = token_create(user=user, name="gone")
    client.force_login(user)
    response = client.post(
        f"/accounts/settings/tokens/{issued.token.pk}/revoke/", headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert 'data-state="revoked"' in response.content.decode()
    assert ApiToken.objects.get(pk=issued.token.pk).state == "revoked"


def test_the_settings_page_reports_an_invalid_token_form(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    response = client.post(
        "/accounts/settings/tokens/",
        {"name": "x", "expires_in_days": "-3"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 422
    assert "Expires in days" in response.content.decode()


def test_token_issue_prints_a_secret_that_authenticates(make_user: Callable[..., User]) -> None:
    from io import StringIO

    from django.core.management import call_command

    user = make_user("viewer", username="scripted")
    out = StringIO()
    call_command("token_issue", "scripted", "--name", "ci", stdout=out)
    secret = out.getvalue().strip()
    assert ApiToken.objects.get(user=user).name == "ci"
    response = Client().get("/api/me", headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 200
    assert response.json()["username"] == "scripted"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nobody"], "no active user named 'nobody'"),
        (["scripted", "--days", "0"], "expires_in_days"),
    ],
)
def test_token_issue_refuses_bad_input_by_name(
    make_user: Callable[..., User], argv: list[str], message: str
) -> None:
    from django.core.management import CommandError, call_command

    make_user("viewer", username="scripted")
    with pytest.raises(CommandError, match=message):
        call_command("token_issue", *argv)
    assert not ApiToken.objects.exists()
