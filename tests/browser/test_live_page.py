"""The live session page in Debian's chromium against the real ASGI app (uvicorn, websockets):
events written after the page opened appear, the state board and the cited report update, the
tree lights up, and a finished session can be replayed with the scrubber."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from apps.live.broadcast import event_append
from apps.live.models import Session
from apps.rubrics.services import task_create
from tests.live.conftest import session_cookie
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db(transaction=True)
CANBERRA = "https://en.wikipedia.org/wiki/Canberra"


def _open(page: Any, server: str, user: Any, session: Session) -> None:
    name, value = session_cookie(user).split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": f"http://{server}"}])
    page.goto(f"http://{server}/live/{session.public_id}/")
    page.wait_for_selector("[data-testid=connection]:has-text('live')")


def _emit(session: Session, type: str, **payload: Any) -> None:
    """From another thread, as a worker would: Playwright's sync API keeps an event loop in this
    one, where the broadcast's async_to_sync may not run."""

    def write() -> None:
        from django.db import connection

        event_append(session_id=session.pk, type=type, payload=payload)
        connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()


def test_a_viewer_watches_events_arrive_and_replays_the_finished_session(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    admin, viewer = make_user("admin"), make_user("viewer")
    question = "Which city is the capital of Australia?"
    task = task_create(user=admin, record={"question": question, "rubric": small_tree()})
    session = Session.objects.create(owner=admin, question=question, task=task, status="running")
    _emit(session, "started", question=question, policy="scripted")
    _open(page, asgi_server, viewer, session)
    # The backlog arrives over the socket after it connects: wait for it, then count.
    page.wait_for_selector("[data-testid=timeline] li")
    assert page.locator("[data-testid=timeline] li").count() == 1

    _emit(session, "tool_call", turn=1, name="search", arguments={"query": ["capital Australia"]})
    _emit(session, "tool_result", turn=1, name="search", ok=True, text="1. Canberra",
          truncated=False, sources=[{"url": CANBERRA, "title": "Canberra"}])  # fmt: skip
    page.wait_for_selector("[data-testid=seen] >> text=Canberra", state="attached")
    assert page.locator("[data-testid=seen-count]").inner_text() == "(1)"
    assert page.locator("[data-testid=sources]").inner_text() == "none yet", "listed, not read"
    _emit(session, "tool_result", turn=2, name="visit", ok=True, text="Canberra is the capital",
          truncated=False, sources=[{"url": CANBERRA, "title": "Canberra"}])  # fmt: skip
    page.wait_for_selector("[data-testid=sources] >> text=Canberra")
    state = {
        "version": "dr_state",
        "search_queries": [],
        "visited_sources": [],
        "information_state": {
            "trusted": [{"id": "t1", "claim": "Canberra is the capital of Australia",
                         "sources": [CANBERRA], "reason": "two sources"}],
            "untrusted": [{"id": "u1", "claim": "Sydney is the capital", "sources": [],
                           "reason": "contradicted"}],
            "uncertain": [{"id": "q1", "claim": "founding year", "sources": [], "reason": "",
                           "need": "search Canberra founded"}],
        },
    }  # fmt: skip
    _emit(session, "state", turn=2, state=state, recovered=False)
    page.wait_for_selector(".board .trusted >> text=Canberra is the capital of Australia")
    assert "next: search Canberra founded" in page.locator(".board .uncertain").inner_text()
    assert page.locator(".board .untrusted li").inner_text().startswith("Sydney is the capital")

    _emit(session, "verdict", nodes={"capital": {"status": "pass", "score": 1.0}}, final=False)
    page.wait_for_selector("li.leaf[data-node=capital].st-pass")
    _emit(session, "answer", text="Canberra is the capital [1].", forced=False, partial=False,
          citations=[{"n": 1, "url": CANBERRA, "title": "Canberra"}])  # fmt: skip
    chip = page.locator("[data-testid=report] a.chip")
    chip.wait_for()
    assert chip.inner_text() == "[1]"
    assert "url=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FCanberra" in chip.get_attribute("href")
    _emit(session, "score", root_score=1.0, lower=1.0, upper=1.0, complete=True, final=True,
          reward={"reward": 1.0, "base": 1.0, "valid_rate": 1.0})  # fmt: skip
    _emit(session, "finished", status="answered", turns=2, tool_calls=1, condensations=1,
          elapsed_s=1.2, session_status="finished")  # fmt: skip
    page.wait_for_selector("[data-testid=status]:has-text('finished')")
    assert page.locator("[data-testid=score]").inner_text() == "final 1.00"
    reward = page.locator("[data-testid=reward]").inner_text()
    times = "\u00d7"  # the multiplication sign the page writes
    assert f"R = 0.75 {times} base + 0.25 {times} citations valid {times} base" in reward
    assert f"= 0.75 {times} 1.000 + 0.25 {times} 1.000 {times} 1.000 = 1.000" in reward
    events = page.locator("[data-testid=timeline] li").count()
    assert events == 7  # verdict and score light the tree rather than the timeline

    scrubber = page.locator("[data-testid=scrubber]")
    assert scrubber.is_visible()
    scrubber.fill("3")  # started, tool_call, tool_result
    assert page.locator("[data-testid=timeline] li").count() == 3
    assert page.locator("[data-testid=status]").inner_text() == "finished", "a replay keeps it"
    assert page.locator("[data-testid=report]").inner_text() == "No answer yet."
    assert "st-pass" not in page.locator("li.leaf[data-node=capital]").get_attribute("class")
    scrubber.fill(scrubber.get_attribute("max"))
    assert page.locator("[data-testid=timeline] li").count() == events
