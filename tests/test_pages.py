from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.test import Client

from apps.accounts.models import User
from questweb.sections import SECTIONS
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_home_page_links_every_section(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    for section in SECTIONS:
        assert f'href="/{section.slug}/"' in html
    assert "vendor/htmx/htmx-2.0.11.min.js" in html


@pytest.mark.parametrize("role", ["viewer", "admin"])
def test_every_link_on_the_home_page_opens(
    client: Client, make_user: Callable[..., User], role: str
) -> None:
    client.force_login(make_user(role))
    html = client.get("/").content.decode()
    links = set(re.findall(r'<a [^>]*href="([^"]+)"', html))
    assert len(links) > len(SECTIONS)
    for href in sorted(links):
        assert client.get(href).status_code == 200, href


def test_the_recipe_card_is_a_link_now_that_the_page_exists(client: Client) -> None:
    html = client.get("/").content.decode()
    assert 'class="card card-coming"' not in html and ">coming<" not in html
    assert 'href="/recipes/"' in html


def test_the_home_page_says_what_a_role_cannot_do_there(
    client: Client, make_user: Callable[..., User]
) -> None:
    assert "Log in to open." in client.get("/").content.decode()
    client.force_login(make_user("viewer"))
    viewer = client.get("/").content.decode()
    assert "Starting batches needs the admin role." in viewer
    assert "Auditing trees needs the annotator role." in viewer
    client.force_login(make_user("admin"))
    assert 'class="muted small card-note"' not in client.get("/").content.decode()


def test_the_vendored_static_files_are_served(client: Client) -> None:
    response = client.get("/static/vendor/htmx/htmx-2.0.11.min.js")
    assert response.status_code == 200


@pytest.mark.parametrize("slug", [s.slug for s in SECTIONS])
def test_each_section_page_opens_with_its_tab_marked(
    client: Client, make_user: Callable[..., User], slug: str
) -> None:
    client.force_login(make_user("viewer"))
    response = client.get(f"/{slug}/")
    assert response.status_code == 200
    assert f'href="/{slug}/" aria-current="page"' in response.content.decode()


def test_a_section_page_sends_anonymous_visitors_to_log_in(client: Client) -> None:
    response = client.get("/tasks/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_a_wrong_password_is_401_with_a_message_on_the_page(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    response = client.post("/accounts/login/", {"username": user.username, "password": "nope"})
    assert response.status_code == 401
    assert "Wrong username or password." in response.content.decode()


def test_the_right_password_logs_in_and_logout_logs_out(
    client: Client, make_user: Callable[..., User]
) -> None:
    user = make_user("viewer")
    response = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/accounts/settings/").status_code == 200
    client.post("/accounts/logout/")
    assert client.get("/accounts/settings/").status_code == 302


def test_an_unknown_page_is_a_404_page(client: Client) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert "Nothing lives at /no/such/page" in response.content.decode()


def test_an_unknown_section_is_a_404(client: Client, make_user: Callable[..., User]) -> None:
    client.force_login(make_user("viewer"))
    assert client.get("/nonsense/").status_code == 404


def test_an_unknown_api_route_is_a_json_404(client: Client) -> None:
    response = client.get("/api/no-such-thing")
    assert response.status_code == 404
    assert response.json() == {"detail": "Nothing lives at /api/no-such-thing."}


def test_a_csrf_less_form_post_gets_a_403_page(
    csrf_client: Client, make_user: Callable[..., User]
) -> None:
    csrf_client.force_login(make_user("viewer"))
    response = csrf_client.post("/accounts/settings/tokens/", {"name": "x"})
    assert response.status_code == 403
    assert "CSRF check failed" in response.content.decode()


def test_the_openapi_schema_and_docs_are_published(client: Client) -> None:
    schema = client.get("/api/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert {"/api/me", "/api/tokens", "/api/users"} <= set(paths)
    assert client.get("/api/docs").status_code == 200
