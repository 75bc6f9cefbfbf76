from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common.errors import Conflict, DomainError, Invalid
from apps.rubrics import imports, selectors, services
from apps.rubrics.evaluation import task_try_answer
from apps.rubrics.models import AuditState, TaskType
from apps.rubrics.probe_view import probe_context
from apps.rubrics.tree_view import has_judge_leaves, solution_items, tree_rows
from quest.rubric.diff import diff_trees


def _filters(request: HttpRequest) -> selectors.TaskFilters:
    get = request.GET
    return selectors.TaskFilters(
        **{k: get.get(k, "")[:200] for k in selectors.TaskFilters.__dataclass_fields__}
    )


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


@login_required
@require_GET
def task_list(request: HttpRequest) -> HttpResponse:
    filters = _filters(request)
    page = selectors.task_page(
        user=request.user,  # type: ignore[arg-type]
        filters=filters,
        page=_int(request.GET.get("page"), 1),
        page_size=50,
    )
    kept = {k: v for k, v in filters.__dict__.items() if v}
    context = {
        "page": page,
        "filters": filters,
        "querystring": urlencode(kept),
        "facets": selectors.task_facets(user=request.user),  # type: ignore[arg-type]
        "types": TaskType.choices,
        "audit_states": AuditState.choices,
        "can_import": request.user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]),
    }
    template = "rubrics/task_list.html#results" if request.htmx else "rubrics/task_list.html"  # type: ignore[attr-defined]
    return render(request, template, context)


@login_required
@require_GET
def task_detail(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.task_get(user=request.user, task_id=task_id)  # type: ignore[arg-type]
    version = task.current_version
    context = {
        **probe_context(user=request.user, task=task, run=selectors.probe_latest(version=version)),
        "version": version,
        "version_count": task.versions.count(),
        "rows": tree_rows(version.tree) if version else [],
        "solution_items": solution_items(task.solution),
    }
    return render(request, "rubrics/task_detail.html", context)


def _probe_template(request: HttpRequest) -> str:
    """The audit page shows the compact status (badge and button), the task page the panel."""
    part = request.GET.get("part") or request.POST.get("part")
    return f"rubrics/_probe.html#{'status' if part == 'status' else 'panel'}"


@login_required
@require_POST
def task_probe(request: HttpRequest, task_id: int) -> HttpResponse:
    user = request.user
    try:
        run = services.probe_enqueue(user=user, task_id=task_id)  # type: ignore[arg-type]
    except Invalid as exc:
        if not request.htmx:  # type: ignore[attr-defined]
            raise
        task = selectors.task_get(user=user, task_id=task_id)  # type: ignore[arg-type]
        latest = selectors.probe_latest(version=task.current_version)
        context = {**probe_context(user=user, task=task, run=latest), "probe_error": exc.message}
        # htmx swaps only 2xx responses: the refusal is shown inside the panel it replaces.
        return render(request, _probe_template(request), context)
    if not request.htmx:  # type: ignore[attr-defined]
        return redirect("rubrics:detail", task_id=task_id)
    return render(
        request, _probe_template(request), probe_context(user=user, task=run.task, run=run)
    )


@login_required
@require_GET
def probe_detail(request: HttpRequest, task_id: int, run_id: int) -> HttpResponse:
    """A probe run's panel (or compact status): what the page polls while the run is queued."""
    user = request.user
    task = selectors.task_get(user=user, task_id=task_id)  # type: ignore[arg-type]
    run = selectors.probe_get(user=user, run_id=run_id, task_id=task_id)  # type: ignore[arg-type]
    return render(request, _probe_template(request), probe_context(user=user, task=task, run=run))


@login_required
@require_POST
def task_try(request: HttpRequest, task_id: int) -> HttpResponse:
    answer = request.POST.get("answer", "")
    try:
        result = task_try_answer(user=request.user, task_id=task_id, answer=answer)  # type: ignore[arg-type]
    except DomainError as exc:
        # htmx swaps only 2xx responses: the refusal replaces the result (and any old reward).
        status = 200 if request.htmx else exc.status  # type: ignore[attr-defined]
        context: dict[str, Any] = {"error": exc.message}
        return render(request, "rubrics/try_result.html#error", context, status=status)
    context = {
        "rows": tree_rows(result.tree, result.node_results),
        "reward": result.reward,
        "complete": result.complete,
        "errored": result.errored,
        "judge_leaves": has_judge_leaves(result.tree),
    }
    return render(request, "rubrics/try_result.html", context)


@login_required
@require_GET
def task_versions(request: HttpRequest, task_id: int) -> HttpResponse:
    user = request.user
    task = selectors.task_get(user=user, task_id=task_id)  # type: ignore[arg-type]
    versions = list(selectors.version_list(user=user, task_id=task_id))  # type: ignore[arg-type]
    newest = versions[0].number if versions else 0
    a = _int(request.GET.get("a"), max(newest - 1, 1))
    b = _int(request.GET.get("b"), newest)
    changes = None
    if versions and "a" in request.GET:
        old = selectors.version_get(user=user, task_id=task_id, number=a)  # type: ignore[arg-type]
        new = selectors.version_get(user=user, task_id=task_id, number=b)  # type: ignore[arg-type]
        changes = diff_trees(old.tree, new.tree)
    context = {"task": task, "versions": versions, "a": a, "b": b, "changes": changes}
    return render(request, "rubrics/versions.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def task_import(request: HttpRequest) -> HttpResponse:
    context: dict[str, Any] = {}
    if request.method == "POST":
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise Invalid("choose a file to upload")
            job = imports.task_import_enqueue(
                user=request.user,  # type: ignore[arg-type]
                filename=upload.name or "upload.json",
                payload=upload.read(imports.MAX_UPLOAD_BYTES + 1),
            )
        except DomainError as exc:
            context["form_error"] = exc.message
            status = exc.status
        else:
            return redirect("rubrics:import-detail", import_id=job.pk)
    else:
        status = 200
    context["imports"] = imports.task_imports_recent(user=request.user)  # type: ignore[arg-type]
    return render(request, "rubrics/import.html", context, status=status)


def _import_template(request: HttpRequest) -> str:
    return "rubrics/import_detail.html#progress" if request.htmx else "rubrics/import_detail.html"  # type: ignore[attr-defined]


@login_required
@require_GET
def task_import_detail(request: HttpRequest, import_id: int) -> HttpResponse:
    job = imports.task_import_status(user=request.user, import_id=import_id)  # type: ignore[arg-type]
    return render(request, _import_template(request), {"job": job})


@login_required
@require_POST
def task_import_cancel(request: HttpRequest, import_id: int) -> HttpResponse:
    user = request.user
    try:
        job = imports.task_import_cancel(user=user, import_id=import_id)  # type: ignore[arg-type]
    except Conflict as exc:
        if not request.htmx:  # type: ignore[attr-defined]
            raise
        # htmx swaps only 2xx responses: the refusal is shown in the progress it replaces.
        job = imports.task_import_status(user=user, import_id=import_id)  # type: ignore[arg-type]
        return render(request, _import_template(request), {"job": job, "cancel_error": exc.message})
    if not request.htmx:  # type: ignore[attr-defined]
        return redirect("rubrics:import-detail", import_id=job.pk)
    return render(request, _import_template(request), {"job": job})
