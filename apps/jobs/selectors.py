"""Reading jobs of any kind as a user may: the kind's view role, then its own object access
(a kind that scopes rows to their owner keeps other users' jobs out of every read: a job the
user may not see is "not found", never "forbidden", so its existence does not leak)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.common.errors import DomainError, NotFound
from apps.jobs.dispatch import jobs_expire
from apps.jobs.registry import JobKind, kind_get, kinds


@dataclass(frozen=True)
class JobRef:
    """A job of the cross-kind list, before its row is read."""

    kind: str
    id: int
    created_at: datetime


def job_rows(*, user: Any, kind: str) -> Any:
    spec = kind_get(kind)
    require_role(user, spec.view_role)
    return spec.rows(user)


def job_list(*, user: Any, kind: str) -> Any:
    """A kind's jobs the user may read, newest first, after the watchdog (see job_get)."""
    rows = job_rows(user=user, kind=kind)
    jobs_expire(kind=kind)
    return rows


def job_get(*, user: Any, kind: str, job_id: int) -> Any:
    """One job as it stands; the watchdog runs first, so a dead worker's job reads failed."""
    rows = job_rows(user=user, kind=kind)
    jobs_expire(kind=kind)
    job = rows.filter(pk=job_id).first()
    if job is None:
        raise NotFound(f"no {kind_get(kind).label} {job_id}")
    return job


def _readable(user: Any, chosen: list[JobKind]) -> list[JobKind]:
    readable = []
    for spec in chosen:
        try:
            require_role(user, spec.view_role)
        except DomainError:
            continue
        readable.append(spec)
    return readable


def job_refs(*, user: Any, kind: str = "", status: str = "") -> list[JobRef]:
    """Every job the user may read, newest first: of one kind (its role is required), or of
    every kind whose role the user holds."""
    if kind:
        job_rows(user=user, kind=kind)
    require_role(user, Role.VIEWER)
    chosen = _readable(user, [kind_get(kind)] if kind else kinds())
    refs: list[JobRef] = []
    for spec in chosen:
        rows = spec.visible(spec, user)
        if status:
            rows = rows.filter(status=status)
        refs += [JobRef(spec.name, pk, at) for pk, at in rows.values_list("pk", "created_at")]
    return sorted(refs, key=lambda ref: (ref.created_at, ref.id), reverse=True)


def jobs_read(refs: list[JobRef]) -> list[tuple[JobKind, Any]]:
    """The rows of `refs`, in their order: one query a kind."""
    wanted: dict[str, list[int]] = {}
    for ref in refs:
        wanted.setdefault(ref.kind, []).append(ref.id)
    rows = {}
    for name, ids in wanted.items():
        spec = kind_get(name)
        found = spec.model.objects.select_related("created_by").defer(*spec.deferred).in_bulk(ids)
        rows.update({(name, pk): (spec, job) for pk, job in found.items()})
    return [rows[ref.kind, ref.id] for ref in refs if (ref.kind, ref.id) in rows]
