"""live 0001 to 0003 as one migration (issue 37): the model endpoints, and the live sessions
with their events and trajectory.

Upgrading: a database must first be at 0003_session_pace, the previous release's last live
migration; Django then records this squash as applied and runs nothing."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_model


class Migration(migrations.Migration):
    initial = True

    replaces = [("live", "0001_initial"), ("live", "0002_trajectory"), ("live", "0003_session_pace")]

    dependencies = [
        ("rubrics", "0001_squashed_0004_imports_and_probes_on_the_job_framework"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        create_model(
            "LLMEndpoint",
            [
                ("name", models.CharField(max_length=100, unique=True)),
                ("base_url", models.URLField(max_length=500)),
                ("model", models.CharField(max_length=200)),
                ("api_key", models.CharField(blank=True, max_length=500)),
                ("enabled", models.BooleanField(default=True)),
                ("priority", models.IntegerField(default=100, help_text="lower is tried first")),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"ordering": ("priority", "name")},
        ),
        create_model(
            "Session",
            [
                ("public_id", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ("question", models.TextField()),
                ("policy", models.CharField(choices=[("scripted", "scripted (LLM-free researcher)"), ("llm", "LLM (QUEST protocol)")], default="scripted", max_length=16)),
                ("model", models.CharField(blank=True, max_length=200)),
                ("budgets", models.JSONField(default=dict)),
                ("pace", models.CharField(choices=[("real_time", "real time"), ("1_step_per_s", "1 step per second")], default="real_time", max_length=16)),
                ("status", models.CharField(choices=[("queued", "Queued"), ("running", "Running"), ("stopping", "Stopping"), ("finished", "Finished"), ("failed", "Failed"), ("stalled", "Stalled")], default="queued", max_length=16)),
                ("visibility", models.CharField(choices=[("private", "Private"), ("public", "public (every signed-in user can watch)")], default="public", max_length=16)),
                ("stop_requested", models.BooleanField(default=False)),
                ("last_seq", models.PositiveIntegerField(default=0)),
                ("answer", models.TextField(blank=True)),
                ("result", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("active_at", models.DateTimeField(blank=True, null=True)),
                ("owner", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="sessions", to=settings.AUTH_USER_MODEL)),
                ("task", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="sessions", to="rubrics.task")),
            ],
            options={
                "ordering": ("-created_at",),
                "indexes": [models.Index(fields=["status", "active_at"], name="live_sessio_status_f26b69_idx")],
            },
        ),
        create_model(
            "Event",
            [
                ("seq", models.PositiveIntegerField()),
                ("type", models.CharField(max_length=32)),
                ("payload", models.JSONField(default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("session", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="events", to="live.session")),
            ],
            options={
                "ordering": ("session", "seq"),
                "constraints": [models.UniqueConstraint(fields=("session", "seq"), name="live_event_seq_unique")],
            },
        ),
        create_model(
            "Trajectory",
            [
                ("rollout_id", models.CharField(max_length=64)),
                ("records", models.JSONField(default=list)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("session", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="trajectory", to="live.session")),
            ],
        ),
    ]
