"""Starting, stopping and watching over live sessions. The run itself is in runner.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common import llm
from apps.common.errors import Conflict, Forbidden, Invalid, NotFound
from apps.jobs.dispatch import task_send
from apps.live.broadcast import event_append
from apps.live.checkpoints import (
    CHECKPOINT_PREFIX,
    LiveCheckpoint,
    checkpoint_find,
    is_checkpoint,
)
from apps.live.models import (
    ACTIVE_STATUSES,
    Event,
    LLMEndpoint,
    Pace,
    Policy,
    Session,
    SessionStatus,
    Visibility,
)
from apps.live.selectors import can_manage, session_get
from apps.rubrics import selectors as task_selectors
from quest.llm.config import parse_endpoints
from workers.queues import Queue

MAX_QUESTION_CHARS = 4000
MAX_ACTIVE_PER_USER = 3
# Bounds on what a user may ask for; the QUEST inference scripts allow 400 turns.
TURN_LIMITS = (1, 400)
CONDENSE_LIMITS = (1_000, 200_000)
TURN_TOKEN_LIMITS = (16, 10_240)
# The one source of the defaults the start form shows and the API applies to a field left out.
DEFAULT_BUDGETS = {"max_turns": 30, "condense_at_tokens": 16_384, "max_turn_tokens": 1_024}
DEFAULT_VISIBILITY = Visibility.PUBLIC
DEFAULT_PACE = Pace.REAL_TIME


@dataclass(frozen=True)
class SessionRequest:
    question: str = ""
    task_id: int | None = None
    policy: str = Policy.SCRIPTED
    model: str = ""
    max_turns: int | None = None
    condense_at_tokens: int | None = None
    max_turn_tokens: int | None = None
    visibility: str = DEFAULT_VISIBILITY
    pace: str = DEFAULT_PACE


def _bounded(name: str, value: int | None, limits: tuple[int, int], default: int) -> int:
    if value is None:
        return default
    low, high = limits
    if not low <= value <= high:
        raise Invalid(f"{name} must be between {low:,} and {high:,}")
    return value


def _question(user: Any, request: SessionRequest) -> tuple[str, Any]:
    if request.task_id is not None:
        task = task_selectors.task_get(user=user, task_id=request.task_id)
        return task.question, task
    question = request.question.strip()
    if not question:
        raise Invalid("give a question or a task")
    if len(question) > MAX_QUESTION_CHARS:
        raise Invalid(f"the question is longer than {MAX_QUESTION_CHARS:,} characters")
    return question, None


LLM_PERMISSION = "accounts.use_llm"


def policies_for(*, user: Any) -> list[str]:
    """The policies `user` may start: an llm one spends model endpoints and needs a grant."""
    return [p for p in Policy.values if p == Policy.SCRIPTED or user.has_perm(LLM_PERMISSION)]


def _model(user: Any, request: SessionRequest) -> tuple[str, LiveCheckpoint | None]:
    if request.policy not in Policy.values:
        raise Invalid(f"policy must be one of {', '.join(Policy.values)}")
    if request.policy == Policy.SCRIPTED:
        return "", None
    if not user.has_perm(LLM_PERMISSION):
        raise Forbidden(
            "LLM sessions spend model endpoints: an admin must grant you "
            "'Can start live sessions with LLM policies'; the scripted policy is open to all"
        )
    if is_checkpoint(request.model):
        checkpoint = checkpoint_find(request.model)
        if checkpoint is None:
            raise Invalid(
                f"model: no checkpoint {request.model.removeprefix(CHECKPOINT_PREFIX)!r} of a "
                "finished, stopped or cancelled training run (GET /api/live/models lists them)"
            )
        return checkpoint.model, checkpoint
    choices = llm.model_choices()
    model = request.model or (choices[0] if choices else "")
    if model not in choices:
        raise Invalid(f"model must be one of {', '.join(choices)} or a checkpoint")
    return model, None


def _checkpoint_fields(checkpoint: LiveCheckpoint | None) -> dict[str, Any]:
    if checkpoint is None:
        return {}
    return {
        "checkpoint": checkpoint.path,
        "checkpoint_label": checkpoint.label,
        "training_job_id": checkpoint.job_id,
        "checkpoint_step": checkpoint.step,
        "held_out_reward": checkpoint.held_out_reward,
    }


def session_create(*, user: Any, request: SessionRequest) -> Session:
    require_role(user, Role.VIEWER)
    question, task = _question(user, request)
    model, checkpoint = _model(user, request)
    if request.visibility not in Visibility.values:
        raise Invalid(f"visibility must be one of {', '.join(Visibility.values)}")
    if request.pace not in Pace.values:
        raise Invalid(f"pace must be one of {', '.join(Pace.values)}")
    budgets = {
        "max_turns": _bounded(
            "max_turns", request.max_turns, TURN_LIMITS, DEFAULT_BUDGETS["max_turns"]
        ),
        "condense_at_tokens": _bounded(
            "condense_at_tokens",
            request.condense_at_tokens,
            CONDENSE_LIMITS,
            DEFAULT_BUDGETS["condense_at_tokens"],
        ),
        "max_turn_tokens": _bounded(
            "max_turn_tokens",
            request.max_turn_tokens,
            TURN_TOKEN_LIMITS,
            DEFAULT_BUDGETS["max_turn_tokens"],
        ),
    }
    with transaction.atomic():
        active = Session.objects.select_for_update().filter(owner=user, status__in=ACTIVE_STATUSES)
        if len(active) >= MAX_ACTIVE_PER_USER:
            raise Conflict(
                f"you already have {MAX_ACTIVE_PER_USER} sessions queued or running; "
                "stop one or wait for it to finish"
            )
        session = Session.objects.create(
            question=question,
            task=task,
            policy=request.policy,
            model=model,
            **_checkpoint_fields(checkpoint),
            budgets=budgets,
            visibility=request.visibility,
            pace=request.pace,
            owner=user,
        )
        transaction.on_commit(lambda: _enqueue(session))
    return session


def session_pair_create(
    *, user: Any, request: SessionRequest, other: SessionRequest
) -> tuple[Session, Session]:
    """The same question for two models, side by side: both start or neither does."""
    with transaction.atomic():
        first = session_create(user=user, request=request)
        second = session_create(user=user, request=other)
    return first, second


def _enqueue(session: Session) -> None:
    # By the task's name (apps/jobs/dispatch.py): tasks.py imports this module, not the reverse.
    # A checkpoint runs in-process, on the gpu queue's worker (its CPU where there is no GPU).
    in_process = llm.needs_gpu(session.model) or is_checkpoint(session.model)
    queue = Queue.GPU if in_process else Queue.CPU
    task_send(f"apps.live.tasks.{queue.value}_session_run", session.pk, queue=queue)


def session_stop(*, user: Any, public_id: object) -> Session:
    """Ask a running session to stop (it ends with a partial report); a queued one ends now."""
    session = session_get(user=user, public_id=public_id)
    if session.owner_id != user.pk and not can_manage(user):
        raise Forbidden("only the session's owner or an admin can stop it")
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        if not session.is_active:
            raise Conflict(f"the session has already ended ({session.status})")
        if session.status == SessionStatus.QUEUED:
            event_append(
                session_id=session.pk,
                type="finished",
                payload={"status": "stopped", "turns": 0, "reason": "stopped before it started"},
                status=SessionStatus.FINISHED,
                stop_requested=True,
                finished_at=timezone.now(),
            )
        else:
            Session.objects.filter(pk=session.pk).update(
                stop_requested=True, status=SessionStatus.STOPPING
            )
    session.refresh_from_db()
    return session


def sessions_mark_stalled(*, now: Any = None) -> int:
    """Running sessions with no event for LIVE_STALL_AFTER_SECONDS are marked stalled and told
    to stop, so a worker that was only slow ends cleanly at its next turn."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.LIVE_STALL_AFTER_SECONDS)
    stale = Session.objects.filter(
        status__in=(SessionStatus.RUNNING, SessionStatus.STOPPING), active_at__lt=cutoff
    ).values_list("pk", flat=True)
    count = 0
    for session_id in list(stale):
        with transaction.atomic():
            locked = Session.objects.select_for_update().get(pk=session_id)
            if locked.status not in (SessionStatus.RUNNING, SessionStatus.STOPPING):
                continue
            if locked.active_at is None or locked.active_at >= cutoff:
                continue
            event_append(
                session_id=session_id,
                type="error",
                payload={
                    "message": (
                        f"no event for {settings.LIVE_STALL_AFTER_SECONDS} s: the worker may "
                        "have died; the session is marked stalled"
                    ),
                    "stalled": True,
                },
                status=SessionStatus.STALLED,
                stop_requested=True,
                finished_at=now,
            )
            count += 1
    return count


def events_prune(*, session_id: int, types: tuple[str, ...], keep_last: int = 0) -> int:
    """Delete a session's events of the given types except its newest `keep_last` events.
    Clients that ask for the deleted seqs are told about the gap (selectors.events_after)."""
    last = Session.objects.filter(pk=session_id).values_list("last_seq", flat=True).get()
    deleted, _ = Event.objects.filter(
        session_id=session_id, type__in=types, seq__lte=last - keep_last
    ).delete()
    return deleted


def endpoint_save(*, user: Any, endpoint_id: int | None, data: dict[str, Any]) -> LLMEndpoint:
    """Create or replace an LLM endpoint (admins). An empty api_key on an update keeps the
    stored one, so editing a row never needs the secret again."""
    require_role(user, Role.ADMIN)
    _check_endpoint(data)
    with transaction.atomic():
        if endpoint_id is None:
            if LLMEndpoint.objects.filter(name=data["name"]).exists():
                raise Conflict(f"an endpoint named {data['name']!r} already exists")
            return LLMEndpoint.objects.create(**data)
        endpoint = LLMEndpoint.objects.select_for_update().filter(pk=endpoint_id).first()
        if endpoint is None:
            raise NotFound(f"no endpoint {endpoint_id}")
        if not data.get("api_key"):
            data = {**data, "api_key": endpoint.api_key}
        for field, value in data.items():
            setattr(endpoint, field, value)
        endpoint.save()
        return endpoint


def _check_endpoint(data: dict[str, Any]) -> None:
    try:
        parse_endpoints(f"{data['base_url']}|{data['model']}")
    except ValueError as exc:
        raise Invalid(str(exc)) from exc


def endpoint_delete(*, user: Any, endpoint_id: int) -> None:
    require_role(user, Role.ADMIN)
    deleted, _ = LLMEndpoint.objects.filter(pk=endpoint_id).delete()
    if not deleted:
        raise NotFound(f"no endpoint {endpoint_id}")
