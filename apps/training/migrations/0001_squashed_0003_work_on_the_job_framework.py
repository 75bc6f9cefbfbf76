"""training 0001 to 0003 as one migration (issue 37): datasets, training runs and evaluations
(three job kinds), with the presets, metrics and rollouts of a run.

Upgrading: a database must first be at 0003_work_on_the_job_framework, the previous release's
last training migration; Django then records this squash as applied and runs nothing."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_job_model, create_model


class Migration(migrations.Migration):
    initial = True

    replaces = [("training", "0001_initial"), ("training", "0002_evaluation_tasks_asked"), ("training", "0003_work_on_the_job_framework")]

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        create_job_model(
            "TrainingDataset",
            [
                ("name", models.CharField(max_length=120)),
                ("kind", models.CharField(choices=[("rl", "RL prompts"), ("sft", "SFT sessions"), ("mid", "Mid-training pairs")], max_length=8)),
                ("params", models.JSONField(default=dict)),
                ("directory", models.CharField(blank=True, max_length=500)),
                ("rows", models.PositiveIntegerField(default=0)),
                ("task_ids", models.JSONField(default=list)),
                ("stats", models.JSONField(default=dict)),
            ],
        ),
        create_job_model(
            "TrainingJob",
            [
                ("name", models.CharField(max_length=120)),
                ("kind", models.CharField(choices=[("mid", "Mid-training"), ("sft", "SFT"), ("grpo", "GRPO")], max_length=8)),
                ("config", models.JSONField()),
                ("cancel_requested", models.BooleanField(default=False)),
                ("step", models.PositiveIntegerField(default=0)),
                ("max_steps", models.PositiveIntegerField(default=0)),
                ("summary", models.JSONField(blank=True, default=dict)),
                ("worker", models.CharField(blank=True, max_length=200)),
                ("pid", models.IntegerField(blank=True, null=True)),
                ("dataset", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="jobs", to="training.trainingdataset")),
                ("resumed_from", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="resumes", to="training.trainingjob")),
            ],
        ),
        create_job_model(
            "Evaluation",
            [
                ("checkpoint", models.CharField(max_length=500)),
                ("base_model", models.CharField(blank=True, max_length=500)),
                ("task_ids", models.JSONField(default=list)),
                ("tasks_asked", models.PositiveIntegerField(blank=True, null=True)),
                ("budgets", models.JSONField(default=dict)),
                ("cancel_requested", models.BooleanField(default=False)),
                ("results", models.JSONField(blank=True, default=dict)),
                ("job", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="evaluations", to="training.trainingjob")),
            ],
        ),
        create_model(
            "TrainingPreset",
            [
                ("name", models.CharField(max_length=120, unique=True)),
                ("config", models.JSONField()),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["name"]},
        ),
        create_model(
            "TrainingMetric",
            [
                ("line", models.PositiveIntegerField()),
                ("step", models.PositiveIntegerField()),
                ("kind", models.CharField(choices=[("step", "Step"), ("summary", "Summary")], default="step", max_length=8)),
                ("values", models.JSONField()),
                ("job", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="metrics", to="training.trainingjob")),
            ],
            options={
                "ordering": ["job", "line"],
                "constraints": [models.UniqueConstraint(fields=("job", "line"), name="training_metric_line")],
            },
        ),
        create_model(
            "TrainingRollout",
            [
                ("line", models.PositiveIntegerField()),
                ("step", models.PositiveIntegerField()),
                ("index", models.PositiveIntegerField()),
                ("question", models.TextField()),
                ("completion", models.TextField()),
                ("status", models.CharField(blank=True, max_length=16)),
                ("reward", models.FloatField(null=True)),
                ("base", models.FloatField(null=True)),
                ("citation", models.FloatField(null=True)),
                ("valid_rate", models.FloatField(null=True)),
                ("leaves_passed", models.PositiveIntegerField(null=True)),
                ("leaves_total", models.PositiveIntegerField(null=True)),
                ("reason", models.TextField(blank=True)),
                ("job", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="rollouts", to="training.trainingjob")),
            ],
            options={
                "ordering": ["job", "line"],
                "indexes": [models.Index(fields=["job", "step"], name="training_rollout_step")],
                "constraints": [models.UniqueConstraint(fields=("job", "line"), name="training_rollout_line")],
            },
        ),
    ]
