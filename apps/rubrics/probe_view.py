"""What the probe badge and panel show: a task's latest probe run turned into template context.
Shared by the task page and the audit page."""

from __future__ import annotations

from typing import Any

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.jobs.models import JobStatus
from apps.rubrics.models import ProbeRun, Task
from apps.rubrics.solutions import probe_text
from apps.rubrics.tree_view import has_judge_leaves


def probe_state(run: ProbeRun | None) -> tuple[str, str]:
    """(css state, label) of the soundness badge."""
    if run is None:
        return "none", "not probed"
    if run.is_active:
        return "active", "probing…"
    if run.status == JobStatus.FAILED:
        return "failed", "probe failed"
    return run.verdict, run.verdict


def probe_context(*, user: Any, task: Task, run: ProbeRun | None) -> dict[str, Any]:
    state, label = probe_state(run)
    report = run.report if run is not None else {}
    return {
        "task": task,
        "probe_run": run,
        "probe_state": state,
        "probe_label": label,
        "probe_rows": report.get("probes", []),
        "probe_report": report,
        "can_probe": user.has_perm(ROLE_REQUIREMENT[Role.ANNOTATOR]),
        "has_probe_text": bool(probe_text(task)),
        "judge_leaves": has_judge_leaves(run.version.tree if run else _current_tree(task)),
    }


def _current_tree(task: Task) -> dict[str, Any] | None:
    return task.current_version.tree if task.current_version else None
