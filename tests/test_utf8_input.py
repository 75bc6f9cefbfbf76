"""Input that is not UTF-8 (issue 38): a form field, a query parameter or a JSON body holding
such bytes is a 400 that names the field, on the pages and over REST, and nothing is stored.
Django used to decode the bytes as U+FFFD and a form stored that. Valid UTF-8 in any language
still goes through, and an uploaded file's bytes are the importer's to judge, not ours."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.models import ApiToken, User
from apps.rubrics.models import TaskImport

pytestmark = pytest.mark.django_db

LATIN1 = "Besançon".encode("latin-1")  # a name typed on a machine that does not send UTF-8
MULTILINGUAL = "Zürich · 東京 · Київ · القاهرة · 🚀"


def _said(response: Any) -> str:
    return html.unescape(response.content.decode())


def _multipart(client: Client, path: str, fields: dict[str, bytes]) -> Any:
    """A multipart POST of raw field bytes (the test client would send bytes as a list)."""
    boundary = "questweb-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        + value
        + b"\r\n"
        for name, value in fields.items()
    ]
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return client.post(path, body, content_type=f"multipart/form-data; boundary={boundary}")


def test_a_urlencoded_form_field_that_is_not_utf8_is_a_400_page_naming_it(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    body = b"name=" + LATIN1.replace(b"\xe7", b"%E7")
    response = client.post(
        "/accounts/settings/tokens/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert "form field 'name' is not valid UTF-8" in _said(response)
    assert not ApiToken.objects.exists()


def test_a_multipart_form_field_that_is_not_utf8_is_a_400_page_naming_it(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    response = _multipart(client, "/accounts/settings/tokens/", {"name": LATIN1})
    assert response.status_code == 400
    assert "form field 'name' is not valid UTF-8" in _said(response)
    assert not ApiToken.objects.exists()


def test_a_login_with_a_user_name_that_is_not_utf8_is_a_400_not_a_failed_login(
    client: Client, make_user: Callable[..., User]
) -> None:
    make_user(username="besancon")
    response = _multipart(client, "/accounts/login/", {"username": LATIN1, "password": b"x"})
    assert response.status_code == 400
    assert "form field 'username' is not valid UTF-8" in _said(response)


def test_a_json_body_that_is_not_utf8_is_a_400_naming_the_field(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    headers = bearer(make_user("viewer"))  # the token "test" is the one stored
    body = b'{"name": "' + LATIN1 + b'"}'
    response = client.post("/api/tokens", body, content_type="application/json", headers=headers)
    assert response.status_code == 400
    assert response.json() == {"detail": "field 'name' is not valid UTF-8"}
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["test"]


def test_a_json_body_names_a_nested_field_or_says_the_body_when_it_cannot(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    headers = bearer(make_user("admin"))
    nested = b'{"name": "r", "config": {"synth": {"keywords": ["ok", "' + LATIN1 + b'"]}}}'
    broken = b'{"name": ' + LATIN1 + b"}"  # the bad bytes are not inside a string
    said = [
        client.post("/api/recipes", body, content_type="application/json", headers=headers)
        for body in (nested, broken)
    ]
    assert [r.status_code for r in said] == [400, 400]
    assert said[0].json() == {"detail": "field 'config.synth.keywords[1]' is not valid UTF-8"}
    assert said[1].json() == {"detail": "the JSON body is not valid UTF-8"}


@pytest.mark.parametrize("path", ["/tasks/", "/api/tasks"])
def test_a_query_parameter_that_is_not_utf8_is_a_400_naming_it(
    client: Client, make_user: Callable[..., User], path: str
) -> None:
    client.force_login(make_user("viewer"))
    response = client.get(f"{path}?q=Besan%E7on")
    assert response.status_code == 400
    said = response.json()["detail"] if path.startswith("/api/") else _said(response)
    assert "query parameter 'q' is not valid UTF-8" in said


def test_valid_utf8_in_any_language_is_accepted_in_forms_queries_and_json(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    user = make_user("viewer")
    client.force_login(user)
    assert client.get("/tasks/", {"q": MULTILINGUAL}).status_code == 200
    client.post("/accounts/settings/tokens/", {"name": MULTILINGUAL})
    encoded = f'{{"name": "{MULTILINGUAL} api"}}'.encode()
    response = client.post(
        "/api/tokens", encoded, content_type="application/json", headers=bearer(user)
    )
    assert response.status_code == 201
    names = set(ApiToken.objects.values_list("name", flat=True))
    assert {MULTILINGUAL, f"{MULTILINGUAL} api"} <= names


def test_a_multipart_upload_of_binary_bytes_is_left_to_its_importer(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    payload = b"\xff\xfe\x00\x81 not text at all \xc3\x28"
    upload = {"file": SimpleUploadedFile("données.json", payload), "comment": MULTILINGUAL}
    response = client.post("/api/imports", upload, headers=bearer(make_user("admin")))
    assert response.status_code == 202
    stored = TaskImport.objects.get()
    assert (bytes(stored.payload), stored.filename) == (payload, "données.json")


def test_the_asgi_server_refuses_a_query_parameter_that_is_not_utf8_too(asgi_server: str) -> None:
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"http://{asgi_server}/?q=Besan%E7on", timeout=10)
    assert refused.value.code == 400
    assert "query parameter 'q' is not valid UTF-8" in html.unescape(refused.value.read().decode())
    with urllib.request.urlopen(f"http://{asgi_server}/?q=Besan%C3%A7on", timeout=10) as page:
        assert page.status == 200
