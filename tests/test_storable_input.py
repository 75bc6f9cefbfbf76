"""Text PostgreSQL cannot store (issue 29): a NUL character in a token's name, a training
preset's name, a live session's question, or any other text a request sends, is a 422 naming
the field, over REST and on the pages, and nothing is written. It used to be a 500 (a DataError
at write time, or in the query a search or filter ran). Runs on PostgreSQL, as the suite does."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from ninja import Schema

from apps.accounts.models import ApiToken, User
from apps.common.schemas import Storable
from apps.live.models import Session
from apps.training.models import TrainingPreset

NUL = "Canberra\x00"
REFUSED = "holds a NUL character (\\u0000), which cannot be stored"

# Read from the raw body, not validated by ninja: tasks_write and the rubric engine check every
# value and name the node (tests/test_bad_input.py).
CHECKED_BY_THEIR_SERVICE = {("TaskRecordIn", "*"), ("VersionIn", "tree")}


def _request_schemas() -> Iterator[type[Schema]]:
    import questweb.api  # noqa: F401  (imports every app's schemas)

    found: list[type[Schema]] = list(Schema.__subclasses__())
    while found:
        schema = found.pop()
        found.extend(schema.__subclasses__())
        if schema.__module__.startswith("apps.") and schema.__name__.endswith("In"):
            yield schema


def _unchecked(annotation: Any) -> list[str]:
    """The text (str, or Any that may hold some) in `annotation` that no Storable checks."""
    if typing.get_origin(annotation) is typing.Annotated:
        if Storable in annotation.__metadata__:
            return []
        return _unchecked(annotation.__origin__)
    if annotation is str or annotation is Any:
        return [str(annotation)]
    return [found for arg in typing.get_args(annotation) for found in _unchecked(arg)]


def test_every_request_schema_refuses_text_postgresql_cannot_store() -> None:
    unchecked = [
        f"{schema.__name__}.{name}: {_unchecked(field.annotation)}"
        for schema in _request_schemas()
        for name, field in schema.model_fields.items()
        if Storable not in field.metadata
        and _unchecked(field.annotation)
        and not {(schema.__name__, "*"), (schema.__name__, name)} & CHECKED_BY_THEIR_SERVICE
    ]
    assert unchecked == []


def test_the_suite_runs_this_on_postgresql() -> None:
    assert connection.vendor == "postgresql", "NUL is refused by PostgreSQL, not by SQLite"


def _post_json(client: Client, path: str, body: Any, headers: dict[str, str]) -> Any:
    return client.post(path, json.dumps(body), content_type="application/json", headers=headers)


API_CASES = [
    ("/api/tokens", {"name": NUL}, "name", lambda: ApiToken.objects.filter(name="test")),
    (
        "/api/training/presets",
        {"name": NUL, "kind": "sft", "model": "tiny"},
        "name",
        TrainingPreset.objects.all,
    ),
    ("/api/live/sessions", {"question": NUL}, "question", Session.objects.all),
    ("/api/recipes", {"name": "r", "config": {"model": NUL}}, "config", None),
    ("/api/audit/campaigns", {"name": "c", "filters": {"category": NUL}}, "filters", None),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "body", "field", "rows"), API_CASES)
def test_a_nul_character_in_a_request_is_a_422_naming_the_field_and_nothing_is_stored(
    client: Client,
    make_user: Callable[..., User],
    bearer: Callable[[User], dict[str, str]],
    path: str,
    body: dict[str, Any],
    field: str,
    rows: Callable[[], Any] | None,
) -> None:
    headers = bearer(make_user("admin"))  # the token "test" is the only one stored
    response = _post_json(client, path, body, headers)
    assert response.status_code == 422, response.content
    [error] = response.json()["errors"]
    assert error["loc"][-1] == field or field in error["loc"]
    assert REFUSED in error["msg"]
    if rows is not None:
        assert rows().count() == (1 if path == "/api/tokens" else 0)


@pytest.mark.django_db
def test_a_nul_deep_inside_a_json_object_is_named_by_its_path(
    client: Client, make_user: Callable[..., User], bearer: Callable[[User], dict[str, str]]
) -> None:
    body = {"name": "r", "config": {"synth": {"keywords": ["ok", NUL]}}}
    response = _post_json(client, "/api/recipes", body, bearer(make_user("admin")))
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["msg"] == f"synth.keywords[1] {REFUSED}"


PAGE_CASES = [
    ("/accounts/settings/tokens/", {"name": NUL}, "name", ApiToken.objects.all),
    (
        "/training/jobs/presets/",
        {"preset_name": NUL, "kind": "sft", "model": "tiny"},
        "preset_name",
        TrainingPreset.objects.all,
    ),
    ("/live/new/", {"question": NUL, "policy": "scripted"}, "question", Session.objects.all),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "form", "field", "rows"), PAGE_CASES)
def test_a_nul_character_in_a_form_is_a_422_page_naming_the_field_and_nothing_is_stored(
    client: Client,
    make_user: Callable[..., User],
    path: str,
    form: dict[str, str],
    field: str,
    rows: Callable[[], Any],
) -> None:
    client.force_login(make_user("admin"))
    response = client.post(path, form)
    assert response.status_code == 422
    assert f"the form field {field} {REFUSED}" in response.content.decode()
    assert rows().count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/tasks/?q=a%00b", "/live/?q=a%00b", "/api/tasks?q=a%00b"])
def test_a_nul_character_in_a_search_is_a_422_not_a_failed_query(
    client: Client, make_user: Callable[..., User], path: str
) -> None:
    client.force_login(make_user("viewer"))
    response = client.get(path)
    assert response.status_code == 422
    said = response.json()["detail"] if path.startswith("/api/") else response.content.decode()
    assert f"the query parameter q {REFUSED}" in said
