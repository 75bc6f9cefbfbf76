"""A session end to end: created over the API, run by a real Celery worker with the scripted
policy over a real (tiny) corpus, watched over a real websocket until it finishes, with the
task's rubric lit up and scored."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from apps.live.models import Event, Pace, Session, SessionStatus
from tests.live.conftest import DOCS
from tests.rubrics.conftest import small_tree

CANBERRA, GEONAMES = DOCS[0][0], DOCS[1][0]


def _task(admin: Any) -> Any:
    from apps.rubrics.services import task_create

    return task_create(
        user=admin,
        record={"question": "Which city is the capital of Australia?", "rubric": small_tree()},
    )


async def _watch(ws_connect: Callable[..., Any], user: Any, public_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    socket = await ws_connect(user, f"/ws/live/{public_id}/")
    while not events or events[-1]["type"] != "finished":
        events.append(json.loads(await asyncio.wait_for(socket.recv(), 120)))
    await socket.close()
    return events


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
async def test_a_task_session_runs_in_a_worker_and_streams_to_a_websocket_viewer(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    corpus: Path,
    start_worker: Callable[..., Any],
    ws_connect: Callable[..., Any],
) -> None:
    admin = await sync_to_async(make_user)("admin")
    viewer = await sync_to_async(make_user)("viewer")
    task = await sync_to_async(_task)(admin)
    worker = await sync_to_async(start_worker)("cpu", QUESTWEB_CORPUS_DIR=str(corpus))
    headers = await sync_to_async(bearer)(admin)
    response = await sync_to_async(Client().post)(
        "/api/live/sessions",
        json.dumps({"task_id": task.pk, "max_turns": 12}),
        content_type="application/json",
        headers=headers,
    )
    assert response.status_code == 201, response.content
    public_id = response.json()["id"]
    events = await _watch(ws_connect, viewer, public_id)
    assert worker.poll() is None

    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    types = [e["type"] for e in events]
    assert types[0] == "started"
    assert {"tool_call", "tool_result", "answer", "verdict", "score"} <= set(types)
    answer = next(e for e in events if e["type"] == "answer")["payload"]
    assert "Canberra" in answer["text"]
    assert any(c["url"] in {url for url, _, _ in DOCS[:2]} for c in answer["citations"])
    final = [e for e in events if e["type"] == "score"][-1]["payload"]
    assert final["final"] is True
    assert final["root_score"] == 1.0
    assert final["reward"]["reward"] > 0.75
    finished = events[-1]["payload"]
    assert finished["session_status"] == "finished"

    session = await sync_to_async(Session.objects.get)(public_id=public_id)
    assert session.status == SessionStatus.FINISHED
    assert session.result["score"]["root_score"] == 1.0
    assert "Canberra" in session.answer
    stored = await sync_to_async(Event.objects.filter(session=session).count)()
    assert stored == len(events)


@pytest.mark.django_db
def test_a_stop_during_the_run_ends_it_with_a_partial_report(
    make_user: Callable[..., Any], corpus: Path
) -> None:
    """The runner in this process (no worker), paced at one turn a second: the owner stops it
    while it waits for its second turn (the wait is on a clock the test moves)."""
    from apps.live import runner, services

    owner = make_user("viewer")
    session = Session.objects.create(
        owner=owner,
        question="What is the capital of Australia?",
        budgets={"max_turns": 20},
        pace=Pace.STEP_PER_SECOND,
    )
    now = [0.0]

    def sleep(seconds: float) -> None:
        if not Session.objects.filter(pk=session.pk, stop_requested=True).exists():
            services.session_stop(user=owner, public_id=session.public_id)
        now[0] += seconds

    runner.session_run(session_id=session.pk, clock=lambda: now[0], sleep=sleep)
    session.refresh_from_db()
    events = list(Event.objects.filter(session=session).values_list("type", "payload"))
    assert events[-1][0] == "finished"
    assert events[-1][1]["status"] == "stopped"
    answers = [payload for kind, payload in events if kind == "answer"]
    assert answers and answers[-1]["partial"] is True
    assert session.status == SessionStatus.FINISHED
    assert session.answer
    records = session.trajectory.records
    assert records[0]["kind"] == "segment"
    assert records[0]["rollout_id"] == str(session.public_id)
    assert [m["role"] for m in records[0]["prompt_messages"][:2]] == ["system", "user"]
    assert records[0]["completion_turns"]
    exported = Client()
    exported.force_login(session.owner)
    response = exported.get(f"/api/live/sessions/{session.public_id}/export?format=trajectory")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == len(records)


@pytest.mark.django_db
def test_a_session_whose_corpus_is_missing_fails_with_a_readable_error(
    make_user: Callable[..., Any], settings: Any, tmp_path: Path
) -> None:
    from apps.live import runner

    settings.CORPUS_DIR = tmp_path / "nothing-here"
    session = Session.objects.create(owner=make_user("viewer"), question="anything")
    runner.session_run(session_id=session.pk)
    session.refresh_from_db()
    assert session.status == SessionStatus.FAILED
    error = Event.objects.get(session=session, type="error")
    assert "the corpus is empty" in error.payload["message"]
    runner.session_run(session_id=session.pk)  # a redelivered task does not run it twice
    assert Event.objects.filter(session=session, type="finished").count() == 1
