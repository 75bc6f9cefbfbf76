"""What the training services share: the admin check, names, bounded numbers, the per-person
queue bound, row locks and the cancel of a queued or running row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import Conflict, Invalid, NotFound
from apps.common.storable import printable
from apps.jobs.broadcast import job_broadcast
from apps.jobs.dispatch import job_end
from apps.jobs.models import ACTIVE, JobStatus

MAX_QUEUED_PER_USER = 5
NAME_MAX = 120


def admin(user: Any) -> None:
    require_role(user, Role.ADMIN)


def name_of(value: Any, default: str) -> str:
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise Invalid("name must be text")
    name = printable(" ".join(value.split()))
    if len(name) > NAME_MAX:
        raise Invalid(f"name: at most {NAME_MAX} characters")
    return name or default


def whole(data: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{key} must be a whole number")
    if not low <= value <= high:
        raise Invalid(f"{key} must be between {low} and {high}")
    return value


def room(model: type[Any], user: Any) -> None:
    active = model.objects.select_for_update().filter(created_by=user, status__in=ACTIVE)
    if len(active) >= MAX_QUEUED_PER_USER:
        raise Conflict(
            f"you already have {MAX_QUEUED_PER_USER} queued or running; cancel one or wait"
        )


def locked(model: type[Any], pk: int, noun: str) -> Any:
    try:
        return model.objects.select_for_update().get(pk=pk)
    except model.DoesNotExist:
        raise NotFound(f"no {noun} {pk}") from None


def stop_or_cancel(kind: str, model: type[Any], pk: int, noun: str, *, stops: bool) -> Any:
    """A queued row ends cancelled; a running one is asked to stop (`stops`: it saves what it
    has at its next step and ends by itself) or, where it cannot be asked, ends cancelled too."""
    with transaction.atomic():
        row = locked(model, pk, noun)
        if row.status == JobStatus.RUNNING and stops:
            model.objects.filter(pk=pk).update(cancel_requested=True)
            job_broadcast(kind, pk)
        elif not job_end(kind, pk, JobStatus.CANCELLED):
            raise Conflict(f"{noun} {pk} is {row.status}: nothing to cancel")
    return model.objects.get(pk=pk)
