"""Audit reads, with the caller's role checked here: annotators see only their own work."""

from __future__ import annotations

from apps.audit.selectors.agreement import CampaignAgreement, campaign_agreement
from apps.audit.selectors.campaigns import (
    CAMPAIGN_STATES,
    FILTER_FIELDS,
    ShownWork,
    annotator_choices,
    assignment_get,
    assignment_list,
    assignment_work,
    campaign_get,
    campaign_list,
    campaign_may_claim,
    is_reviewer,
    item_get,
    item_submissions,
    tasks_matching_count,
)
from apps.audit.selectors.exports import audit_records, jsonl_chunks
from apps.audit.selectors.gate import (
    training_eligible_tasks,
    training_task_list,
    training_versions,
)
from apps.audit.selectors.progress import (
    OpenWork,
    TaskProgress,
    campaign_open_work,
    campaign_task_rows,
)
from apps.audit.selectors.quality import QualityReport, quality_report
from apps.audit.selectors.review import (
    dispute_list,
    export_get,
    export_list,
    judge_suggestions,
)

__all__ = [
    "CAMPAIGN_STATES",
    "FILTER_FIELDS",
    "CampaignAgreement",
    "OpenWork",
    "QualityReport",
    "ShownWork",
    "TaskProgress",
    "annotator_choices",
    "assignment_get",
    "assignment_list",
    "assignment_work",
    "audit_records",
    "campaign_agreement",
    "campaign_get",
    "campaign_list",
    "campaign_may_claim",
    "campaign_open_work",
    "campaign_task_rows",
    "dispute_list",
    "export_get",
    "export_list",
    "is_reviewer",
    "item_get",
    "item_submissions",
    "jsonl_chunks",
    "judge_suggestions",
    "quality_report",
    "tasks_matching_count",
    "training_eligible_tasks",
    "training_task_list",
    "training_versions",
]
