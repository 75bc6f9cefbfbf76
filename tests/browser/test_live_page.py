"""The live session page in Debian's chromium against the real ASGI app (uvicorn, websockets):
events written after the page opened appear, the state board and the cited report update, the
tree lights up, and a finished session can be replayed with the scrubber. A report is drawn
from Markdown and runs none of the script it carries; an llm session shows the model at work."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from apps.live.broadcast import progress_send
from apps.live.models import Session
from apps.rubrics.services import task_create
from tests.browser.live_events import emit
from tests.live.conftest import session_cookie
from tests.rubrics.conftest import judged_tree, small_tree

pytestmark = pytest.mark.django_db(transaction=True)
CANBERRA = "https://en.wikipedia.org/wiki/Canberra"


def _open(page: Any, server: str, user: Any, session: Session, *, live: bool = True) -> None:
    name, value = session_cookie(user).split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": f"http://{server}"}])
    page.goto(f"http://{server}/live/{session.public_id}/")
    if live:  # an ended session's socket closes once it has sent the backlog
        page.wait_for_selector("[data-testid=connection]:has-text('live')")


def test_a_viewer_watches_events_arrive_and_replays_the_finished_session(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    admin, viewer = make_user("admin"), make_user("viewer")
    question = "Which city is the capital of Australia?"
    task = task_create(user=admin, record={"question": question, "rubric": small_tree()})
    session = Session.objects.create(owner=admin, question=question, task=task, status="running")
    emit(session, "started", question=question, policy="scripted")
    _open(page, asgi_server, viewer, session)
    # The backlog arrives over the socket after it connects: wait for it, then count.
    page.wait_for_selector("[data-testid=timeline] li")
    assert page.locator("[data-testid=timeline] li").count() == 1

    emit(session, "tool_call", turn=1, name="search", arguments={"query": ["capital Australia"]})
    emit(session, "tool_result", turn=1, name="search", ok=True, text="1. Canberra",
          truncated=False, sources=[{"url": CANBERRA, "title": "Canberra"}])  # fmt: skip
    page.wait_for_selector("[data-testid=seen] >> text=Canberra", state="attached")
    assert page.locator("[data-testid=seen-count]").inner_text() == "(1)"
    assert page.locator("[data-testid=sources]").inner_text() == "none yet", "listed, not read"
    emit(session, "tool_result", turn=2, name="visit", ok=True, text="Canberra is the capital",
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
    emit(session, "state", turn=2, state=state, recovered=False)
    page.wait_for_selector(".board .trusted >> text=Canberra is the capital of Australia")
    assert "next: search Canberra founded" in page.locator(".board .uncertain").inner_text()
    assert page.locator(".board .untrusted li").inner_text().startswith("Sydney is the capital")
    assert page.locator(".board .untrusted li .why").inner_text() == "contradicted"

    emit(session, "verdict", nodes={"capital": {"status": "pass", "score": 1.0}}, final=False)
    page.wait_for_selector("li.leaf[data-node=capital].st-pass")
    emit(session, "answer", text="Canberra is the capital [1].", forced=False, partial=False,
          citations=[{"n": 1, "url": CANBERRA, "title": "Canberra"}])  # fmt: skip
    chip = page.locator("[data-testid=report] a.chip")
    chip.wait_for()
    assert chip.inner_text() == "[1]"
    assert "url=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FCanberra" in chip.get_attribute("href")
    emit(session, "score", root_score=1.0, lower=1.0, upper=1.0, complete=True, final=True,
          reward={"reward": 1.0, "base": 1.0, "valid_rate": 1.0})  # fmt: skip
    emit(session, "finished", status="answered", turns=2, tool_calls=1, condensations=1,
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


def _judge_only_session(owner: Any) -> Session:
    tree = judged_tree()
    tree["root"]["children"] = tree["root"]["children"][2:]
    task = task_create(user=owner, record={"question": "Capital?", "rubric": tree})
    return Session.objects.create(owner=owner, question="Capital?", task=task, status="running")


def test_a_judge_leaf_without_a_judge_shows_as_undecided_not_as_a_red_zero(
    asgi_server: str, page: Any, make_user: Callable[..., Any], settings: Any
) -> None:
    from apps.live.scoring import TaskScorer

    settings.LLM_JUDGE_MODEL = ""
    owner = make_user("admin")
    session = _judge_only_session(owner)
    errors = _errors(page)
    _open(page, asgi_server, owner, session)
    # The events the runner sends when it scores the final answer without a judge.
    events, _ = TaskScorer(session.task).final("Canberra is the capital.")
    for kind, payload in events:
        emit(session, kind, **payload)
    reward = page.locator("[data-testid=reward]")
    reward.locator("[data-testid=reward-undecided]").wait_for()

    root = page.locator("li.node[data-node=root]")
    assert "st-undecided" in root.get_attribute("class")
    score = root.locator(":scope > details > summary .score")
    assert score.inner_text() == "undecided 0.00\N{EN DASH}1.00"
    assert "could not decide" in score.get_attribute("title")
    leaf = page.locator("li.leaf[data-node=reasoned]")
    assert "st-undecided" in leaf.get_attribute("class")
    assert leaf.locator(".verdict").inner_text() == "undecided"
    assert page.locator("[data-testid=score]").inner_text() == "final undecided 0.00\N{EN DASH}1.00"
    text = reward.inner_text()
    assert text.startswith("Reward undecided")
    assert "rubric score (base): undecided: between 0.000 and 1.000" in text
    assert "dropped from training, not scored 0" in text
    assert page.locator(".st-error, .st-fail, .st-failed").count() == 0
    # Nothing in the scored tree or the reward is drawn in the failure colour (--bad).
    red = page.evaluate(
        """() => [...document.querySelectorAll('.live-tree *, [data-testid=reward] *')]
            .filter((e) => getComputedStyle(e).color === 'rgb(179, 38, 30)')
            .map((e) => e.textContent)"""
    )
    assert red == []
    assert errors == []


HOSTILE_REPORT = f"""_Partial report: the run was stopped before the research was finished._

**Answer:** Canberra is the capital [1].

<script>window.pwned = "script"</script> <img src=x onerror="window.pwned = 'img'">

[click me](javascript:window.pwned='link') and <b>raw</b>

## Sources
1. Canberra - {CANBERRA}
"""


def _errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def test_a_hostile_report_is_drawn_as_markdown_and_runs_nothing(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    viewer = make_user("viewer")
    session = Session.objects.create(owner=viewer, question="Capital?", status="running")
    errors = _errors(page)
    _open(page, asgi_server, viewer, session)
    emit(session, "answer", text=HOSTILE_REPORT, forced=True, partial=True,
          citations=[{"n": 1, "url": CANBERRA, "title": "Canberra"}])  # fmt: skip
    report = page.locator("[data-testid=report]")
    report.locator("h2:has-text('Sources')").wait_for()
    assert report.locator("p.tag").inner_text() == "partial report"
    assert report.locator("strong").first.inner_text() == "Answer:"
    assert report.locator("em").first.inner_text().startswith("Partial report")
    assert report.locator("script, img, b").count() == 0
    assert '<script>window.pwned = "script"</script>' in report.inner_text()
    assert report.locator("a[href^='javascript']").count() == 0
    assert page.evaluate("window.pwned") is None
    source = report.locator("li a")
    assert source.inner_text() == CANBERRA
    assert source.get_attribute("target") == "_blank"
    assert source.get_attribute("href").startswith("/corpus/doc/?url=https%3A%2F%2Fen.wiki")
    assert report.locator("a.chip").inner_text() == "[1]"
    assert errors == []


def _progress(session: Session, **payload: Any) -> None:
    def send() -> None:
        from django.db import connection

        progress_send(session_id=session.pk, public_id=session.public_id, payload=payload)
        connection.close()

    thread = threading.Thread(target=send)
    thread.start()
    thread.join()


def test_an_llm_session_shows_the_model_generating_its_tokens_and_the_time(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    owner = make_user("viewer")
    session = Session.objects.create(owner=owner, question="Capital?", status="running",
                                     policy="llm", model="slow-model", started_at=timezone.now(),
                                     pace="1_step_per_s")  # fmt: skip
    errors = _errors(page)
    _open(page, asgi_server, owner, session)
    assert page.locator("[data-testid=pace]").inner_text() == "pace: 1 step per second"
    progress = page.locator("[data-testid=progress]")
    assert progress.is_visible()
    assert page.locator("[data-testid=activity]").inner_text() == "waiting for the model…"
    page.wait_for_selector("[data-testid=elapsed]:has-text('0:0')")

    _progress(session, phase="generating", turn=1, tokens=42, total_tokens=42, turn_s=3.0)
    page.wait_for_selector("[data-testid=activity]:has-text('42 tokens so far')")
    activity = page.locator("[data-testid=activity]").inner_text()
    assert activity.startswith("model generating · turn 1 · 42 tokens so far · 0:0")
    assert page.locator("[data-testid=tokens]").inner_text() == "42"
    assert page.locator(".run-progress .spinner").is_visible()
    _progress(session, phase="done", turn=1, tokens=57, total_tokens=57, turn_s=4.0)
    page.wait_for_selector("[data-testid=activity]:has-text('turn 1 written (57 tokens)')")

    emit(session, "finished", status="stopped", turns=1, completion_tokens=57, elapsed_s=65.0,
          session_status="finished")  # fmt: skip
    page.wait_for_selector("[data-testid=status]:has-text('stopped')")
    assert page.locator("[data-testid=activity]").inner_text() == "stopped"
    assert page.locator("[data-testid=elapsed]").inner_text() == "1:05"
    assert not page.locator(".run-progress .spinner").is_visible()
    assert errors == []


def test_a_finished_session_shows_no_progress_line(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    owner = make_user("viewer")
    session = Session.objects.create(owner=owner, question="Capital?", status="finished")
    emit(session, "started", question="Capital?", policy="scripted")
    emit(session, "finished", status="answered", turns=1, elapsed_s=0.2)
    _open(page, asgi_server, owner, session, live=False)
    page.wait_for_selector("[data-testid=timeline] li >> nth=1")
    assert not page.locator("[data-testid=progress]").is_visible()
