"""The keyboard audit page. Its script talks to the REST API (/api/audit/assignments/…) for
drafts, edits and submission, and fetches the tree partial below after an edit."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.audit import selectors, services
from apps.audit.models import Assignment, AssignmentStatus
from apps.audit.rows import audit_rows
from apps.rubrics.probe_view import probe_context
from apps.rubrics.selectors import probe_latest
from apps.rubrics.tree_view import solution_items
from quest.audit.taxonomy import DECISIONS, ERROR_TYPES, VERDICTS


def _tree_context(
    assignment: Assignment, work: selectors.ShownWork | None = None
) -> dict[str, Any]:
    """The tree the page shows: the current version while the audit is open; on a read-only
    page the version the verdicts were given on, drawn with them."""
    task = assignment.item.task
    version = task.current_version
    if work is not None and work.submitted and assignment.version is not None:
        version = assignment.version
    assert version is not None
    suggestions = selectors.judge_suggestions(task_id=task.pk)
    start = assignment.item.start_version
    rows = audit_rows(version.tree, suggestions, work.labels if work else None)
    return {
        "assignment": assignment,
        "version": version,
        # Fix-and-accept is offered only on a tree that differs from the one the audit began on.
        "edited": version.pk != start.pk and version.tree != start.tree,
        "rows": rows,
        "judged": sum(1 for row in rows if row.label and row.label.get("verdict")),
    }


@login_required
@require_GET
def assignment_page(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = selectors.assignment_get(user=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
    task = assignment.item.task
    editable = (
        assignment.annotator_id == request.user.pk and assignment.status == AssignmentStatus.ACTIVE
    )
    probe = probe_latest(version=task.current_version)
    work = None if editable else selectors.assignment_work(assignment=assignment)
    context = {
        **_tree_context(assignment, work),
        "work": work,
        **probe_context(user=request.user, task=task, run=probe),
        "campaign": assignment.campaign,
        "start_version": assignment.item.start_version,
        "solution_items": solution_items(task.solution),
        "editable": editable,
        "verdict_choices": VERDICTS,
        "error_types": ERROR_TYPES,
        "decisions": DECISIONS,
        "draft": assignment.draft if editable else {},
    }
    return render(request, "audit/audit.html", context)


@login_required
@require_GET
def assignment_tree(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """The tree of the task's current version, for the page to swap in after an edit."""
    assignment = selectors.assignment_get(user=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
    return render(request, "audit/audit.html#tree", _tree_context(assignment))


@login_required
@require_POST
def assignment_release(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = services.assignment_release(user=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
    messages.info(request, "Task skipped: it goes to someone else.")
    return redirect("audit:campaign", campaign_id=assignment.campaign_id)
