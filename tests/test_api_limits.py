"""Integers no column can hold (issue 11, item 7): 2**63 overflows PostgreSQL's bigint, -1 is no id
and 10**30 is neither. Every integer the API reads (path, query string or JSON body) is bounded in
the schema, so each of them is a 4xx with a message, never a 500. The cases come from the
generated OpenAPI document: a new endpoint is covered the day it is added."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.services import task_prepare, tasks_write
from questweb.api import api
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db

BIGINT_MAX = 2**63 - 1
HOSTILE = {"2**63": 2**63, "-1": -1, "10**30": 10**30}
SCHEMA = api.get_openapi_schema(path_prefix="/api/")


@dataclass(frozen=True)
class IntParam:
    method: str
    path: str
    where: str  # path, query or body
    name: str
    schema: dict[str, Any]
    operation: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path} {self.where}.{self.name}"


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMA["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _integer(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The integer schema inside `schema` (itself, a nullable anyOf, or an array's items)."""
    schema = _resolve(schema)
    if schema.get("type") == "integer":
        return schema
    if schema.get("type") == "array":
        return _integer(schema.get("items", {}))
    for option in schema.get("anyOf", []):
        found = _integer(option)
        if found is not None:
            return found
    return None


def _json_body(operation: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    if "application/json" not in content:
        return None
    schema = content["application/json"]["schema"]
    # An optional body is anyOf [the model, null].
    for option in [schema, *schema.get("anyOf", [])]:
        body = _resolve(option)
        if body.get("type") == "object":
            return body
    return None


def _int_params() -> Iterator[IntParam]:
    for path, operations in SCHEMA["paths"].items():
        for method, operation in operations.items():
            for param in operation.get("parameters", []):
                if _integer(param["schema"]) is not None:
                    yield IntParam(
                        method, path, param["in"], param["name"], param["schema"], operation
                    )
            body = _json_body(operation) or {}
            for name, schema in body.get("properties", {}).items():
                if _integer(schema) is not None:
                    yield IntParam(method, path, "body", name, schema, operation)


INT_PARAMS = list(_int_params())


def _placeholder(schema: dict[str, Any], known: dict[str, Any], name: str) -> Any:
    """A value that passes `schema`, so only the parameter under test can be refused."""
    schema = _resolve(schema)
    if name in known:
        return known[name]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _placeholder(schema["anyOf"][0], known, name)
    kind = schema.get("type")
    if isinstance(kind, list):  # a rubric tree: an object or an array
        kind = kind[0]
    if kind == "integer":
        return max(schema.get("minimum", 1), 1)
    if kind == "string":
        return (
            str(uuid.uuid4())
            if schema.get("format") == "uuid"
            else "x" * schema.get("minLength", 1)
        )
    return {"boolean": False, "array": [], "object": {}}.get(kind, "x")


def _request(case: IntParam, value: Any, known: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
    path, query, body = case.path, {}, None
    for param in case.operation.get("parameters", []):
        chosen = value if param["name"] == case.name and case.where == param["in"] else None
        if chosen is None and param["in"] == "query" and not param.get("required"):
            continue
        chosen = (
            chosen if chosen is not None else _placeholder(param["schema"], known, param["name"])
        )
        if param["in"] == "path":
            path = path.replace("{" + param["name"] + "}", str(chosen))
        else:
            query[param["name"]] = chosen
    schema = _json_body(case.operation)
    if schema is not None:
        body = {
            name: _placeholder(prop, known, name)
            for name, prop in schema.get("properties", {}).items()
            if name in schema.get("required", [])
        }
        if case.where == "body":
            is_list = _resolve(schema["properties"][case.name]).get("type") == "array"
            body[case.name] = [value] if is_list else value
    return path, query, body


def _outside(schema: dict[str, Any], value: int) -> bool:
    bounds = _integer(schema) or {}
    return not bounds.get("minimum", -(2**63)) <= value <= bounds.get("maximum", BIGINT_MAX)


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin", is_superuser=True)


@pytest.fixture
def known_ids() -> dict[str, Any]:
    """Ids of real rows for the parameters not under test, so a request gets past its lookups."""
    [task] = tasks_write(
        user=None,
        prepared=[task_prepare({"question": "Capital of Australia?", "rubric": small_tree()})],
        note="test",
    )
    return {"task_id": task.pk, "number": 1, "version": 1, "base_version": 1}


def test_the_api_has_integer_parameters_to_check() -> None:
    where = {case.where for case in INT_PARAMS}
    assert len(INT_PARAMS) > 40 and where == {"path", "query", "body"}


@pytest.mark.parametrize("case", INT_PARAMS, ids=str)
def test_every_integer_parameter_is_bounded_within_a_bigint(case: IntParam) -> None:
    bounds = _integer(case.schema) or {}
    assert "minimum" in bounds and "maximum" in bounds, f"{case} has no bounds: {bounds}"
    assert -(2**63) <= bounds["minimum"] <= bounds["maximum"] <= BIGINT_MAX


@pytest.mark.parametrize("value", HOSTILE.values(), ids=HOSTILE.keys())
@pytest.mark.parametrize("case", INT_PARAMS, ids=str)
def test_a_hostile_integer_is_a_4xx_with_a_message_never_a_500(
    client: Client,
    bearer: Callable[[User], dict[str, str]],
    admin: User,
    known_ids: dict[str, Any],
    case: IntParam,
    value: int,
) -> None:
    path, query, body = _request(case, value, known_ids)
    if query:
        path += "?" + "&".join(f"{name}={query[name]}" for name in query)
    response = client.generic(
        case.method.upper(),
        path,
        data="" if body is None else json.dumps(body),
        content_type="application/json",
        headers=bearer(admin),
    )
    assert response.status_code < 500, response.content
    detail = response.json()["detail"] if response.status_code >= 400 else None
    if _outside(case.schema, value):
        assert response.status_code == 422, response.content
        assert isinstance(detail, str) and detail
        assert any(case.name in err["loc"] for err in response.json()["errors"])
    elif response.status_code >= 400:
        assert isinstance(detail, str) and detail
