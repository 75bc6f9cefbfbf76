"""Recipes asked for, cancelled, let past the gate, and moved on (recipe_advance).

recipe_advance is the whole state machine: it locks the recipe's row (two beats, or a beat and
the hook after a stage's task, never move one recipe twice), then starts the stage not started
yet or checks the one running, and moves on while stages end. Each start runs in a savepoint:
a stage whose service refuses leaves nothing half-made, and the work a start enqueues is sent
only once the recipe's row says it was made. Only admins write; viewers read (selectors.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import yaml
from django.db import transaction
from django.utils import timezone

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, DomainError, Invalid, NotFound
from apps.common.storable import printable
from apps.jobs.broadcast import job_broadcast
from apps.jobs.models import ACTIVE, JobStatus
from apps.jobs.services import job_cancel
from apps.recipes.models import STAGES, Recipe, Stage
from apps.recipes.stages import CHECKS, STARTS, StageFailed, Step
from apps.training.services import MAX_STEPS, model_check
from apps.training.services.evaluations import MAX_EVAL_TASKS
from quest.loop.config import LoopConfig, LoopError, parse_loop_config, render_loop_config
from quest.training.tasks import HOLDOUT_SHARE
from quest.untrusted_yaml import YamlTooBig, load_yaml

log = logging.getLogger(__name__)

RECIPE = "recipe"  # its job kind (apps/recipes/jobs.py)
MAX_ACTIVE_PER_USER = 3
MAX_AUDIT_SAMPLE = 2_000
MAX_ANNOTATORS = 10
MAX_CONFIG_CHARS = 20_000
NAME_MAX = 120
# The evaluation's budgets the app accepts (apps.training.services.evaluations).
EVAL_TURNS, EVAL_TOKENS = (1, 50), (16, 10_240)
HUMAN_GATE = (
    "gate: the app's training gate takes only tasks accepted in a human audit and probed "
    "sound; auto-accept-sound is the command line's (python -m quest loop --auto-accept-sound)"
)


def _admin(user: Any) -> None:
    require_role(user, Role.ADMIN)


def default_config_text() -> str:
    return render_loop_config(LoopConfig())


def config_parse(data: Any) -> dict[str, Any]:
    """A LoopConfig from YAML text or a mapping, checked as `python -m quest loop` checks it
    and then for what the app runs differently; Invalid names the field."""
    if isinstance(data, str):
        data = _yaml(data)
    try:
        config = parse_loop_config(data)
    except LoopError as error:
        raise Invalid(f"config: {error}") from None
    _check_app(config)
    return config.model_dump(mode="json")


def _yaml(text: str) -> Any:
    if len(text) > MAX_CONFIG_CHARS:
        raise Invalid(f"config: at most {MAX_CONFIG_CHARS:,} characters")
    try:
        return load_yaml(text) if text.strip() else {}
    except YamlTooBig as error:
        raise Invalid(f"config: {error}") from None
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise Invalid(f"config: not YAML{line}: {getattr(error, 'problem', error)}") from None


def _check_app(config: Any) -> None:
    if config.gate != "human":
        raise Invalid(HUMAN_GATE)
    if config.synth.heldout_share != HOLDOUT_SHARE:
        raise Invalid(
            f"synth.heldout_share: the app holds out a fixed {HOLDOUT_SHARE} of gated tasks "
            "(the same split for every dataset and evaluation); leave it at that"
        )
    try:
        model_check(config.model)
    except Invalid as error:
        raise Invalid(f"config.{error.message}") from None
    for name, steps in (("sft", config.sft.max_steps), ("grpo", config.grpo.max_steps)):
        if steps > MAX_STEPS:
            raise Invalid(f"{name}.max_steps: at most {MAX_STEPS:,}")
    if config.eval.tasks > MAX_EVAL_TASKS:
        raise Invalid(f"eval.tasks: at most {MAX_EVAL_TASKS:,}")
    _within("rollout.max_turns", config.rollout.max_turns, EVAL_TURNS)
    _within("rollout.max_turn_tokens", config.rollout.max_turn_tokens, EVAL_TOKENS)


def _within(name: str, value: int, bounds: tuple[int, int]) -> None:
    if not bounds[0] <= value <= bounds[1]:
        raise Invalid(f"{name}: between {bounds[0]} and {bounds[1]:,} for the evaluation")


def _whole(name: str, value: Any, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{name} must be a whole number")
    if not 1 <= value <= high:
        raise Invalid(f"{name} must be between 1 and {high:,}")
    return value


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise Invalid("name must be text")
    name = printable(" ".join(value.split()))
    if len(name) > NAME_MAX:
        raise Invalid(f"name: at most {NAME_MAX} characters")
    return name or "Recipe"


def recipe_create(
    *,
    user: Any,
    config: str | Mapping[str, Any],
    name: str = "",
    audit_sample: int = 20,
    annotators_per_task: int = 1,
) -> Recipe:
    """A recipe, its synthesis batch queued at once (the batch's own checks refuse here)."""
    _admin(user)
    checked = config_parse(config if isinstance(config, str) else dict(config))
    recipe = Recipe(
        name=_name(name),
        config=checked,
        audit_sample=_whole("audit_sample", audit_sample, MAX_AUDIT_SAMPLE),
        annotators_per_task=_whole("annotators_per_task", annotators_per_task, MAX_ANNOTATORS),
        created_by=user,
        status=JobStatus.RUNNING,
        total=len(STAGES),
    )
    with transaction.atomic():
        active = Recipe.objects.select_for_update().filter(created_by=user, status__in=ACTIVE)
        if len(active) >= MAX_ACTIVE_PER_USER:
            raise Conflict(
                f"you already have {MAX_ACTIVE_PER_USER} recipes running; cancel one or wait"
            )
        recipe.started_at = recipe.active_at = recipe.created_at
        recipe.save()
        step = STARTS[Stage.SYNTH](recipe)
        _started(recipe, Stage.SYNTH, step)
        recipe.save()
    return recipe


def _locked(recipe_id: int) -> Recipe:
    recipe = Recipe.objects.select_for_update().filter(pk=recipe_id).first()
    if recipe is None:
        raise NotFound(f"no recipe {recipe_id}")
    return recipe


def recipe_cancel(*, user: Any, recipe_id: int) -> Recipe:
    """End a running recipe and cancel the work its current stage queued (the campaign stays
    open: what people audited is theirs)."""
    _admin(user)
    with transaction.atomic():
        recipe = _locked(recipe_id)
        if not recipe.is_active:
            raise Conflict(f"recipe {recipe_id} is {recipe.status}: nothing to cancel")
        for cancel in _cancels(recipe):
            try:
                with transaction.atomic():
                    cancel(user)
            except Conflict:
                continue  # it ended on its own meanwhile
        _note(recipe, recipe.stage, f"cancelled by {user.get_username()}")
        _end(recipe, JobStatus.CANCELLED)
    return recipe


def _cancels(recipe: Recipe) -> list[Callable[[Any], Any]]:
    rows: list[tuple[Any, str]] = [
        (recipe.batch, "synthesis"),
        (recipe.sft_dataset, "dataset"),
        (recipe.rl_dataset, "dataset"),
        (recipe.sft_job, "training"),
        (recipe.grpo_job, "training"),
        (recipe.sft_evaluation, "evaluation"),
        (recipe.grpo_evaluation, "evaluation"),
    ]
    return [_cancel(kind, row.pk) for row, kind in rows if row is not None and row.is_active]


def _cancel(kind: str, job_id: int) -> Callable[[Any], Any]:
    return lambda user: job_cancel(user=user, kind=kind, job_id=job_id)


def recipe_proceed(*, user: Any, recipe_id: int) -> Recipe:
    """At the gate: go on with the tasks audited so far instead of waiting for every one."""
    _admin(user)
    with transaction.atomic():
        recipe = _locked(recipe_id)
        if not recipe.is_active or recipe.stage != Stage.GATE:
            raise Conflict(f"recipe {recipe_id} is not waiting at its gate")
        recipe.proceed_requested = True
        _note(recipe, Stage.GATE, f"{user.get_username()} chose to go on with the audited tasks")
        recipe.save(update_fields=["proceed_requested", "stages"])
    recipe_advance(recipe_id=recipe_id)
    return Recipe.objects.get(pk=recipe_id)


def recipe_advance(*, recipe_id: int) -> None:
    """Move one recipe on as far as its stages' work allows; safe to call any time, twice."""
    with transaction.atomic():
        recipe = _locked(recipe_id)
        for _ in STAGES:
            if not recipe.is_active or not _advance_once(recipe):
                break
        if recipe.is_active:
            recipe.active_at = timezone.now()
        recipe.save()


def recipes_advance() -> int:
    """Every running recipe moved on (the beat's task): how many there were."""
    ids = list(Recipe.objects.filter(status__in=ACTIVE).values_list("pk", flat=True))
    for recipe_id in ids:
        recipe_advance(recipe_id=recipe_id)
    return len(ids)


def _advance_once(recipe: Recipe) -> bool:
    """Start or check the current stage; True when it ended and the next one may go."""
    stage = recipe.stage
    started = "started_at" in recipe.stages.get(stage, {})
    step = _attempt(recipe, (CHECKS if started else STARTS)[stage])
    if step is None:
        return False
    if step.retry:
        _note(recipe, stage, step.note)
        return False
    if not started:
        _started(recipe, stage, step)
    else:
        _note(recipe, stage, step.note)
    recipe.waiting = step.waiting
    if not step.done:
        return False
    _mark(recipe, stage, "finished_at")
    position = STAGES.index(Stage(stage))
    recipe.done = position + 1
    job_broadcast(RECIPE, recipe.pk)
    if position + 1 == len(STAGES):
        _end(recipe, JobStatus.DONE)
        return False
    recipe.stage = STAGES[position + 1]
    return True


def _attempt(recipe: Recipe, run: Callable[[Recipe], Step]) -> Step | None:
    """Run a stage's start or check in a savepoint. A full queue (Conflict) is waited out;
    any other refusal or error fails the recipe with its reason (None)."""
    try:
        with transaction.atomic():
            return run(recipe)
    except Conflict as error:
        return Step(note=f"waiting for room: {error.message}", retry=True)
    except (StageFailed, DomainError) as error:
        reason = error.message if isinstance(error, DomainError) else str(error)
    except Exception as error:  # shown on the recipe's page rather than retried every beat
        log.exception("recipe %s: stage %s", recipe.pk, recipe.stage)
        reason = f"{type(error).__name__}: {error}"
    _note(recipe, recipe.stage, reason)
    recipe.error = f"{Stage(recipe.stage).label}: {reason}"[:20_000]
    _end(recipe, JobStatus.FAILED)
    return None


def _started(recipe: Recipe, stage: str, step: Step) -> None:
    _mark(recipe, stage, "started_at")
    _note(recipe, stage, step.note)


def _mark(recipe: Recipe, stage: str, key: str) -> None:
    recipe.stages.setdefault(stage, {})[key] = timezone.now().isoformat()


def _note(recipe: Recipe, stage: str, note: str) -> None:
    if note:
        recipe.stages.setdefault(stage, {})["note"] = note


def _end(recipe: Recipe, status: str) -> None:
    recipe.status, recipe.finished_at, recipe.waiting = status, timezone.now(), False
    if status != JobStatus.DONE and "started_at" in recipe.stages.get(recipe.stage, {}):
        recipe.stages[recipe.stage].setdefault("ended_at", recipe.finished_at.isoformat())
    recipe.save()
    job_broadcast(RECIPE, recipe.pk)
