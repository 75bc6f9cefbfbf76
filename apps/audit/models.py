"""Audit campaigns: which tasks are audited, who holds which one, what they said, and what was
finally decided. The decision of a task's campaign item is the training gate's source of truth."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from apps.jobs.models import Job
from quest.audit.taxonomy import DECISIONS, ERROR_TYPES, VERDICTS

VERDICT_CHOICES = list(VERDICTS.items())
DECISION_CHOICES = list(DECISIONS.items())
ERROR_TYPE_CHOICES = list(ERROR_TYPES.items())


class CampaignStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class Campaign(models.Model):
    """A set of tasks (chosen by a filter when the campaign is created), each to be audited by
    `annotators_per_task` different people."""

    name = models.CharField(max_length=200)
    instructions = models.TextField(blank=True)
    # The task filter it was created from (category, complexity, generator, batch, ...).
    filters = models.JSONField(default=dict, blank=True)
    annotators_per_task = models.PositiveSmallIntegerField(default=2)
    lock_minutes = models.PositiveIntegerField(default=30)
    status = models.CharField(
        max_length=8, choices=CampaignStatus.choices, default=CampaignStatus.OPEN
    )
    # Who may claim its tasks; nobody listed means every annotator.
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="audit_campaigns"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ItemState(models.TextChoices):
    OPEN = "open", "Waiting for annotators"
    DISPUTED = "disputed", "Needs a reviewer"
    DECIDED = "decided", "Decided"


class CampaignTask(models.Model):
    """One task of a campaign, audited from `start_version`."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    task = models.ForeignKey("rubrics.Task", on_delete=models.CASCADE, related_name="audit_items")
    position = models.PositiveIntegerField()
    start_version = models.ForeignKey(
        "rubrics.RubricVersion", on_delete=models.PROTECT, related_name="+"
    )
    state = models.CharField(max_length=8, choices=ItemState.choices, default=ItemState.OPEN)
    submitted = models.PositiveSmallIntegerField(default=0)
    decision = models.CharField(max_length=10, choices=DECISION_CHOICES, blank=True)
    # The version training uses when the decision accepts the task.
    final_version = models.ForeignKey(
        "rubrics.RubricVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The reviewer who decided; empty when the annotators agreed.
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    review_comment = models.TextField(blank=True)

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "task"], name="audit_item_task_unique")
        ]
        indexes = [
            models.Index(fields=["campaign", "state", "position"], name="audit_item_queue"),
            models.Index(fields=["task", "-decided_at"], name="audit_item_decided"),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.task_id}"


class AssignmentStatus(models.TextChoices):
    ACTIVE = "active", "In progress"
    SUBMITTED = "submitted", "Submitted"
    RELEASED = "released", "Released"


class Assignment(models.Model):
    """One annotator's audit of one item. While active it holds a slot until `lock_expires_at`;
    an expired lock frees the slot for someone else but keeps the draft."""

    item = models.ForeignKey(CampaignTask, on_delete=models.CASCADE, related_name="assignments")
    # Denormalised from item so "one active assignment per person and campaign" is a constraint.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="audit_assignments"
    )
    status = models.CharField(
        max_length=10, choices=AssignmentStatus.choices, default=AssignmentStatus.ACTIVE
    )
    claimed_at = models.DateTimeField(default=timezone.now)
    lock_expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    # The version the verdicts and the decision were made on.
    version = models.ForeignKey(
        "rubrics.RubricVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decision = models.CharField(max_length=10, choices=DECISION_CHOICES, blank=True)
    comment = models.TextField(blank=True)
    # Unsubmitted verdicts, comments and decision, saved as the annotator works.
    draft = models.JSONField(default=dict, blank=True)
    # Raised by every accepted draft save; a save names the revision it was based on, so a tab
    # or device that fell behind cannot overwrite newer work (see services/drafts.py).
    draft_revision = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-claimed_at"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="audit_one_per_person"),
            models.UniqueConstraint(
                fields=["campaign", "annotator"],
                condition=Q(status="active"),
                name="audit_one_active_per_campaign",
            ),
        ]
        indexes = [models.Index(fields=["annotator", "status"], name="audit_assignment_user")]

    def __str__(self) -> str:
        return f"{self.annotator_id} on {self.item_id} ({self.status})"


class DraftRevision(models.Model):
    """An earlier revision of an assignment's draft (the current one is `Assignment.draft`),
    kept so a save based on it can be compared three ways: what changed in that tab, what
    changed elsewhere. Only the last few are kept; they go when the task is submitted."""

    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="draft_revisions"
    )
    number = models.PositiveIntegerField()
    draft = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "number"], name="audit_draft_revision_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id} r{self.number}"


class NodeVerdict(models.Model):
    """What one annotator said about one node. The node's kind is kept so agreement can be
    split by node type without loading trees."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="verdicts")
    node_id = models.CharField(max_length=64)
    verdict = models.CharField(max_length=12, choices=VERDICT_CHOICES)
    error_type = models.CharField(max_length=20, choices=ERROR_TYPE_CHOICES, blank=True)
    comment = models.TextField(blank=True)
    is_leaf = models.BooleanField()
    critical = models.BooleanField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "node_id"], name="audit_verdict_unique")
        ]

    def __str__(self) -> str:
        return f"{self.node_id}: {self.verdict}"


class GoldVerdict(models.Model):
    """A reviewer's final word on a node the annotators disagreed about."""

    item = models.ForeignKey(CampaignTask, on_delete=models.CASCADE, related_name="gold")
    node_id = models.CharField(max_length=64)
    verdict = models.CharField(max_length=12, choices=VERDICT_CHOICES)
    error_type = models.CharField(max_length=20, choices=ERROR_TYPE_CHOICES, blank=True)
    comment = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "node_id"], name="audit_gold_unique")
        ]

    def __str__(self) -> str:
        return f"{self.item_id}/{self.node_id}: {self.verdict}"


class JudgeVerdict(models.Model):
    """An LLM judge's verdict on a leaf when it scored the task's reference solution: shown to
    auditors as a suggestion and compared with their verdicts."""

    task = models.ForeignKey("rubrics.Task", on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey("rubrics.RubricVersion", on_delete=models.CASCADE, related_name="+")
    node_id = models.CharField(max_length=64)
    status = models.CharField(max_length=8)  # pass | fail | error | skipped
    reasoning = models.TextField(blank=True)
    judge = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "node_id"], name="audit_judge_unique")
        ]
        indexes = [models.Index(fields=["task"], name="audit_judge_task")]

    def __str__(self) -> str:
        return f"{self.version_id}/{self.node_id}: {self.status}"


class ExportFormat(models.TextChoices):
    PARQUET = "parquet", "Parquet"
    HF = "hf", "Hugging Face datasets (zip)"


class ExportJob(Job):
    """A parquet file or a `datasets` directory of audited tasks, built on the cpu queue."""

    format = models.CharField(max_length=8, choices=ExportFormat.choices)
    campaign = models.ForeignKey(Campaign, null=True, blank=True, on_delete=models.SET_NULL)
    rows = models.PositiveIntegerField(default=0)
    filename = models.CharField(max_length=255, blank=True)

    class Meta(Job.Meta):
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Export {self.pk} ({self.format}, {self.status})"
