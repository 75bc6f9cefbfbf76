"""Domain objects as the audit API's response dicts."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.urls import reverse

from apps.audit import selectors
from apps.audit.models import Assignment, Campaign, CampaignTask, ExportJob
from apps.audit.selectors.agreement import CampaignAgreement
from apps.audit.selectors.campaigns import Submitted
from apps.audit.selectors.quality import QualityReport
from apps.audit.services import DraftConflict


def campaign_out(campaign: Campaign) -> dict[str, Any]:
    fields = (
        "id",
        "name",
        "instructions",
        "filters",
        "annotators_per_task",
        "lock_minutes",
        "status",
        "created_at",
        "total",
        "decided",
        "disputed",
        "submissions",
        "mine",
    )
    return {name: getattr(campaign, name) for name in fields}


def assignment_out(a: Assignment) -> dict[str, Any]:
    return {
        "id": a.pk,
        "campaign_id": a.campaign_id,
        "item_id": a.item_id,
        "task_id": a.item.task_id,
        "annotator": a.annotator.username,
        "status": a.status,
        "claimed_at": a.claimed_at,
        "lock_expires_at": a.lock_expires_at,
        "submitted_at": a.submitted_at,
        "version": a.version.number if a.version_id and a.version else None,
        "decision": a.decision,
        "comment": a.comment,
    }


def assignment_detail_out(a: Assignment) -> dict[str, Any]:
    task = a.item.task
    current = task.current_version
    assert current is not None
    return {
        **assignment_out(a),
        "question": task.question,
        "solution": task.solution,
        "start_version": a.item.start_version.number,
        "current_version": current.number,
        "tree": current.tree,
        "draft": a.draft,
        "draft_revision": a.draft_revision,
        "suggestions": selectors.judge_suggestions(task_id=task.pk),
    }


def agreement_out(result: CampaignAgreement) -> dict[str, Any]:
    return {
        "campaign_id": result.campaign.pk,
        "annotators_per_task": result.campaign.annotators_per_task,
        "nodes": [asdict(row) for row in result.nodes],
        "decisions": asdict(result.decisions),
        "judge": asdict(result.judge),
    }


def _submitted(s: Submitted) -> dict[str, Any]:
    a = s.assignment
    return {
        "annotator": a.annotator.username,
        "decision": a.decision,
        "version": a.version.number if a.version else None,
        "comment": a.comment,
        "submitted_at": a.submitted_at,
        "verdicts": s.labels,
    }


def item_out(item: CampaignTask, submissions: list[Submitted]) -> dict[str, Any]:
    gold = {
        g.node_id: {"verdict": g.verdict, "error_type": g.error_type, "comment": g.comment}
        for g in item.gold.all()
    }
    return {
        "id": item.pk,
        "campaign_id": item.campaign_id,
        "task_id": item.task_id,
        "question": item.task.question,
        "state": item.state,
        "decision": item.decision,
        "start_version": item.start_version.number,
        "final_version": item.final_version.number if item.final_version else None,
        "decided_by": item.decided_by.username if item.decided_by else None,
        "decided_at": item.decided_at,
        "submissions": [_submitted(s) for s in submissions],
        "gold": gold,
    }


def quality_out(report: QualityReport) -> dict[str, Any]:
    return asdict(report)


def export_out(job: ExportJob) -> dict[str, Any]:
    ready = job.status == "done"
    return {
        "id": job.pk,
        "format": job.format,
        "campaign_id": job.campaign_id,
        "status": job.status,
        "rows": job.rows,
        "error": job.error,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
        "download_url": reverse("api:audit_export_download", args=[job.pk]) if ready else None,
    }


def draft_conflict_out(exc: DraftConflict) -> dict[str, Any]:
    comparison = exc.comparison
    return {
        "detail": exc.message,
        "draft_revision": exc.draft_revision,
        "base_revision": exc.base_revision,
        "draft": exc.draft,
        "nodes": [d.to_dict("node") for d in comparison.nodes],
        "fields": [d.to_dict("field") for d in comparison.fields],
        "merged": comparison.merged,
    }
