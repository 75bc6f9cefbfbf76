"""The recipe app's job kind (apps/jobs). A recipe has no task of its own: the beat and the
hook after each stage's task move it on (apps/recipes/tasks.py), and its stages' work runs as
jobs of their own kinds. Cancelling one cancels the work of its current stage too."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from apps.jobs.registry import JobKind, register
from apps.recipes import api, selectors, services
from apps.recipes.models import Recipe


def _recipes(kind: JobKind, user: Any) -> QuerySet[Recipe]:
    # What a recipe's REST shape links to, read with it.
    return Recipe.objects.select_related(*selectors.RELATED)


def _cancel(*, user: Any, job_id: int) -> Recipe:
    return services.recipe_cancel(user=user, recipe_id=job_id)


register(
    JobKind(
        name=services.RECIPE,
        label="recipe",
        model=Recipe,
        tasks={},
        out=api.recipe_out,
        visible=_recipes,
        cancel=_cancel,
    )
)
