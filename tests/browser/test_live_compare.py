"""Compare live (issue 40) in Debian's chromium against the real ASGI app: the start form starts
the same question twice, and the compare page shows both sessions side by side, each with its
report and its reward, at 1280 px; at 390 px the two stack. The runs are the real runner's, with
the scripted policy (an llm one takes minutes on CPU). Screenshots go to /tmp/live40_*.png."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.live.models import Policy, Session
from apps.live.runner import session_run
from apps.rubrics.services import task_create
from tests.browser.live_events import emit
from tests.live.conftest import DOCS, session_cookie
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db(transaction=True)
QUESTION = "Which city is the capital of Australia?"


@pytest.fixture
def corpus(settings: Any, tmp_path: Path) -> Path:
    from quest.corpus import Document, corpus_write
    from quest.search.indexing import bm25_build

    folder = tmp_path / "corpus"
    corpus_write(folder, [
        Document(url=u, title=t, text=x, source="wikipedia", licence="test", topic="",
                 fetched_at="2026")
        for u, t, x in DOCS
    ])  # fmt: skip
    bm25_build(folder)
    settings.CORPUS_DIR = folder
    return folder


def _run(session: Session) -> None:
    """As the worker would, in another thread: Playwright keeps an event loop in this one."""

    def work() -> None:
        from django.db import connection

        session_run(session_id=session.pk)
        connection.close()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()


def test_two_sessions_of_one_question_are_watched_side_by_side_and_stack_on_a_phone(
    asgi_server: str,
    page: Any,
    make_user: Callable[..., Any],
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)
    admin = make_user("admin")
    task = task_create(user=admin, record={"question": QUESTION, "rubric": small_tree()})
    name, value = session_cookie(admin).split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": f"http://{asgi_server}"}])
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"http://{asgi_server}/live/")
    page.fill("input[name=task_id]", str(task.pk))
    page.select_option("select[name=policy]", "scripted")
    page.select_option("[data-testid=compare-with]", "scripted")
    page.click("form[data-testid=new-session] button[type=submit]")
    page.wait_for_url("**/live/compare/**")
    sessions = list(Session.objects.order_by("pk"))
    assert len(sessions) == 2 and {s.task_id for s in sessions} == {task.pk}
    for session in sessions:
        _run(session)

    page.reload()
    for side in ("side-1", "side-2"):
        box = page.locator(f"[data-testid={side}]")
        box.locator("[data-testid=status]:has-text('finished')").wait_for()
        box.locator("[data-testid=reward]").wait_for()
        assert "Canberra" in box.locator("[data-testid=report]").inner_text()
        assert "reward" in box.locator("[data-testid=reward]").inner_text().lower()
    first, second = (page.locator(f"[data-testid=side-{n}]").bounding_box() for n in (1, 2))
    assert first["y"] == second["y"] and first["x"] + first["width"] <= second["x"]
    page.screenshot(path="/tmp/live40_compare_1280.png", full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    first, second = (page.locator(f"[data-testid=side-{n}]").bounding_box() for n in (1, 2))
    assert second["y"] >= first["y"] + first["height"], "stacked on a phone"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width} px)"
    page.screenshot(path="/tmp/live40_compare_390.png", full_page=True)
    page.screenshot(path="/tmp/live40_compare_390_top.png")


def test_a_checkpoint_that_broke_the_protocol_says_so_with_its_last_turn_as_text(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    user = make_user("viewer")
    session = Session.objects.create(
        owner=user, question=QUESTION, policy=Policy.LLM, status="running",
        model="checkpoint:runs/12/checkpoint-30", checkpoint="runs/12/checkpoint-30",
        checkpoint_label="SFT run 12 · step 30", training_job_id=12, checkpoint_step=30,
        held_out_reward=0.4213,
    )  # fmt: skip
    name, value = session_cookie(user).split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": f"http://{asgi_server}"}])
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"http://{asgi_server}/live/{session.public_id}/")
    page.wait_for_selector("[data-testid=connection]:has-text('live')")
    assert page.locator("[data-testid=failure]").is_hidden()
    reply = "<b>Canberra</b> is the <script>window.pwned = 1</script> capital"
    emit(session, "started", question=QUESTION, policy="llm")
    for turn in (1, 2, 3):
        emit(session, "reminder", turn=turn, problem="no tool call and no answer",
              text="Use the protocol.", reply=reply)  # fmt: skip
    failure = {"status": "invalid", "reason": "The model broke the protocol 3 turns in a row",
               "last_invalid_turn": reply}  # fmt: skip
    emit(session, "answer", text="Partial report.", citations=[], forced=False, partial=True)
    emit(session, "finished", status="invalid", turns=3, session_status="finished",
          failure=failure)  # fmt: skip
    reason = page.locator("[data-testid=failure-reason]")
    reason.wait_for()
    assert reason.inner_text() == "The model broke the protocol 3 turns in a row"
    page.click(".failure-turn summary")
    assert page.locator("[data-testid=last-invalid]").inner_text() == reply
    assert page.evaluate("window.pwned") is None, "the model's text is shown, never run"
    badge = page.locator("[data-testid=checkpoint]").inner_text()
    assert badge == "SFT run 12 · step 30 · held-out reward 0.421"
    page.screenshot(path="/tmp/live40_failure_1280.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path="/tmp/live40_failure_390.png")
