"""The live page while a scripted run streams in (issue 29): the progress line says what the run
is doing once a worker picked it up, a negative criterion that is not met is drawn as the good
outcome, the research-state board keeps its empty placeholders plain and its reasons readable,
and Usage counts the run as it goes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from apps.live.models import Session
from apps.rubrics.services import task_create
from tests.browser.live_events import emit
from tests.browser.test_live_page import CANBERRA, _errors, _open
from tests.live.conftest import corpus  # noqa: F401  (a real corpus the scorer reads)
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db(transaction=True)
GEONAMES = "https://www.geonames.org/2172517"


def test_the_progress_line_follows_a_scripted_run_from_the_worker_to_the_end(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    owner = make_user("viewer")
    session = Session.objects.create(owner=owner, question="Capital?", status="queued")
    errors = _errors(page)
    _open(page, asgi_server, owner, session)
    activity = page.locator("[data-testid=activity]")
    assert activity.inner_text() == "waiting for a worker…"
    assert page.locator("[data-testid=usage]").inner_text() == ""

    emit(session, "started", question="Capital?", policy="scripted")
    page.wait_for_selector("[data-testid=activity]:text-is('running…')")
    emit(session, "thought", turn=1, text="Looking for: capital.")
    emit(session, "tool_call", turn=1, name="search", arguments={"query": ["capital"]})
    page.wait_for_selector("[data-testid=activity]:text-is('running: turn 1')")
    emit(session, "tool_call", turn=2, name="visit", arguments={"url": [CANBERRA]})
    page.wait_for_selector("[data-testid=activity]:text-is('running: turn 2')")
    usage = page.locator("[data-testid=usage]")
    assert "TURNS\n2" in usage.inner_text().upper()
    assert "TOOL CALLS\n2" in usage.inner_text().upper()

    emit(session, "finished", status="answered", turns=3, tool_calls=2, condensations=0,
          elapsed_s=1.5, session_status="finished")  # fmt: skip
    page.wait_for_selector("[data-testid=status]:has-text('finished')")
    assert activity.inner_text() == "done"
    assert "TURNS\n3" in usage.inner_text().upper()
    assert errors == []


def _points_tree() -> dict[str, Any]:
    tree = small_tree()
    tree["scoring"] = "points"
    capital, _ = tree["root"]["children"]
    capital.update(critical=False, weight=5)
    sydney = {"id": "sydney", "description": "Says Sydney is the capital", "critical": False,
              "weight": -5, "check": {"kind": "mentions", "value": "Sydney"}}  # fmt: skip
    tree["root"]["children"] = [capital, sydney]
    return tree


def test_a_negative_criterion_not_met_shows_as_the_good_outcome(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    from apps.live.scoring import TaskScorer

    admin = make_user("admin")
    task = task_create(user=admin, record={"question": "Capital?", "rubric": _points_tree()})
    session = Session.objects.create(owner=admin, question="Capital?", task=task, status="running")
    _open(page, asgi_server, admin, session)
    events, _ = TaskScorer(session.task).final("Canberra is the capital of Australia.")
    for kind, payload in events:
        emit(session, kind, **payload)
    page.wait_for_selector("[data-testid=score]:has-text('final')")

    avoided = page.locator("li.leaf[data-node=sydney]")
    assert "st-pass" in avoided.get_attribute("class")
    assert avoided.locator(".verdict").inner_text() == "avoided"
    assert "negative criterion" in avoided.locator(".verdict").get_attribute("title")
    assert page.locator(".live-tree .st-fail").count() == 0


def test_the_board_keeps_placeholders_plain_and_names_sources_in_reasons(
    asgi_server: str, page: Any, make_user: Callable[..., Any]
) -> None:
    owner = make_user("viewer")
    session = Session.objects.create(owner=owner, question="Capital?", status="running")
    _open(page, asgi_server, owner, session)
    decoration = "(e) => getComputedStyle(e).textDecorationLine"
    assert page.locator(".board .untrusted li").evaluate(decoration) == "none"

    emit(session, "tool_result", turn=1, name="visit", ok=True, text="Canberra",
          truncated=False, sources=[{"url": GEONAMES, "title": "Canberra (GeoNames)"}])  # fmt: skip
    lead = {
        "id": "q1",
        "claim": "Canberra has 367,752 inhabitants",
        "sources": [CANBERRA],
        "reason": f"sources disagree: 2077456 from {GEONAMES} (this source gives 367752)",
    }
    info = {"trusted": [], "untrusted": [], "uncertain": [lead]}
    state = {
        "version": "dr_state",
        "search_queries": [],
        "visited_sources": [],
        "information_state": info,
    }
    emit(session, "state", turn=1, state=state, recovered=False)
    why = page.locator(".board .uncertain li .why")
    why.wait_for()
    assert why.inner_text() == (
        "sources disagree: 2077456 from Canberra (GeoNames) (this source gives 367752)"
    )
    assert "2172517" in why.locator("a.chip").get_attribute("href")
    assert page.locator(".board .untrusted li").evaluate(decoration) == "none"
    assert "CONDENSATIONS\n1" in page.locator("[data-testid=usage]").inner_text().upper()


def test_the_reward_box_lists_the_citations_that_did_not_hold(
    asgi_server: str,
    page: Any,
    make_user: Callable[..., Any],
    corpus: Any,  # noqa: F811
) -> None:
    from apps.live.scoring import TaskScorer
    from tests.live.test_reward_details import ANSWER, SYDNEY

    admin = make_user("admin")
    task = task_create(user=admin, record={"question": "Capital?", "rubric": small_tree()})
    session = Session.objects.create(owner=admin, question="Capital?", task=task, status="running")
    _open(page, asgi_server, admin, session)
    events, _ = TaskScorer(session.task).final(ANSWER)
    for kind, payload in events:
        emit(session, kind, **payload)
    invalid = page.locator("[data-testid=invalid-citations]")
    invalid.wait_for()
    assert invalid.inner_text().startswith("1 citation did not hold:")
    assert "not supported: no sentence of the page states it" in invalid.inner_text()
    link = invalid.locator("a")
    assert link.inner_text() == SYDNEY
    assert "url=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FSydney" in link.get_attribute("href")
