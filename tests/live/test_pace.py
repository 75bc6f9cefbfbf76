"""The pace a session is shown at: chosen when it starts (form and API, bad values refused),
shown on its page, and kept by the runner (one policy turn a second at most)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.live.models import Event, Pace, Session

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)


def _create(client: Client, headers: dict[str, str], **body: Any) -> Any:
    body = {"question": "Who wrote Dune?", **body}
    return client.post(
        "/api/live/sessions", json.dumps(body), content_type="application/json", headers=headers
    )


def test_the_api_takes_a_pace_and_refuses_an_unknown_one_naming_the_field(
    make_user: Callable[..., Any], bearer: Callable[..., dict[str, str]], client: Client
) -> None:
    headers = bearer(make_user("viewer"))
    assert _create(client, headers).json()["pace"] == "real_time"
    paced = _create(client, headers, pace="1_step_per_s")
    assert paced.status_code == 201, paced.content
    assert paced.json()["pace"] == "1_step_per_s"
    bad = _create(client, headers, pace="warp")
    assert bad.status_code == 422
    error = bad.json()["errors"][0]
    assert error["loc"][-1] == "pace"
    assert "real_time" in error["msg"] and "1_step_per_s" in error["msg"]
    assert Session.objects.count() == 2


def test_the_start_form_offers_the_pace_and_the_session_page_shows_it(
    make_user: Callable[..., Any], client: Client
) -> None:
    client.force_login(make_user("viewer"))
    form = client.get("/live/").content.decode()
    assert '<option value="1_step_per_s">1 step per second</option>' in form
    response = client.post("/live/new/", {"question": "Who wrote Dune?", "pace": "1_step_per_s"})
    session = Session.objects.get()
    assert session.pace == Pace.STEP_PER_SECOND
    detail = client.get(response["Location"]).content.decode()
    assert "pace: 1 step per second" in detail
    refused = client.post("/live/new/", {"question": "x", "pace": "fast"}, follow=True)
    assert "pace must be one of real_time, 1_step_per_s" in refused.content.decode()


def _run(session: Session) -> dict[int, float]:
    """Run `session` on a clock that moves only when the runner sleeps; how long it waited,
    keyed by how many events the session had when it waited."""
    from apps.live import runner

    now = [0.0]
    waits: dict[int, float] = defaultdict(float)

    def sleep(seconds: float) -> None:
        waits[Event.objects.filter(session=session).count()] += seconds
        now[0] += seconds

    runner.session_run(session_id=session.pk, clock=lambda: now[0], sleep=sleep)
    return dict(waits)


def test_a_paced_run_waits_a_second_between_turns_with_events_in_between(
    make_user: Callable[..., Any], make_session: Callable[..., Any], corpus: Path
) -> None:
    session = make_session(make_user("viewer"), budgets={"max_turns": 5}, pace=Pace.STEP_PER_SECOND)
    waits = _run(session)
    turns = Event.objects.get(session=session, type="finished").payload["turns"]
    assert turns >= 3
    # One wait before each turn but the first, each after new events, each a second long.
    assert len(waits) == turns - 1
    assert list(waits) == sorted(waits)
    assert all(abs(waited - 1.0) < 1e-6 for waited in waits.values())


def test_a_real_time_run_never_waits(
    make_user: Callable[..., Any], make_session: Callable[..., Any], corpus: Path
) -> None:
    session = make_session(make_user("viewer"), budgets={"max_turns": 5})
    assert _run(session) == {}
    assert Event.objects.filter(session=session, type="finished").exists()
