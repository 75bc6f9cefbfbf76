"""Reads of recipes for the pages and REST: the list, one recipe, its stage timeline with a
link to what each stage made, and the results table of its evaluations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import NotFound
from apps.recipes.models import STAGES, Recipe, Stage
from quest.training.evaluate import TaskScore, paired_difference

RELATED = (
    "created_by",
    "batch",
    "campaign",
    "sft_dataset",
    "rl_dataset",
    "sft_job",
    "grpo_job",
    "sft_evaluation",
    "grpo_evaluation",
)


def recipe_list(*, user: Any) -> QuerySet[Recipe]:
    require_role(user, Role.VIEWER)
    return Recipe.objects.select_related("created_by")


def recipe_get(*, user: Any, recipe_id: int) -> Recipe:
    require_role(user, Role.VIEWER)
    recipe = Recipe.objects.select_related(*RELATED).filter(pk=recipe_id).first()
    if recipe is None:
        raise NotFound(f"no recipe {recipe_id}")
    return recipe


def _links(recipe: Recipe, stage: str) -> list[tuple[str, str]]:
    """(label, url) of what a stage made."""
    made: dict[str, list[tuple[str, Any, str, str]]] = {
        Stage.SYNTH: [("batch", recipe.batch, "synthesis:batch", "batch_id")],
        Stage.GATE: [("campaign", recipe.campaign, "audit:campaign", "campaign_id")],
        Stage.COLLECT: [
            ("SFT dataset", recipe.sft_dataset, "training:dataset", "dataset_id"),
            ("RL dataset", recipe.rl_dataset, "training:dataset", "dataset_id"),
        ],
        Stage.SFT: [("job", recipe.sft_job, "training:job", "job_id")],
        Stage.GRPO: [("job", recipe.grpo_job, "training:job", "job_id")],
        Stage.EVALUATE: [
            ("SFT vs base", recipe.sft_evaluation, "training:evaluation", "evaluation_id"),
            ("GRPO", recipe.grpo_evaluation, "training:evaluation", "evaluation_id"),
        ],
    }
    return [
        (f"{label} {row.pk}", reverse(name, kwargs={key: row.pk}))
        for label, row, name, key in made.get(stage, [])
        if row is not None
    ]


def _status(recipe: Recipe, stage: str, info: dict[str, Any]) -> str:
    if "finished_at" in info:
        return "skipped" if str(info.get("note", "")).startswith("skipped") else "done"
    if "started_at" not in info:
        return "pending"
    if stage != recipe.stage:
        return "done"
    return recipe.shown_status


def _seconds(info: dict[str, Any], now: datetime) -> float | None:
    if "started_at" not in info:
        return None
    start = datetime.fromisoformat(info["started_at"])
    end = info.get("finished_at") or info.get("ended_at")
    return ((datetime.fromisoformat(end) if end else now) - start).total_seconds()


def timeline(recipe: Recipe, *, now: datetime) -> list[dict[str, Any]]:
    """Every stage in order: status, time spent, note and links to what it made."""
    rows = []
    for stage in STAGES:
        info = recipe.stages.get(stage, {})
        rows.append({
            "stage": stage.value,
            "label": stage.label,
            "status": _status(recipe, stage, info),
            "seconds": _seconds(info, now),
            "note": info.get("note", ""),
            "links": _links(recipe, stage),
        })  # fmt: skip
    return rows


def gate_waiting(recipe: Recipe) -> bool:
    return recipe.shown_status == "waiting" and recipe.stage == Stage.GATE


# ---- results ----------------------------------------------------------------------------------


def _model(results: dict[str, Any], label: str) -> dict[str, Any] | None:
    found = (results or {}).get("models", {}).get(label)
    return found if isinstance(found, dict) else None


def results(recipe: Recipe) -> dict[str, Any]:
    """The base, SFT and GRPO models' mean reward (95% CI, answer rate, valid turns, citation
    validity) on the same held-out tasks, and each paired difference; only what was measured."""
    sft_results = recipe.sft_evaluation.results if recipe.sft_evaluation else {}
    grpo_results = recipe.grpo_evaluation.results if recipe.grpo_evaluation else {}
    measured = {
        "base": _model(sft_results, "base"),
        "sft": _model(sft_results, "checkpoint"),
        "grpo": _model(grpo_results, "checkpoint"),
    }
    models = [{"label": label, **_summary(found)} for label, found in measured.items() if found]
    pairs = (("sft", "base"), ("grpo", "base"), ("grpo", "sft"))
    differences = [
        {"label": f"{a} vs {b}", **_difference(first, second)}
        for a, b in pairs
        if (first := measured[a]) and (second := measured[b])
    ]
    return {"models": models, "differences": differences}


def _summary(found: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "model",
        "n",
        "mean",
        "ci95",
        "answer_rate",
        "valid_turn_rate",
        "citation_validity",
        "dropped",
    )
    return {key: found.get(key) for key in keys}


def _difference(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    def scores(found: dict[str, Any]) -> list[TaskScore]:
        return [TaskScore(**score) for score in found.get("scores", [])]

    return paired_difference(scores(a), scores(b))
