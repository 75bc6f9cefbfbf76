"""rubrics 0001 to 0004 as one migration (issue 37): tasks, their rubric versions, and the two
job kinds that import tasks and probe versions.

Upgrading: a database must first be at 0004_imports_and_probes_on_the_job_framework, the
previous release's last rubrics migration; Django then records this squash as applied and runs
nothing."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_job_model, create_model


class Migration(migrations.Migration):
    initial = True

    replaces = [("rubrics", "0001_initial"), ("rubrics", "0002_probe_runs"), ("rubrics", "0003_import_started_at"), ("rubrics", "0004_imports_and_probes_on_the_job_framework")]

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        # A version and its task point at each other: the version's task comes once both exist.
        create_model(
            "RubricVersion",
            [
                ("number", models.PositiveIntegerField()),
                ("tree", models.JSONField()),
                ("stats", models.JSONField(default=dict)),
                ("note", models.CharField(blank=True, max_length=500)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("author", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ("parent", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to="rubrics.rubricversion")),
            ],
            options={"ordering": ["task", "number"]},
        ),
        create_model(
            "Task",
            [
                ("question", models.TextField()),
                ("type", models.CharField(choices=[("objective", "Objective"), ("open_ended", "Open-ended")], default="objective", max_length=16)),
                ("category", models.CharField(blank=True, db_index=True, max_length=64)),
                ("subcategory", models.CharField(blank=True, db_index=True, max_length=64)),
                ("complexity", models.CharField(blank=True, choices=[("", "Unknown"), ("C1", "C1 (B1·D1)"), ("C2", "C2 (B1·D2)"), ("C3", "C3 (B1·D3)"), ("C4", "C4 (B2·D1)"), ("C5", "C5 (B2·D2)"), ("C6", "C6 (B2·D3)"), ("C7", "C7 (B3·D1)"), ("C8", "C8 (B3·D2)"), ("C9", "C9 (B3·D3)")], max_length=2)),
                ("solution", models.JSONField(blank=True, default=dict)),
                ("reference_answer", models.TextField(blank=True)),
                ("provenance", models.JSONField(blank=True, default=dict)),
                ("audit_state", models.CharField(choices=[("unaudited", "Not audited"), ("accepted", "Accepted"), ("fix_accepted", "Fixed and accepted"), ("rejected", "Rejected")], db_index=True, default="unaudited", max_length=16)),
                ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                ("current_version", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="rubrics.rubricversion")),
            ],
            options={"ordering": ["-created_at", "-id"]},
        ),
        migrations.AddField(
            model_name="rubricversion",
            name="task",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="versions", to="rubrics.task"),
        ),
        migrations.AddConstraint(
            model_name="rubricversion",
            constraint=models.UniqueConstraint(fields=("task", "number"), name="rubric_version_number_unique"),
        ),
        create_job_model(
            "ProbeRun",
            [
                ("verdict", models.CharField(blank=True, choices=[("", "Not decided"), ("sound", "Sound"), ("unsound", "Unsound"), ("undecided", "Undecided")], max_length=16)),
                ("report", models.JSONField(blank=True, default=dict)),
                ("judge", models.CharField(blank=True, max_length=200)),
                ("version", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="probe_runs", to="rubrics.rubricversion")),
                ("task", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="probe_runs", to="rubrics.task")),
            ],
            options={"indexes": [models.Index(fields=["version", "-created_at"], name="probe_run_version_latest")]},
        ),
        create_job_model(
            "TaskImport",
            [
                ("filename", models.CharField(max_length=255)),
                ("payload", models.BinaryField()),
                ("imported", models.PositiveIntegerField(default=0)),
                ("rejected", models.JSONField(default=list)),
            ],
            options={"ordering": ["-created_at"]},
        ),
    ]
