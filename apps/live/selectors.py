"""Reads for live sessions, scoped to what the user may watch: their own sessions, public ones,
and everything for admins. A private session of someone else is "not found", not "forbidden",
so its existence does not leak."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from apps.accounts.permissions import require_role
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common import llm
from apps.common.errors import Invalid, NotFound
from apps.live.checkpoints import checkpoint_list
from apps.live.models import Event, LLMEndpoint, Policy, Session, SessionStatus, Visibility

MAX_EVENTS_PER_PAGE = 1000


@dataclass(frozen=True)
class SessionFilters:
    status: str = ""
    policy: str = ""
    mine: bool = False
    task_id: int | None = None
    text: str = ""


@dataclass(frozen=True)
class EventPage:
    events: list[Event]
    # Ranges (first, last) of seqs that no longer exist: pruned events the client will not get.
    gaps: list[tuple[int, int]]
    last_seq: int


def can_manage(user: Any) -> bool:
    return bool(user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]))


def _visible(user: Any) -> QuerySet[Session]:
    require_role(user, Role.VIEWER)
    sessions = Session.objects.select_related("owner", "task")
    if can_manage(user):
        return sessions
    return sessions.filter(Q(owner=user) | Q(visibility=Visibility.PUBLIC))


def session_list(*, user: Any, filters: SessionFilters) -> QuerySet[Session]:
    sessions = _visible(user)
    if filters.status:
        if filters.status not in SessionStatus.values:
            raise Invalid(f"status must be one of {', '.join(SessionStatus.values)}")
        sessions = sessions.filter(status=filters.status)
    if filters.policy:
        if filters.policy not in Policy.values:
            raise Invalid(f"policy must be one of {', '.join(Policy.values)}")
        sessions = sessions.filter(policy=filters.policy)
    if filters.mine:
        sessions = sessions.filter(owner=user)
    if filters.task_id is not None:
        sessions = sessions.filter(task_id=filters.task_id)
    if filters.text:
        sessions = sessions.filter(question__icontains=filters.text[:200])
    return sessions.order_by("-created_at", "-pk")


def _uuid(value: object) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError as exc:
        raise NotFound("no such session") from exc


def session_get(*, user: Any, public_id: object) -> Session:
    try:
        return _visible(user).get(public_id=_uuid(public_id))
    except Session.DoesNotExist as exc:
        raise NotFound("no such session") from exc


def events_after(*, session: Session, after: int, limit: int = MAX_EVENTS_PER_PAGE) -> EventPage:
    """Events with seq > `after`, oldest first, at most `limit`; the seqs missing between them
    (pruned) are reported as gaps so a client knows it has not silently lost anything."""
    if after < 0:
        raise Invalid("after must be a non-negative sequence number")
    limit = max(1, min(limit, MAX_EVENTS_PER_PAGE))
    # last_seq first: an event and its last_seq commit together, so every seq up to this one is
    # visible to the next query; reading the other way round could report a false gap.
    last_seq = Session.objects.filter(pk=session.pk).values_list("last_seq", flat=True).get()
    events = list(Event.objects.filter(session=session, seq__gt=after).order_by("seq")[:limit])
    return EventPage(
        events=events, gaps=seq_gaps(after, events, last_seq, limit), last_seq=last_seq
    )


def seq_gaps(after: int, events: list[Event], last_seq: int, limit: int) -> list[tuple[int, int]]:
    gaps: list[tuple[int, int]] = []
    expected = after + 1
    for event in events:
        if event.seq > expected:
            gaps.append((expected, event.seq - 1))
        expected = event.seq + 1
    # Past the page the rest is simply not fetched yet, unless the page came back short.
    if len(events) < limit and expected <= last_seq:
        gaps.append((expected, last_seq))
    return gaps


def llm_endpoints() -> list[Any]:
    """The enabled endpoints, in the order a session tries them (no user: the runner's view)."""
    return list(LLMEndpoint.objects.filter(enabled=True).order_by("priority", "name"))


def endpoint_list(*, user: Any) -> QuerySet[Any]:
    require_role(user, Role.ADMIN)
    return LLMEndpoint.objects.all()


def model_options() -> list[tuple[str, str]]:
    """(model, label) of every model an llm session may use: the apps' LLMs, then the
    checkpoints of ended training runs."""
    return [(m, m) for m in llm.model_choices()] + [
        (c.model, c.choice_label) for c in checkpoint_list()
    ]
