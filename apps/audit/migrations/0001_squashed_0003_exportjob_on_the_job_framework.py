"""audit 0001 to 0003 as one migration (issue 37): campaigns, their tasks, the annotators'
assignments and verdicts, the gold and judge verdicts, and the export job (a job kind).

Upgrading: a database must first be at 0003_exportjob_on_the_job_framework, the previous
release's last audit migration; Django then records this squash as applied and runs nothing."""

from __future__ import annotations

from typing import Any

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_job_model, create_model

DECISIONS = [("accept", "Accept"), ("fix_accept", "Fix and accept"), ("reject", "Reject")]
VERDICTS = [("correct", "Correct"), ("wrong", "Wrong"), ("unverifiable", "Unverifiable")]
ERROR_TYPES = [
    ("hard_coded_answer", "Hard-coded answer"),
    ("not_atomic", "Not atomic"),
    ("wrong_critical", "Wrong critical flag"),
    ("wrong_strategy", "Wrong strategy"),
    ("duplicate", "Duplicate"),
    ("missing_constraint", "Missing constraint"),
    ("factually_wrong", "Factually wrong"),
    ("other", "Other"),
]


def node_verdict_fields() -> list[tuple[str, models.Field[Any, Any]]]:
    """What a gold verdict and an annotator's verdict both say about one node of a tree."""
    return [
        ("node_id", models.CharField(max_length=64)),
        ("verdict", models.CharField(choices=VERDICTS, max_length=12)),
        ("error_type", models.CharField(blank=True, choices=ERROR_TYPES, max_length=20)),
        ("comment", models.TextField(blank=True)),
    ]


class Migration(migrations.Migration):
    initial = True

    replaces = [("audit", "0001_initial"), ("audit", "0002_draft_revisions"), ("audit", "0003_exportjob_on_the_job_framework")]

    dependencies = [
        ("rubrics", "0001_squashed_0004_imports_and_probes_on_the_job_framework"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        create_model(
            "Campaign",
            [
                ("name", models.CharField(max_length=200)),
                ("instructions", models.TextField(blank=True)),
                ("filters", models.JSONField(blank=True, default=dict)),
                ("annotators_per_task", models.PositiveSmallIntegerField(default=2)),
                ("lock_minutes", models.PositiveIntegerField(default=30)),
                ("status", models.CharField(choices=[("open", "Open"), ("closed", "Closed")], default="open", max_length=8)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("annotators", models.ManyToManyField(blank=True, related_name="audit_campaigns", to=settings.AUTH_USER_MODEL)),
                ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["-created_at", "-id"]},
        ),
        create_model(
            "CampaignTask",
            [
                ("position", models.PositiveIntegerField()),
                ("state", models.CharField(choices=[("open", "Waiting for annotators"), ("disputed", "Needs a reviewer"), ("decided", "Decided")], default="open", max_length=8)),
                ("submitted", models.PositiveSmallIntegerField(default=0)),
                ("decision", models.CharField(blank=True, choices=DECISIONS, max_length=10)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("review_comment", models.TextField(blank=True)),
                ("campaign", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="items", to="audit.campaign")),
                ("decided_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("final_version", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="rubrics.rubricversion")),
                ("start_version", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="+", to="rubrics.rubricversion")),
                ("task", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="audit_items", to="rubrics.task")),
            ],
            options={
                "ordering": ["campaign", "position"],
                "indexes": [models.Index(fields=["campaign", "state", "position"], name="audit_item_queue"), models.Index(fields=["task", "-decided_at"], name="audit_item_decided")],
                "constraints": [models.UniqueConstraint(fields=("campaign", "task"), name="audit_item_task_unique")],
            },
        ),
        create_model(
            "Assignment",
            [
                ("status", models.CharField(choices=[("active", "In progress"), ("submitted", "Submitted"), ("released", "Released")], default="active", max_length=10)),
                ("claimed_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("lock_expires_at", models.DateTimeField()),
                ("submitted_at", models.DateTimeField(blank=True, null=True)),
                ("decision", models.CharField(blank=True, choices=DECISIONS, max_length=10)),
                ("comment", models.TextField(blank=True)),
                ("draft", models.JSONField(blank=True, default=dict)),
                ("draft_revision", models.PositiveIntegerField(default=0)),
                ("annotator", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="audit_assignments", to=settings.AUTH_USER_MODEL)),
                ("version", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="rubrics.rubricversion")),
                ("campaign", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="assignments", to="audit.campaign")),
                ("item", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="assignments", to="audit.campaigntask")),
            ],
            options={
                "ordering": ["-claimed_at"],
                "indexes": [models.Index(fields=["annotator", "status"], name="audit_assignment_user")],
                "constraints": [
                    models.UniqueConstraint(fields=("item", "annotator"), name="audit_one_per_person"),
                    models.UniqueConstraint(condition=models.Q(("status", "active")), fields=("campaign", "annotator"), name="audit_one_active_per_campaign"),
                ],
            },
        ),
        create_model(
            "DraftRevision",
            [
                ("number", models.PositiveIntegerField()),
                ("draft", models.JSONField(blank=True, default=dict)),
                ("assignment", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="draft_revisions", to="audit.assignment")),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("assignment", "number"), name="audit_draft_revision_unique")],
            },
        ),
        create_job_model(
            "ExportJob",
            [
                ("format", models.CharField(choices=[("parquet", "Parquet"), ("hf", "Hugging Face datasets (zip)")], max_length=8)),
                ("rows", models.PositiveIntegerField(default=0)),
                ("filename", models.CharField(blank=True, max_length=255)),
                ("campaign", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to="audit.campaign")),
            ],
            options={"ordering": ["-created_at"]},
        ),
        create_model(
            "GoldVerdict",
            [
                *node_verdict_fields(),
                ("decided_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("decided_by", models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("item", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="gold", to="audit.campaigntask")),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("item", "node_id"), name="audit_gold_unique")],
            },
        ),
        create_model(
            "JudgeVerdict",
            [
                ("node_id", models.CharField(max_length=64)),
                ("status", models.CharField(max_length=8)),
                ("reasoning", models.TextField(blank=True)),
                ("judge", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("task", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="rubrics.task")),
                ("version", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="rubrics.rubricversion")),
            ],
            options={
                "indexes": [models.Index(fields=["task"], name="audit_judge_task")],
                "constraints": [models.UniqueConstraint(fields=("version", "node_id"), name="audit_judge_unique")],
            },
        ),
        create_model(
            "NodeVerdict",
            [
                *node_verdict_fields(),
                ("is_leaf", models.BooleanField()),
                ("critical", models.BooleanField()),
                ("assignment", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="verdicts", to="audit.assignment")),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("assignment", "node_id"), name="audit_verdict_unique")],
            },
        ),
    ]
