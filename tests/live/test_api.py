"""The sessions REST API: creating with validation, listing what you may see, stopping, events
after a seq, and exports."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.live.broadcast import event_append
from apps.live.models import Session, SessionStatus, Visibility

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Creating a session enqueues its run after commit; these tests look at the API only, so
    the enqueue is recorded instead of sent (the worker path is tested in test_worker.py)."""
    sent: list[int] = []
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: sent.append(session.pk))
    return sent


def _post(client: Client, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(path, json.dumps(body), content_type="application/json", headers=headers)


def test_a_viewer_starts_a_scripted_session_and_its_run_is_enqueued_after_commit(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    _no_enqueue: list[int],
    django_capture_on_commit_callbacks: Any,
) -> None:
    user = make_user("viewer")
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(
            client, "/api/live/sessions", {"question": "  Who wrote Dune?  "}, bearer(user)
        )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["question"] == "Who wrote Dune?"
    assert body["status"] == "queued"
    assert body["policy"] == "scripted"
    assert body["budgets"]["max_turns"] == 30
    assert body["url"] == f"/live/{body['id']}/"
    assert _no_enqueue == [Session.objects.get().pk]


def _refusal(response: Any) -> str:
    """The refusal in words: its detail, and each field's message where the schema refused it."""
    body = response.json()
    fields = [f"{error['loc'][-1]}: {error['msg']}" for error in body.get("errors", [])]
    return "; ".join([body["detail"], *fields])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"question": ""}, "give a question or a task"),
        ({"question": "x" * 4001}, "question: String should have at most 4000 characters"),
        ({"question": "q", "policy": "oracle"}, "policy: Input should be 'scripted' or 'llm'"),
        (
            {"question": "q", "max_turns": 0},
            "max_turns: Input should be greater than or equal to 1",
        ),
        (
            {"question": "q", "max_turns": 401},
            "max_turns: Input should be less than or equal to 400",
        ),
        ({"question": "q", "visibility": "everyone"}, "visibility: Input should be 'private' or"),
        ({"task_id": 999999}, "no task 999999"),
    ],
)
def test_a_bad_session_request_is_refused_with_a_message_and_nothing_is_created(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    body: dict[str, Any],
    message: str,
) -> None:
    response = _post(client, "/api/live/sessions", body, bearer(make_user("viewer")))
    assert response.status_code in (404, 422)
    assert message in _refusal(response)
    assert not Session.objects.exists()


def test_llm_sessions_need_the_permission_admins_grant_and_scripted_ones_do_not(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    _no_enqueue: list[int],
) -> None:
    from django.contrib.auth.models import Permission

    viewer = make_user("viewer")
    llm = {"question": "q", "policy": "llm", "model": "smollm2"}
    refused = _post(client, "/api/live/sessions", llm, bearer(viewer))
    assert refused.status_code == 403
    assert "an admin must grant you" in refused.json()["detail"]
    assert not Session.objects.exists()
    assert _post(client, "/api/live/sessions", {"question": "q"}, bearer(viewer)).status_code == 201

    viewer.user_permissions.add(Permission.objects.get(codename="use_llm"))
    granted = bearer(type(viewer).objects.get(pk=viewer.pk))  # a fresh permission cache
    bad_model = _post(client, "/api/live/sessions", {**llm, "model": "gpt-17"}, granted)
    assert bad_model.status_code == 422 and "model must be one of" in bad_model.json()["detail"]
    assert _post(client, "/api/live/sessions", llm, granted).status_code == 201


def test_a_user_cannot_run_more_than_three_sessions_at_once(
    make_user: Callable[..., Any], bearer: Callable[..., dict[str, str]], client: Client
) -> None:
    headers = bearer(make_user("viewer"))
    for n in range(3):
        assert (
            _post(client, "/api/live/sessions", {"question": f"q{n}"}, headers).status_code == 201
        )
    response = _post(client, "/api/live/sessions", {"question": "one more"}, headers)
    assert response.status_code == 409
    assert "already have 3 sessions" in response.json()["detail"]


def test_the_list_shows_own_and_public_sessions_but_not_others_private_ones(
    make_user: Callable[..., Any],
    make_session: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    me, other = make_user("viewer"), make_user("viewer")
    mine = make_session(me, visibility=Visibility.PRIVATE, question="my own")
    public = make_session(other, visibility=Visibility.PUBLIC, question="shared")
    hidden = make_session(other, visibility=Visibility.PRIVATE, question="secret")
    body = client.get("/api/live/sessions", headers=bearer(me)).json()
    ids = {s["id"] for s in body["results"]}
    assert body["sessions"] == body["results"], "the deprecated key, kept for one release"
    assert ids == {str(mine.public_id), str(public.public_id)}
    assert (
        client.get(f"/api/live/sessions/{hidden.public_id}", headers=bearer(me)).status_code == 404
    )
    everyone = client.get("/api/live/sessions", headers=bearer(make_user("admin"))).json()
    admin_ids = {s["id"] for s in everyone["results"]}
    assert str(hidden.public_id) in admin_ids
    filtered = client.get("/api/live/sessions?mine=true&q=own", headers=bearer(me)).json()
    assert [s["question"] for s in filtered["results"]] == ["my own"]
    bad = client.get("/api/live/sessions?status=sleeping", headers=bearer(me))
    assert bad.status_code == 422


def test_stopping_a_queued_session_ends_it_at_once_and_a_second_stop_conflicts(
    make_user: Callable[..., Any],
    make_session: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    owner = make_user("viewer")
    session = make_session(owner)
    response = client.post(f"/api/live/sessions/{session.public_id}/stop", headers=bearer(owner))
    assert response.status_code == 200
    assert response.json()["status"] == "finished"
    events = client.get(
        f"/api/live/sessions/{session.public_id}/events", headers=bearer(owner)
    ).json()
    assert [e["type"] for e in events["events"]] == ["finished"]
    again = client.post(f"/api/live/sessions/{session.public_id}/stop", headers=bearer(owner))
    assert again.status_code == 409


def test_a_running_session_is_asked_to_stop_and_only_its_owner_or_an_admin_may(
    make_user: Callable[..., Any],
    make_session: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    owner, watcher = make_user("viewer"), make_user("viewer")
    session = make_session(owner, status=SessionStatus.RUNNING)
    refused = client.post(f"/api/live/sessions/{session.public_id}/stop", headers=bearer(watcher))
    assert refused.status_code == 403
    response = client.post(f"/api/live/sessions/{session.public_id}/stop", headers=bearer(owner))
    assert response.json()["status"] == "stopping"
    session.refresh_from_db()
    assert session.stop_requested


def test_events_after_a_seq_come_in_order_with_pruned_ones_reported_as_gaps(
    make_user: Callable[..., Any],
    make_session: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    from apps.live.services import events_prune

    owner = make_user("viewer")
    session = make_session(owner)
    for kind in ("started", "tool_result", "tool_result", "answer"):
        event_append(session_id=session.pk, type=kind, payload={})
    events_prune(session_id=session.pk, types=("tool_result",))
    url = f"/api/live/sessions/{session.public_id}/events"
    body = client.get(f"{url}?after=1", headers=bearer(owner)).json()
    assert [e["seq"] for e in body["events"]] == [4]
    assert body["gaps"] == [{"from": 2, "to": 3}]
    assert body["last_seq"] == 4
    assert client.get(f"{url}?after=-1", headers=bearer(owner)).status_code == 422


def test_a_session_exports_as_markdown_and_as_json_with_every_event(
    make_user: Callable[..., Any],
    make_session: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    owner = make_user("viewer")
    session = make_session(owner, answer="Canberra [1]", status=SessionStatus.FINISHED)
    event_append(
        session_id=session.pk,
        type="tool_call",
        payload={"name": "search", "arguments": {"query": ["capital of Australia"]}},
    )
    event_append(
        session_id=session.pk,
        type="tool_result",
        payload={
            "name": "search",
            "ok": True,
            "sources": [{"url": "https://w.org/Canberra", "title": "Canberra"}],
        },
    )
    base = f"/api/live/sessions/{session.public_id}/export"
    markdown = client.get(f"{base}?format=md", headers=bearer(owner))
    assert markdown["Content-Type"].startswith("text/markdown")
    text = markdown.content.decode()
    assert "# What is the capital of Australia?" in text
    assert "Canberra [1]" in text
    assert "[Canberra](https://w.org/Canberra)" in text
    assert "`search`" in text
    exported = json.loads(
        b"".join(client.get(f"{base}?format=json", headers=bearer(owner)).streaming_content)
    )
    assert exported["session"]["answer"] == "Canberra [1]"
    assert [e["seq"] for e in exported["events"]] == [1, 2]
    assert client.get(f"{base}?format=pdf", headers=bearer(owner)).status_code == 422
