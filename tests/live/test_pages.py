"""The live pages: the session list with its start form, a session page, stop, export, and the
watchdog that marks silent runs stalled."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apps.live.models import Event, Session, SessionStatus, Visibility
from apps.live.services import sessions_mark_stalled

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)


def test_the_start_form_creates_a_session_and_opens_its_page(
    make_user: Callable[..., Any], client: Client
) -> None:
    client.force_login(make_user("viewer"))
    page = client.get("/live/")
    assert b"Start a research session" in page.content
    response = client.post("/live/new/", {"question": "Who wrote Dune?", "policy": "scripted"})
    session = Session.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/live/{session.public_id}/"
    detail = client.get(response["Location"]).content.decode()
    assert "Who wrote Dune?" in detail
    assert f'data-ws="/ws/live/{session.public_id}/"' in detail
    assert "Stop (partial report)" in detail


def test_a_bad_start_shows_the_reason_on_the_list_page(
    make_user: Callable[..., Any], client: Client
) -> None:
    client.force_login(make_user("viewer"))
    response = client.post("/live/new/", {"question": "   "}, follow=True)
    assert "give a question or a task" in response.content.decode()
    assert not Session.objects.exists()


def test_the_list_filters_by_status_with_htmx_fragments(
    make_user: Callable[..., Any], make_session: Callable[..., Any], client: Client
) -> None:
    user = make_user("viewer")
    make_session(user, question="finished one", status=SessionStatus.FINISHED)
    make_session(user, question="queued one")
    client.force_login(user)
    fragment = client.get("/live/?status=finished", headers={"HX-Request": "true"}).content.decode()
    assert "finished one" in fragment
    assert "queued one" not in fragment
    assert "<html" not in fragment


def test_a_task_session_page_shows_the_tree_to_light_up(
    make_user: Callable[..., Any], make_session: Callable[..., Any], client: Client
) -> None:
    from apps.rubrics.services import task_create
    from tests.rubrics.conftest import small_tree

    admin = make_user("admin")
    task = task_create(
        user=admin,
        record={"question": "Which city is the capital of Australia?", "rubric": small_tree()},
    )
    session = make_session(admin, task=task, question=task.question)
    client.force_login(admin)
    page = client.get(f"/live/{session.public_id}/").content.decode()
    assert 'data-node="capital"' in page
    assert 'data-testid="score"' in page


def test_others_private_sessions_are_not_found_and_others_cannot_stop_a_public_one(
    make_user: Callable[..., Any], make_session: Callable[..., Any], client: Client
) -> None:
    owner, other = make_user("viewer"), make_user("viewer")
    private = make_session(owner, visibility=Visibility.PRIVATE)
    public = make_session(owner, status=SessionStatus.RUNNING)
    client.force_login(other)
    assert client.get(f"/live/{private.public_id}/").status_code == 404
    page = client.get(f"/live/{public.public_id}/").content.decode()
    assert "Stop (partial report)" not in page
    response = client.post(f"/live/{public.public_id}/stop/", headers={"HX-Request": "true"})
    assert response.status_code == 403
    public.refresh_from_db()
    assert not public.stop_requested


def test_anonymous_visitors_are_sent_to_log_in(
    make_session: Callable[..., Any], make_user: Callable[..., Any], client: Client
) -> None:
    session = make_session(make_user("viewer"))
    response = client.get(f"/live/{session.public_id}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_watchdog_marks_silent_running_sessions_stalled_and_asks_them_to_stop(
    make_user: Callable[..., Any], make_session: Callable[..., Any], settings: Any
) -> None:
    settings.LIVE_STALL_AFTER_SECONDS = 60
    now = timezone.now()
    user = make_user("viewer")
    silent = make_session(user, status=SessionStatus.RUNNING, active_at=now - timedelta(seconds=90))
    busy = make_session(user, status=SessionStatus.RUNNING, active_at=now - timedelta(seconds=10))
    done = make_session(user, status=SessionStatus.FINISHED, active_at=now - timedelta(hours=1))
    assert sessions_mark_stalled(now=now) == 1
    silent.refresh_from_db()
    assert silent.status == SessionStatus.STALLED
    assert silent.stop_requested
    event = Event.objects.get(session=silent)
    assert event.type == "error"
    assert "marked stalled" in event.payload["message"]
    busy.refresh_from_db()
    done.refresh_from_db()
    assert (busy.status, done.status) == (SessionStatus.RUNNING, SessionStatus.FINISHED)
    assert sessions_mark_stalled(now=now) == 0


def test_live_prune_deletes_bulky_events_of_old_sessions_only(
    make_user: Callable[..., Any], make_session: Callable[..., Any]
) -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    from apps.live.broadcast import event_append

    user = make_user("viewer")
    old = make_session(user, status=SessionStatus.FINISHED)
    running = make_session(user, status=SessionStatus.RUNNING)
    for session in (old, running):
        for kind in ("started", "thought", "tool_result", "answer"):
            event_append(session_id=session.pk, type=kind, payload={})
    Session.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=40))
    out = StringIO()
    call_command("live_prune", "--older-than-days", "30", stdout=out)
    assert "deleted 2 events from 1 sessions" in out.getvalue()
    assert list(Event.objects.filter(session=old).values_list("type", flat=True)) == [
        "started",
        "answer",
    ]
    assert Event.objects.filter(session=running).count() == 4
    with pytest.raises(CommandError, match="other than started/answer/finished"):
        call_command("live_prune", "--older-than-days", "1", "--types", "answer")


def test_a_task_page_starts_a_live_session_on_that_task(
    make_user: Callable[..., Any], client: Client
) -> None:
    from apps.rubrics.services import task_create
    from tests.rubrics.conftest import small_tree

    admin = make_user("admin")
    task = task_create(
        user=admin, record={"question": "Capital of Australia?", "rubric": small_tree()}
    )
    client.force_login(make_user("viewer"))
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    assert "Start a live session" in page
    response = client.post("/live/new/", {"task_id": str(task.pk), "policy": "scripted"})
    session = Session.objects.get()
    assert response["Location"] == f"/live/{session.public_id}/"
    assert (session.task_id, session.question) == (task.pk, "Capital of Australia?")
    listed = client.get(f"/live/?task={task.pk}").content.decode()
    assert str(session.public_id) in listed
