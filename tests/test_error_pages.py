"""No debug page in the default mode: styled errors, no settings, no URL list, no traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client, override_settings

from questweb.reporting import SettingsFilter

ROOT = Path(__file__).resolve().parent.parent


def test_make_run_starts_without_debug_and_make_dev_with_it() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    dev = makefile.split("\ndev:", 1)[1].split("\n\n", 1)[0]
    assert "DEBUG=$${DEBUG:-0}" in run
    assert "DEBUG=1" in dev


@pytest.mark.django_db
def test_a_foreign_host_gets_a_styled_400_that_shows_no_settings(client: Client) -> None:
    response = client.get("/", headers={"host": "evil.example"})
    body = response.content.decode()
    assert response.status_code == 400
    assert "<title>Bad request" in body
    assert "DATABASES" not in body and "ALLOWED_HOSTS" not in body and "Traceback" not in body


@pytest.mark.django_db
def test_an_unknown_page_is_a_styled_404_without_the_url_patterns(client: Client) -> None:
    response = client.get("/no/such/page/")
    body = response.content.decode()
    assert response.status_code == 404
    assert "<title>Not found" in body
    assert "api/" not in body.split("</header>", 1)[-1]  # no list of URL patterns
    assert "URLconf" not in body


@pytest.mark.django_db
def test_an_unknown_api_route_is_json_without_a_traceback(client: Client) -> None:
    response = client.get("/api/no-such-thing")
    assert response.status_code == 404
    assert set(response.json()) == {"detail"}


@override_settings(
    LLM_ENDPOINTS='[{"url": "http://gpu:8000", "model": "m", "api_key": "sk-live-123"}]',
    REDIS_URL="redis://:hunter2@cache:6379/0",
)
def test_error_reports_mask_connection_strings_and_endpoint_lists() -> None:
    safe = SettingsFilter().get_safe_settings()
    shown = repr(safe)
    assert "sk-live-123" not in shown and "hunter2" not in shown
    assert safe["LLM_ENDPOINTS"] == SettingsFilter.cleansed_substitute
    assert safe["DATABASES"] == SettingsFilter.cleansed_substitute
    assert safe["TIME_ZONE"] == "UTC"


@pytest.mark.django_db
def test_the_favicon_is_served_from_the_app(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("/static/img/favicon.svg")
    assert client.get(response["Location"]).status_code == 200


@pytest.mark.django_db
def test_the_api_docs_load_nothing_from_outside_the_app(client: Client) -> None:
    response = client.get("/api/docs")
    body = response.content.decode()
    assert response.status_code == 200
    assert "swagger-ui-bundle.js" in body
    # Every script and stylesheet is the app's own (a random CSRF token may spell "cdn").
    assets = re.findall(r'(?:src|href)="([^"]*)"', body)
    assert assets and all(a.startswith("/") and not a.startswith("//") for a in assets), assets
    assert "https://" not in body and "http://" not in body
    assert '"validatorUrl": null' in body
    for asset in ("/static/ninja/swagger-ui-bundle.js", "/static/ninja/swagger-ui.css"):
        assert client.get(asset).status_code == 200


@pytest.mark.django_db
def test_every_page_carries_a_policy_that_loads_scripts_from_the_app_only(client: Client) -> None:
    policy = client.get("/").headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"


def test_no_template_has_an_inline_script_or_event_handler() -> None:
    import re

    for path in (ROOT / "templates").rglob("*.html"):
        html = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", html), path
        assert not re.search(r"\son[a-z]+=\"", html), path
