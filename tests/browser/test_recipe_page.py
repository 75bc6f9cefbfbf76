"""The recipe pages in a real browser at a phone's width and a laptop's: the list with its
form, a recipe waiting at its gate (which polls) and a finished one with its results; nothing
scrolls sideways, nothing logs a console error, and a polled page shows the recipe moving on
without a reload."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from tests.browser.test_layout import WIDE, WIDTHS
from tests.browser.test_task_pages import _login

pytestmark = pytest.mark.django_db(transaction=True)
SHOTS = Path("/tmp/h5/shots")


@pytest.fixture
def recipes(make_user: Callable[..., User]) -> dict[str, Any]:
    from django.utils import timezone

    from apps.audit.models import Campaign
    from apps.recipes.models import Recipe
    from apps.recipes.services import config_parse
    from tests.factories import SynthesisBatchFactory
    from tests.recipes.conftest import MINI, finished_recipe

    admin = make_user("admin", username="ada")
    now = timezone.now().isoformat()
    waiting = Recipe.objects.create(
        name="A recipe whose gate waits for its audit, with a long name to wrap at 390 px",
        config=config_parse(MINI), stage="gate", status="running", waiting=True,
        created_by=admin,
        batch=SynthesisBatchFactory(created_by=admin),
        campaign=Campaign.objects.create(name="Recipe gate", created_by=admin),
        stages={"synth": {"started_at": now, "finished_at": now,
                          "note": "8 of 8 proposed, 7 accepted"},
                "gate": {"started_at": now,
                         "note": "waiting for the audit: 0 of 7 tasks decided, 0 accepted"}},
    )  # fmt: skip
    return {"admin": admin, "waiting": waiting, "finished": finished_recipe(admin)}


def test_the_recipe_pages_fit_a_phone_and_a_laptop_without_console_errors(
    asgi_server: str, page: Any, recipes: dict[str, Any]
) -> None:
    base = f"http://{asgi_server}"
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    _login(page, base, recipes["admin"], "/recipes/")
    SHOTS.mkdir(parents=True, exist_ok=True)
    paths = {"list": "/recipes/", "waiting": f"/recipes/{recipes['waiting'].pk}/",
             "finished": f"/recipes/{recipes['finished'].pk}/"}  # fmt: skip
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in paths.items():
            errors.clear()
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            if name == "list":  # the form, open, must fit too
                page.click("summary:has-text('New recipe')")
            page.screenshot(path=str(SHOTS / f"recipe-{name}-{width}.png"), full_page=True)
            if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
                problems.append(f"{path} at {width} px scrolls sideways: {page.evaluate(WIDE)}")
            if errors:
                problems.append(f"{path} at {width} px: console errors {errors}")
    assert not problems, "\n".join(problems)


def test_a_waiting_recipe_page_shows_it_moving_on_without_a_reload(
    asgi_server: str, page: Any, recipes: dict[str, Any]
) -> None:
    from apps.recipes.models import Recipe

    waiting = recipes["waiting"]
    base = f"http://{asgi_server}"
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _login(page, base, recipes["admin"], f"/recipes/{waiting.pk}/")
    assert "campaign" in page.get_by_test_id("gate-waiting").inner_text()
    assert page.get_by_test_id("proceed").is_visible()
    page.evaluate("window.notReloaded = true")
    then = "2026-01-01T00:00:00+00:00"
    stages = {**waiting.stages, "gate": {**waiting.stages["gate"], "finished_at": then}}
    stages["collect"] = {"started_at": then, "note": "collecting: 1 of 4 train tasks"}
    Recipe.objects.filter(pk=waiting.pk).update(stage="collect", waiting=False, stages=stages)
    page.get_by_test_id("recipe-status").filter(has_text="Running").wait_for(timeout=10_000)
    assert page.locator("[data-stage=collect]").inner_text().count("collecting: 1 of 4") == 1
    assert page.get_by_test_id("gate-waiting").count() == 0
    assert page.evaluate("window.notReloaded") is True
    Recipe.objects.filter(pk=waiting.pk).update(status="cancelled")
    page.get_by_test_id("recipe-status").filter(has_text="Cancelled").wait_for(timeout=10_000)
    assert page.get_by_test_id("recipe-live").get_attribute("hx-get") is None, "polling stops"
    assert not errors
