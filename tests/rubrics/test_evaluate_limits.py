"""POST /api/tasks/{id}/evaluate scores in the web process: the answer it takes is bounded, the
bound is named when it refuses one, and an answer at the bound is scored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.evaluation import MAX_ANSWER_CHARS
from apps.rubrics.models import Task
from tests.rubrics.conftest import small_task

pytestmark = pytest.mark.django_db

REFERENCE = "\n\n[1] https://www.geonames.org/2172517"


def _answer(length: int, *, tags: bool = False) -> str:
    """A cited answer of exactly `length` characters (tags included): one sentence repeated."""
    opener, closer = ("<answer>", "</answer>") if tags else ("", "")
    room = length - len(opener) - len(closer) - len(REFERENCE)
    sentence = "Canberra is the capital of Australia [1]. "
    body = (sentence * (room // len(sentence) + 1))[:room]
    return f"{opener}{body}{REFERENCE}{closer}"


def _evaluate(client: Client, task: Task, answer: str, headers: dict[str, str]) -> Any:
    return client.post(
        f"/api/tasks/{task.pk}/evaluate",
        data={"answer": answer},
        content_type="application/json",
        headers=headers,
    )


@pytest.mark.parametrize("tags", [False, True], ids=["bare", "in answer tags"])
def test_an_answer_over_the_limit_is_a_422_that_names_the_limit(
    client: Client, make_user: Callable[..., User], bearer, tags: bool
) -> None:
    answer = _answer(MAX_ANSWER_CHARS + 1, tags=tags)
    assert len(answer) == MAX_ANSWER_CHARS + 1
    response = _evaluate(client, small_task(), answer, bearer(make_user("viewer")))
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["loc"][-1] == "answer"
    assert str(MAX_ANSWER_CHARS) in error["msg"]


@pytest.mark.parametrize("tags", [False, True], ids=["bare", "in answer tags"])
def test_an_answer_of_exactly_the_limit_is_scored(
    client: Client, make_user: Callable[..., User], bearer, tags: bool
) -> None:
    answer = _answer(MAX_ANSWER_CHARS, tags=tags)
    assert len(answer) == MAX_ANSWER_CHARS
    response = _evaluate(client, small_task(), answer, bearer(make_user("viewer")))
    assert response.status_code == 200
    body = response.json()
    statuses = {node["id"]: node["status"] for node in body["report"]["nodes"]}
    assert statuses["capital"] == statuses["cited"] == "passed"
    assert body["reward"]["base"] == 1.0


def test_the_limit_is_published_with_the_operation(client: Client) -> None:
    schema = client.get("/api/openapi.json").json()
    operation = schema["paths"]["/api/tasks/{task_id}/evaluate"]["post"]
    assert f"{MAX_ANSWER_CHARS:,} characters" in operation["description"]
    assert {"413", "422"} <= set(operation["responses"])
