from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.rubrics.services import demo_tasks_load
from tests.factories import PASSWORD
from tests.rubrics.conftest import ROOT

pytestmark = pytest.mark.django_db(transaction=True)
KILIMANJARO = "https://en.wikipedia.org/wiki/Mount_Kilimanjaro"
ANSWER = (
    f"Mount Kilimanjaro is the highest mountain in Africa, 5,895 m high [1].\n\n[1] {KILIMANJARO}"
)


def _login(page: Any, base: str, user: User, next_url: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_url}")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button:has-text('Log in')")
    page.wait_for_url(f"{base}{next_url}")


def _kilimanjaro_corpus(settings: Any, tmp_path: Path) -> None:
    """The real Wikipedia summary the demo task cites, as the app's corpus."""
    from quest.corpus import corpus_write, load_wikipedia

    settings.CORPUS_DIR = tmp_path / "corpus"
    page = next(d for d in load_wikipedia() if d.title == "Mount Kilimanjaro")
    corpus_write(settings.CORPUS_DIR, [page])


def test_a_viewer_finds_a_task_and_watches_an_answer_light_up_the_tree(
    live_server: Any, page: Any, make_user: Callable[..., User], settings: Any, tmp_path: Path
) -> None:
    _kilimanjaro_corpus(settings, tmp_path)
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    task = Task.objects.get(provenance__demo_id="kilimanjaro")
    _login(page, live_server.url, make_user("viewer"), "/tasks/")

    page.fill("input[name=q]", "Africa")
    page.wait_for_selector("#task-results >> text=1 task")
    page.click("text=Name the highest mountain in Africa")
    page.wait_for_url(f"{live_server.url}/tasks/{task.pk}/")
    assert page.locator("li.leaf").count() == 4

    page.fill(
        "textarea[name=answer]",
        "Mount Kilimanjaro is the highest mountain in Africa, 5,895 m high, and stands in "
        f"Kenya [1].\n\n[1] {KILIMANJARO}",
    )
    page.click("button:has-text('Score it')")
    page.wait_for_selector("[data-testid=reward-value]")
    assert page.locator("li.leaf[data-node=mountain]").get_attribute("class").endswith("st-pass")
    assert "st-fail" in page.locator("li.leaf[data-node=country]").get_attribute("class")
    # base = mean of the non-critical leaves: the height passes; the country fails, and so does
    # the height's source, because the cited sentence also claims Kenya, which the page does
    # not say; that citation earns nothing either: 0.75 x 1/3
    assert page.locator("[data-testid=reward-value]").inner_text() == "0.250"

    page.locator("li.node[data-node=root] > details > summary").click()
    assert not page.locator("li.leaf[data-node=height]").is_visible()


def _score(page: Any, answer: str) -> None:
    page.fill("textarea[name=answer]", answer)
    page.click("button:has-text('Score it')")


def test_a_refused_answer_replaces_the_last_reward_and_the_scored_tree(
    live_server: Any, page: Any, make_user: Callable[..., User], settings: Any, tmp_path: Path
) -> None:
    _kilimanjaro_corpus(settings, tmp_path)
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    task = Task.objects.get(provenance__demo_id="kilimanjaro")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    _login(page, live_server.url, make_user("viewer"), f"/tasks/{task.pk}/")

    _score(page, ANSWER)
    page.wait_for_selector("[data-testid=reward-value]")
    assert page.locator("#tree-panel li.st-pass").count() > 0

    _score(page, "   ")  # passes the browser's `required`; the server finds it empty
    error = page.locator("[data-testid=try-error]")
    error.wait_for()
    assert error.inner_text() == "Not scored: the answer is empty"
    assert page.locator("[data-testid=reward]").count() == 0
    assert page.locator("#tree-panel [class*=st-]").count() == 0
    assert errors == []


def test_a_server_failure_or_a_lost_connection_is_said_in_place_of_the_result(
    live_server: Any, page: Any, make_user: Callable[..., User], settings: Any, tmp_path: Path
) -> None:
    _kilimanjaro_corpus(settings, tmp_path)
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    task = Task.objects.get(provenance__demo_id="kilimanjaro")
    _login(page, live_server.url, make_user("viewer"), f"/tasks/{task.pk}/")
    _score(page, ANSWER)
    page.wait_for_selector("[data-testid=reward-value]")

    # What the app's 500 handler sends, answered in place of the server for this one request.
    body = '<section class="error"><h1>500</h1><p>Something broke on our side.</p></section>'
    page.route(
        "**/try/", lambda route: route.fulfill(status=500, body=body, content_type="text/html")
    )
    _score(page, "Kilimanjaro.")
    error = page.locator("[data-testid=try-error]")
    error.wait_for()
    assert error.inner_text() == "Not scored: the server answered 500: Something broke on our side."
    assert page.locator("[data-testid=reward]").count() == 0
    assert page.locator("button:has-text('Score it')").is_enabled()

    page.unroute("**/try/")
    page.route("**/try/", lambda route: route.abort())
    _score(page, "Kilimanjaro again.")
    page.wait_for_selector("[data-testid=try-error]:has-text('could not be reached')")
