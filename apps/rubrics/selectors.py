from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import Count, Q, QuerySet

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common.errors import NotFound
from apps.rubrics.models import ProbeRun, RubricVersion, Task, TaskImport

MAX_PAGE_SIZE = 200


@dataclass(frozen=True)
class TaskFilters:
    q: str = ""
    type: str = ""
    category: str = ""
    subcategory: str = ""
    complexity: str = ""
    audit_state: str = ""


def _search(qs: QuerySet[Task], text: str) -> QuerySet[Task]:
    if connection.vendor == "postgresql":
        return qs.annotate(search=SearchVector("question", "category", "subcategory")).filter(
            Q(search=SearchQuery(text, search_type="websearch")) | Q(question__icontains=text)
        )
    return qs.filter(Q(question__icontains=text) | Q(category__icontains=text))


def task_list(*, user: User, filters: TaskFilters) -> QuerySet[Task]:
    require_role(user, Role.VIEWER)
    qs = Task.objects.select_related("current_version").defer("current_version__tree")
    for field in ("type", "category", "subcategory", "complexity", "audit_state"):
        value = getattr(filters, field)
        if value:
            qs = qs.filter(**{field: value})
    if filters.q.strip():
        qs = _search(qs, filters.q.strip()[:200])
    return qs.order_by("-created_at", "-id")


def task_page(*, user: User, filters: TaskFilters, page: int, page_size: int) -> Page[Task]:
    paginator = Paginator(
        task_list(user=user, filters=filters), min(max(page_size, 1), MAX_PAGE_SIZE)
    )
    return paginator.get_page(page)


def task_get(*, user: User, task_id: int) -> Task:
    require_role(user, Role.VIEWER)
    task = Task.objects.select_related("current_version", "created_by").filter(pk=task_id).first()
    if task is None:
        raise NotFound(f"no task {task_id}")
    return task


def task_facets(*, user: User) -> dict[str, list[str]]:
    """Distinct values to offer in the list's filter menus."""
    require_role(user, Role.VIEWER)
    return {
        field: list(
            Task.objects.exclude(**{field: ""})
            .order_by(field)
            .values_list(field, flat=True)
            .distinct()
        )
        for field in ("category", "subcategory", "complexity")
    }


def task_questions() -> list[str]:
    """Every task's question (no user: the synthesis worker's view, to avoid near-duplicates)."""
    return list(Task.objects.values_list("question", flat=True))


def subcategory_counts() -> dict[str, int]:
    """How many tasks each subcategory has (no user: synthesis takes the least-used first)."""
    rows = Task.objects.exclude(subcategory="").values_list("subcategory").annotate(n=Count("id"))
    return {subcategory: n for subcategory, n in rows.order_by()}


def version_list(*, user: User, task_id: int) -> QuerySet[RubricVersion]:
    task = task_get(user=user, task_id=task_id)
    return task.versions.select_related("author").defer("tree").order_by("-number")


def version_get(*, user: User, task_id: int, number: int) -> RubricVersion:
    task = task_get(user=user, task_id=task_id)
    version = task.versions.filter(number=number).first()
    if version is None:
        raise NotFound(f"task {task_id} has no version {number}")
    return version


# Who besides reviewers may edit a task's tree is decided by the apps above this one (audit: an
# annotator holding an open assignment on the task); each adds its grant in its AppConfig.ready.
_edit_grants: dict[str, Callable[[User, int], bool]] = {}


def task_edit_grant_add(name: str, grant: Callable[[User, int], bool]) -> None:
    """Let `grant(user, task_id)` allow a user below reviewer to save versions of a task."""
    _edit_grants[name] = grant


def task_editable(*, user: User, task_id: int) -> bool:
    """Whether `user` may save a new version of a task's tree: a reviewer or above always, anyone
    else while a registered grant allows it."""
    if user.has_perm(ROLE_REQUIREMENT[Role.REVIEWER]):
        return True
    return any(grant(user, task_id) for grant in _edit_grants.values())


def task_import_get(*, user: User, import_id: int) -> TaskImport:
    require_role(user, Role.ADMIN)
    job = TaskImport.objects.defer("payload").filter(pk=import_id).first()
    if job is None:
        raise NotFound(f"no import {import_id}")
    return job


def task_import_list(*, user: User) -> QuerySet[TaskImport]:
    require_role(user, Role.ADMIN)
    return TaskImport.objects.defer("payload").order_by("-created_at")


def probe_latest(*, version: RubricVersion | None) -> ProbeRun | None:
    """The newest probe run of a version (the one its soundness badge shows); callers have
    already read the version's task."""
    if version is None:
        return None
    return version.probe_runs.select_related("version").order_by("-created_at", "-pk").first()


def probe_runs(*, user: User, task_id: int) -> QuerySet[ProbeRun]:
    task = task_get(user=user, task_id=task_id)
    return task.probe_runs.select_related("version", "created_by").order_by("-created_at", "-pk")


def probe_get(*, user: User, run_id: int, task_id: int | None = None) -> ProbeRun:
    """One probe run; with `task_id`, only a run of that task."""
    require_role(user, Role.VIEWER)
    runs = ProbeRun.objects.select_related("version", "created_by")
    if task_id is not None:
        runs = runs.filter(task_id=task_id)
    run = runs.filter(pk=run_id).first()
    if run is None:
        raise NotFound(f"no probe run {run_id}" + (f" of task {task_id}" if task_id else ""))
    return run
