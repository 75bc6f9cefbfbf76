"""The main pages at a phone's width (390 px) and a laptop's (1280 px), in a real browser: no
page scrolls sideways (wide tables scroll inside their own box) and none logs a console error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from apps.accounts.models import User
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)
WIDTHS = (390, 1280)
# What sticks out past the viewport (outside the boxes meant to scroll), for the message.
WIDE = """[...document.querySelectorAll('body *')].filter(e => {
  const r = e.getBoundingClientRect();
  return r.right > window.innerWidth + 1 && r.width > 0 && !e.closest('.table-scroll, pre');
}).slice(0, 4).map(e => e.tagName.toLowerCase() + '.' + e.className + ' '
  + Math.round(e.getBoundingClientRect().right))"""


@pytest.fixture
def seeded(make_user: Callable[..., User]) -> dict[str, Any]:
    from apps.live.models import Event, Session
    from apps.rubrics.services import task_create
    from tests.quest.training.training_helpers import AUSTRALIA, capital_tree

    admin = make_user("admin", username="ada")
    question = AUSTRALIA + " Give the year it became the capital and cite a page for each fact."
    record = {"question": question, "rubric": capital_tree(question, "Canberra")}
    task = task_create(user=admin, record=record)
    session = Session.objects.create(owner=admin, question=question, status="finished")
    # A tool call's arguments are drawn as one long word of JSON and URLs.
    urls = [
        f"https://en.wikipedia.org/wiki/Canberra_{n}_Australian_Capital_Territory" for n in (1, 2)
    ]
    arguments = {"url": urls, "goal": "Find: " + question}
    Event.objects.create(
        session=session, seq=1, type="tool_call", payload={"name": "visit", "arguments": arguments}
    )
    # An open lead's next step names a long URL too.
    lead = {"id": "u1", "claim": "Canberra may be the capital", "sources": [urls[0]]}
    lead["need"] = "visit " + urls[1] + "_and_its_surroundings_in_the_capital_region"
    state = {"information_state": {"trusted": [], "untrusted": [], "uncertain": [lead]}}
    Event.objects.create(session=session, seq=2, type="state", payload={"state": state})
    # The demo's preset, whose long name once made the launch form's select 449 px wide.
    demo = Path(__file__).resolve().parents[2] / "fixtures" / "demo" / "training_presets.json"
    call_command("loaddata", str(demo), verbosity=0)
    return {"admin": admin, "task": task, "session": session}


def test_the_main_pages_fit_a_phone_and_a_laptop_without_console_errors(
    asgi_server: str, page: Any, seeded: dict[str, Any]
) -> None:
    base = f"http://{asgi_server}"  # the whole app, websockets included
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    _login(page, base, seeded["admin"], "/")
    paths = ["/", "/tasks/", f"/tasks/{seeded['task'].pk}/", "/live/",
             f"/live/{seeded['session'].public_id}/", "/audit/", "/audit/dashboard/",
             "/corpus/", "/synthesis/", "/training/", "/training/jobs/new/",
             "/benchmarks/", "/accounts/settings/"]  # fmt: skip
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for path in paths:
            errors.clear()
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
                problems.append(f"{path} at {width} px scrolls sideways: {page.evaluate(WIDE)}")
            if errors:
                problems.append(f"{path} at {width} px: console errors {errors}")
    assert not problems, "\n".join(problems)
