"""The job kinds: what each is called, where its rows live, which Celery task runs it on which
queue, who may see and cancel it, how long it may stay silent and how the REST API shows it.

Apps register their kinds in their own `jobs.py`; the framework reaches a kind's task by its
name, so an app's services never import its tasks module (nor the tasks its services)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from apps.accounts.roles import Role
from apps.common.errors import NotFound
from apps.jobs.models import Job
from workers.queues import Queue

Out = Callable[[Any], dict[str, Any]]


def _everything(kind: JobKind, user: Any) -> QuerySet[Any]:
    return kind.model.objects.all()


def _unchanged(text: str) -> str:
    return text


@dataclass(frozen=True)
class JobKind:
    """One kind of job. `visible(kind, user)` narrows the rows a user may read (after the view
    role); `cancel(user=, job_id=)` replaces the framework's cancel where stopping takes more than
    ending the row (a run that must save a checkpoint first); `stall` is how long a running job
    may go without a report before the watchdog ends it failed, None for never."""

    name: str
    label: str
    model: type[Job]
    # The Celery task of each queue the kind runs on, by name; the first is the default (a kind
    # whose model may run inside the worker has a gpu task besides its cpu one). Empty for a
    # kind that a beat moves on (a recipe): it is never sent.
    tasks: Mapping[Queue, str]
    out: Out
    view_role: Role = Role.VIEWER
    cancel_role: Role = Role.ADMIN
    visible: Callable[[JobKind, Any], QuerySet[Any]] = _everything
    cancel: Callable[..., Job] | None = None
    stall: Callable[[], timedelta] | None = None
    stalled_error: Callable[[], str] = lambda: "the worker stopped reporting (it died)"
    shown_error: Callable[[str], str] = _unchanged
    # A kind with a websocket of its own (a training job's curves) is told of each status
    # change too, after the commit, with the row as stored.
    announce: Callable[[Any], None] | None = None
    # False for work that cannot stop part-way (it rewrites files): only a queued job cancels.
    stops_midway: bool = True
    # Columns too big to read for a status (an upload waiting for its worker), and what every
    # end of a job writes (the upload dropped, however the job ended).
    deferred: tuple[str, ...] = ()
    ended_fields: Mapping[str, Any] = field(default_factory=dict)

    def task(self, queue: Queue | None) -> tuple[str, Queue]:
        if not self.tasks:
            raise ValueError(f"job kind {self.name!r} has no task to send")
        chosen = queue or next(iter(self.tasks))
        return self.tasks[chosen], chosen

    def rows(self, user: Any) -> QuerySet[Any]:
        return self.visible(self, user).select_related("created_by").defer(*self.deferred)


def queue_tasks(module: str, name: str, *queues: Queue) -> dict[Queue, str]:
    """A kind's Celery task on each of `queues`, the first the default, named as
    workers/routes.py routes them: `<module>.cpu_<name>` runs on cpu, `…gpu_<name>` on gpu."""
    return {queue: f"{module}.{queue.value}_{name}" for queue in queues}


def stall_setting(name: str, unit: str) -> Callable[[], timedelta]:
    """A kind's `stall` read from a setting each time (settings change under tests), in
    `unit` ("seconds", "minutes")."""
    return lambda: timedelta(**{unit: getattr(settings, name)})


_KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> JobKind:
    if _KINDS.get(kind.name, kind) is not kind:
        raise ValueError(f"job kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def kind_get(name: str) -> JobKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise NotFound(f"no job kind {name!r}; the kinds are {', '.join(sorted(_KINDS))}") from None


def kinds() -> list[JobKind]:
    return [_KINDS[name] for name in sorted(_KINDS)]
