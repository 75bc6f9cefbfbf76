"""Recipe pages: the list with the new-recipe form (admins), one recipe's stage timeline with
its results, and the fragment that page polls while the recipe runs."""

from __future__ import annotations

from functools import partial
from typing import Any

import yaml
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common.errors import Conflict, Invalid
from apps.common.flash import flashed
from apps.jobs.services import job_cancel
from apps.recipes import selectors, services
from apps.recipes.models import Recipe

LISTED = 100


def _can_manage(request: HttpRequest) -> bool:
    return bool(request.user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]))


def _whole(data: Any, key: str, default: int) -> int:
    raw = (data.get(key) or "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise Invalid(f"{key.replace('_', ' ')} must be a whole number") from None


def _form(data: Any) -> dict[str, str]:
    if not data:
        return {"name": "", "config": services.default_config_text(), "audit_sample": "20",
                "annotators_per_task": "1"}  # fmt: skip
    keys = ("name", "config", "audit_sample", "annotators_per_task")
    return {key: str(data.get(key, "")) for key in keys}


@login_required
@require_http_methods(["GET", "POST"])
def recipe_list(request: HttpRequest) -> HttpResponse:
    user = request.user
    status, error = 200, ""
    if request.method == "POST":
        data = request.POST
        try:
            recipe = services.recipe_create(
                user=user,
                config=data.get("config", ""),
                name=data.get("name", ""),
                audit_sample=_whole(data, "audit_sample", 20),
                annotators_per_task=_whole(data, "annotators_per_task", 1),
            )
        except (Invalid, Conflict) as exc:
            status, error = exc.status, exc.message
        else:
            messages.success(request, f"Recipe {recipe.pk} started: its batch is queued.")
            return redirect("recipes:recipe", recipe_id=recipe.pk)
    context = {
        "recipes": selectors.recipe_list(user=user)[:LISTED],
        "can_manage": _can_manage(request),
        "form": _form(request.POST),
        "form_error": error,
        "listed": LISTED,
    }
    return render(request, "recipes/list.html", context, status=status)


def _detail(request: HttpRequest, recipe: Recipe) -> dict[str, Any]:
    return {
        "recipe": recipe,
        "timeline": selectors.timeline(recipe, now=timezone.now()),
        "results": selectors.results(recipe),
        "gate_waiting": selectors.gate_waiting(recipe),
        "can_manage": _can_manage(request),
    }


@login_required
@require_GET
def recipe_detail(request: HttpRequest, recipe_id: int) -> HttpResponse:
    recipe = selectors.recipe_get(user=request.user, recipe_id=recipe_id)
    context = {**_detail(request, recipe), "config": _config_text(recipe)}
    return render(request, "recipes/detail.html", context)


def _config_text(recipe: Recipe) -> str:
    return str(yaml.safe_dump(recipe.config, sort_keys=False))


@login_required
@require_GET
def recipe_progress(request: HttpRequest, recipe_id: int) -> HttpResponse:
    """The timeline and results the detail page polls while the recipe runs."""
    recipe = selectors.recipe_get(user=request.user, recipe_id=recipe_id)
    return render(request, "recipes/detail.html#live", _detail(request, recipe))


@login_required
@require_POST
def recipe_cancel(request: HttpRequest, recipe_id: int) -> HttpResponse:
    cancel = partial(job_cancel, user=request.user, kind=services.RECIPE, job_id=recipe_id)
    flashed(request, cancel, f"Recipe {recipe_id} cancelled.", refused=Conflict)
    return redirect("recipes:recipe", recipe_id=recipe_id)


@login_required
@require_POST
def recipe_proceed(request: HttpRequest, recipe_id: int) -> HttpResponse:
    proceed = partial(services.recipe_proceed, user=request.user, recipe_id=recipe_id)
    flashed(request, proceed, "The recipe goes on with the tasks audited so far.", refused=Conflict)
    return redirect("recipes:recipe", recipe_id=recipe_id)
