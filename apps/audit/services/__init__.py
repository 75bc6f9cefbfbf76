"""Audit use cases (writes). Each module holds one part of the workflow; callers import from
here."""

from __future__ import annotations

from apps.audit.services.adjudication import (
    gold_take,
    item_adjudicate,
    judge_verdicts_record,
)
from apps.audit.services.campaigns import (
    campaign_close,
    campaign_create,
    campaign_probe_all,
    campaign_tasks_add,
    demo_campaign_ensure,
    tasks_probe_all,
)
from apps.audit.services.claims import assignment_claim_next, assignment_release
from apps.audit.services.drafts import DraftConflict, assignment_draft_save
from apps.audit.services.edits import EditConflict, EditResult, assignment_edit, assignment_revert
from apps.audit.services.exports import export_enqueue, export_path, export_run
from apps.audit.services.judging import solutions_judge_enqueue, solutions_judge_run
from apps.audit.services.submissions import assignment_submit

__all__ = [
    "DraftConflict",
    "EditConflict",
    "EditResult",
    "assignment_claim_next",
    "assignment_draft_save",
    "assignment_edit",
    "assignment_release",
    "assignment_revert",
    "assignment_submit",
    "campaign_close",
    "campaign_create",
    "campaign_probe_all",
    "campaign_tasks_add",
    "demo_campaign_ensure",
    "export_enqueue",
    "export_path",
    "export_run",
    "gold_take",
    "item_adjudicate",
    "judge_verdicts_record",
    "solutions_judge_enqueue",
    "solutions_judge_run",
    "tasks_probe_all",
]
