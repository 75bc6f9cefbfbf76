"""REST for recipes: list, create, one recipe with its stages and results, cancel, and going
on past the gate with the audited tasks; the same services and selectors as the pages.
Everyone with a role reads; only admins write."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, Router, Status

from apps.common.schemas import Id, errors
from apps.jobs.api import kind_routes
from apps.recipes import selectors, services
from apps.recipes.models import Recipe
from apps.recipes.schemas import RecipeIn, RecipeOut, RecipePageOut

router = Router(tags=["recipes"])

PageSize = Annotated[int, Field(ge=1, le=200)]
FIELDS = ("id", "name", "stage", "error", "config", "audit_sample",
          "annotators_per_task", "proceed_requested", "batch_id", "campaign_id",
          "sft_dataset_id", "rl_dataset_id", "sft_job_id", "grpo_job_id", "sft_evaluation_id",
          "grpo_evaluation_id", "created_at", "finished_at")  # fmt: skip


def _user(request: HttpRequest) -> Any:
    return request.auth  # type: ignore[attr-defined]


def recipe_out(recipe: Recipe) -> dict[str, Any]:
    return {
        **{name: getattr(recipe, name) for name in FIELDS},
        "status": recipe.shown_status,
        "stages": selectors.timeline(recipe, now=timezone.now()),
        "results": selectors.results(recipe),
        "created_by": recipe.created_by.username if recipe.created_by else None,
        "url": f"/recipes/{recipe.pk}/",
    }


def _fresh(request: HttpRequest, recipe_id: int) -> dict[str, Any]:
    return recipe_out(selectors.recipe_get(user=_user(request), recipe_id=recipe_id))


@router.post(
    "/recipes",
    response={201: RecipeOut, **errors(403, 409, 422, body=True)},
    summary="Start a recipe: its synthesis batch is queued at once (admin)",
)
def recipes_create(request: HttpRequest, payload: RecipeIn) -> Status[dict[str, Any]]:
    recipe = services.recipe_create(
        user=_user(request),
        config=payload.config if payload.config is not None else {},
        name=payload.name,
        audit_sample=payload.audit_sample,
        annotators_per_task=payload.annotators_per_task,
    )
    return Status(201, _fresh(request, recipe.pk))


kind_routes(
    router,
    kind=services.RECIPE,
    path="/recipes",
    param="recipe_id",
    out=RecipeOut,
    page_out=RecipePageOut,
    summaries=(
        "Recipes, newest first",
        "A recipe: each stage's status, time, note and links, and the results table",
        "Cancel a running recipe and the work of its current stage (admin)",
    ),
    names=("recipes_list", "recipes_get", "recipes_cancel"),
    module=__name__,
    page_size=(PageSize, 20),
)


@router.post(
    "/recipes/{recipe_id}/proceed",
    response={200: RecipeOut, **errors(403, 404, 409, 422)},
    summary="At the gate: go on with the tasks audited so far (admin)",
)
def recipes_proceed(request: HttpRequest, recipe_id: Id) -> dict[str, Any]:
    services.recipe_proceed(user=_user(request), recipe_id=recipe_id)
    return _fresh(request, recipe_id)
