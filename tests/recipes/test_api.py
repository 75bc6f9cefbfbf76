"""Recipes over REST and on their pages: the same services, bounded input with the field named,
viewers reading but never writing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.recipes.models import Recipe
from tests.recipes.conftest import MINI, finished_recipe

pytestmark = pytest.mark.django_db


@pytest.fixture
def call(client: Client, bearer: Callable[[User], dict[str, str]]) -> Callable[..., Any]:
    def run(user: User, method: str, path: str, body: Any = None) -> Any:
        headers = bearer(user)
        if method == "get":
            return client.get(f"/api/{path}", headers=headers)
        data = json.dumps(body) if body is not None else ""
        return client.post(f"/api/{path}", data, content_type="application/json", headers=headers)

    return run


def test_an_admin_starts_a_recipe_and_everyone_reads_it(
    admin: User, viewer: User, call: Callable[..., Any]
) -> None:
    response = call(admin, "post", "recipes", {"name": "mini", "config": MINI, "audit_sample": 4})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["stage"], body["status"], body["audit_sample"]) == ("synth", "running", 4)
    assert [s["stage"] for s in body["stages"]][:2] == ["synth", "gate"]
    assert body["stages"][0]["links"] == [[f"batch {body['batch_id']}",
                                           f"/synthesis/{body['batch_id']}/"]]  # fmt: skip
    assert body["results"] == {"models": [], "differences": []}
    listed = call(viewer, "get", "recipes").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == body["id"]
    assert call(viewer, "get", f"recipes/{body['id']}").json()["name"] == "mini"


def test_yaml_text_is_a_config_too(admin: User, call: Callable[..., Any]) -> None:
    text = "model: tiny\nsynth:\n  tasks: 4\n"
    body = call(admin, "post", "recipes", {"config": text}).json()
    assert body["config"]["synth"]["tasks"] == 4 and body["name"] == "Recipe"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"config": {"gate": "auto-accept-sound"}}, "human audit"),
        ({"config": "sft: {max_steps: -1}"}, "sft.max_steps"),
        ({"config": {"model": "tiny"}, "audit_sample": 0}, "request is not valid"),
        ({"config": {"model": "tiny"}, "annotators_per_task": 2**40}, "request is not valid"),
        ({"config": {"model": "tiny"}, "name": "x" * 121}, "request is not valid"),
    ],
)
def test_bad_input_is_a_422_naming_what_is_wrong(
    admin: User, call: Callable[..., Any], body: dict[str, Any], message: str
) -> None:
    response = call(admin, "post", "recipes", body)
    assert response.status_code == 422
    assert message in response.json()["detail"]
    assert not Recipe.objects.exists()


def test_viewers_cannot_start_cancel_or_proceed(
    admin: User, viewer: User, call: Callable[..., Any]
) -> None:
    recipe = call(admin, "post", "recipes", {"config": MINI}).json()
    assert call(viewer, "post", "recipes", {"config": MINI}).status_code == 403
    assert call(viewer, "post", f"recipes/{recipe['id']}/cancel").status_code == 403
    assert call(viewer, "post", f"recipes/{recipe['id']}/proceed").status_code == 403
    assert Recipe.objects.get().status == "running"


def test_cancel_and_proceed_answer_409_when_there_is_nothing_to_do(
    admin: User, call: Callable[..., Any]
) -> None:
    recipe = call(admin, "post", "recipes", {"config": MINI}).json()
    proceed = call(admin, "post", f"recipes/{recipe['id']}/proceed")
    assert proceed.status_code == 409 and "not waiting at its gate" in proceed.json()["detail"]
    cancelled = call(admin, "post", f"recipes/{recipe['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert call(admin, "post", f"recipes/{recipe['id']}/cancel").status_code == 409


def test_an_unknown_or_out_of_range_id_is_a_clean_4xx(
    viewer: User, call: Callable[..., Any]
) -> None:
    assert call(viewer, "get", "recipes/999").status_code == 404
    assert call(viewer, "get", f"recipes/{2**70}").status_code == 422
    assert call(viewer, "get", "recipes?page_size=500").status_code == 422


def test_the_results_come_back_with_each_paired_difference(
    admin: User, viewer: User, call: Callable[..., Any]
) -> None:
    recipe = finished_recipe(admin)
    body = call(viewer, "get", f"recipes/{recipe.pk}").json()
    assert [m["label"] for m in body["results"]["models"]] == ["base", "sft", "grpo"]
    assert [d["label"] for d in body["results"]["differences"]] == [
        "sft vs base", "grpo vs base", "grpo vs sft"]  # fmt: skip
    assert [s["status"] for s in body["stages"]] == ["done"] * 7


# ---- pages ------------------------------------------------------------------------------------


def test_the_list_page_offers_admins_a_form_prefilled_with_the_loop_defaults(
    client: Client, admin: User
) -> None:
    client.force_login(admin)
    html = client.get("/recipes/").content.decode()
    assert 'data-testid="recipe-form"' in html
    assert "gate: human" in html and "heldout_share: 0.2" in html


def test_a_bad_form_keeps_what_was_typed_and_says_why(client: Client, admin: User) -> None:
    client.force_login(admin)
    response = client.post("/recipes/", {"config": "gate: auto-accept-sound", "audit_sample": "x"})
    assert response.status_code == 422
    assert "audit sample must be a whole number" in response.content.decode()
    response = client.post("/recipes/", {"config": "gate: auto-accept-sound", "name": "kept"})
    html = response.content.decode()
    assert response.status_code == 422 and "human audit" in html and 'value="kept"' in html


def test_the_form_starts_a_recipe_and_opens_its_page(client: Client, admin: User) -> None:
    client.force_login(admin)
    response = client.post("/recipes/", {"config": "model: tiny\nsynth: {tasks: 4}", "name": "m"})
    recipe = Recipe.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/recipes/{recipe.pk}/"
    html = client.get(response["Location"]).content.decode()
    assert f'href="/synthesis/{recipe.batch_id}/"' in html
    assert 'hx-get="/recipes/' in html, "a running recipe's page polls"


def test_viewers_read_the_pages_without_the_buttons(
    client: Client, admin: User, viewer: User
) -> None:
    recipe = finished_recipe(admin)
    client.force_login(viewer)
    listed = client.get("/recipes/").content.decode()
    assert 'data-testid="recipe-form"' not in listed and f'data-recipe="{recipe.pk}"' in listed
    html = client.get(f"/recipes/{recipe.pk}/").content.decode()
    assert 'data-testid="results"' in html and 'data-testid="cancel-recipe"' not in html
    assert "hx-get" not in html, "a finished recipe's page does not poll"
    assert f'href="/training/evaluations/{recipe.sft_evaluation_id}/"' in html
    assert client.post("/recipes/", {"config": ""}).status_code == 403
    assert client.post(f"/recipes/{recipe.pk}/cancel/").status_code == 403


def test_the_progress_fragment_is_the_live_part_only(client: Client, admin: User) -> None:
    recipe = finished_recipe(admin)
    client.force_login(admin)
    html = client.get(f"/recipes/{recipe.pk}/progress/").content.decode()
    assert html.lstrip().startswith('<div id="recipe-live"') and "<html" not in html


def test_a_recipe_is_a_job_that_the_framework_reads_and_cancels(
    admin: User, viewer: User, call: Callable[..., Any]
) -> None:
    recipe = call(admin, "post", "recipes", {"name": "mini", "config": MINI}).json()
    job = call(viewer, "get", f"jobs/recipe/{recipe['id']}").json()
    assert (job["kind"], job["progress"]["status"], job["progress"]["total"]) == (
        "recipe",
        "running",
        7,
    )
    assert job["detail"]["name"] == "mini" and job["created_by"] == admin.username
    listed = call(viewer, "get", "jobs?kind=recipe").json()
    assert [row["id"] for row in listed["results"]] == [recipe["id"]]
    assert call(viewer, "post", f"jobs/recipe/{recipe['id']}/cancel").status_code == 403
    cancelled = call(admin, "post", f"jobs/recipe/{recipe['id']}/cancel").json()
    assert cancelled["progress"]["status"] == "cancelled"
    assert call(viewer, "get", f"recipes/{recipe['id']}").json()["status"] == "cancelled"
    assert Recipe.objects.get().batch.status == "cancelled", "its stage's work stops with it"
