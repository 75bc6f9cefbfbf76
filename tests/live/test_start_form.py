"""Starting a session (issue 29): a user is offered only the policies they may run, a refused
start keeps what was typed, and the form shows the defaults the API applies."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.live.models import Session

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)


def _task(make_user: Callable[..., Any]) -> Any:
    from apps.rubrics.services import task_create
    from tests.rubrics.conftest import small_tree

    record = {"question": "Capital of Australia?", "rubric": small_tree()}
    return task_create(user=make_user("admin"), record=record)


def test_a_viewer_is_offered_only_the_scripted_policy(
    make_user: Callable[..., Any], client: Client, bearer: Callable[..., dict[str, str]]
) -> None:
    task = _task(make_user)
    viewer = make_user("viewer")
    client.force_login(viewer)
    for path in (f"/tasks/{task.pk}/", "/live/"):
        page = client.get(path).content.decode()
        assert 'value="llm"' not in page.split('class="filters')[0], path
    models = client.get("/api/live/models", headers=bearer(viewer)).json()
    assert models["policies"] == ["scripted"]

    admin = make_user("admin")
    client.force_login(admin)
    assert 'value="llm"' in client.get(f"/tasks/{task.pk}/").content.decode()
    assert client.get("/api/live/models", headers=bearer(admin)).json()["policies"] == [
        "scripted",
        "llm",
    ]


def test_a_refused_start_says_why_and_keeps_the_question_and_the_task(
    make_user: Callable[..., Any], client: Client
) -> None:
    task = _task(make_user)
    client.force_login(make_user("viewer"))
    typed = {"question": "Who wrote Dune?", "task_id": str(task.pk), "policy": "llm"}
    response = client.post("/live/new/", typed)
    page = html.unescape(response.content.decode())
    assert response.status_code == 403
    assert "an admin must grant you" in page
    assert re.search(r'<textarea name="question"[^>]*>Who wrote Dune\?</textarea>', page)
    assert re.search(rf'name="task_id" min="1" value="{task.pk}"', page)
    assert not Session.objects.exists()


def _form_defaults(page: str) -> dict[str, str]:
    form = page.split('data-testid="new-session"')[1].split("</form>", maxsplit=1)[0]
    values = dict(re.findall(r'<input type="number" name="(\w+)"[^>]* value="(\d*)"', form))
    for name, select in re.findall(r'<select name="(\w+)"[^>]*>(.*?)</select>', form):
        chosen = re.search(r'<option value="([^"]+)" selected', select)
        values[name] = chosen.group(1) if chosen else re.findall(r'value="([^"]*)"', select)[0]
    return values


def test_the_start_form_shows_the_defaults_the_api_applies(
    make_user: Callable[..., Any], client: Client
) -> None:
    client.force_login(make_user("viewer"))
    form = _form_defaults(client.get("/live/").content.decode())
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]["SessionIn"]
    for field in ("max_turns", "condense_at_tokens", "visibility", "pace"):
        assert str(schema["properties"][field]["default"]) == form[field], field

    client.post("/live/new/", {"question": "Who wrote Dune?", **form})
    session = Session.objects.get()
    assert session.visibility == form["visibility"]
    assert session.budgets["condense_at_tokens"] == int(form["condense_at_tokens"])
