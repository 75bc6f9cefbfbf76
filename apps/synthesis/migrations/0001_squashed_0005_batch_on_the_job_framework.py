"""synthesis 0001 to 0005 as one migration (issue 37): the batch (a job kind), its candidates
and the audit campaigns it made.

Upgrading: a database must first be at 0005_batch_on_the_job_framework, the previous release's
last synthesis migration; Django then records this squash as applied and runs nothing. 0004's
data step, which linked the campaigns made before batches kept theirs, is not carried over: a
database that had such rows has run it, and a new one has none."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_job_model, create_model


class Migration(migrations.Migration):
    initial = True

    replaces = [("synthesis", "0001_initial"), ("synthesis", "0002_batch_keywords"), ("synthesis", "0003_batch_shards"), ("synthesis", "0004_batch_campaigns"), ("synthesis", "0005_batch_on_the_job_framework")]

    dependencies = [
        ("audit", "0001_squashed_0003_exportjob_on_the_job_framework"),
        ("rubrics", "0001_squashed_0004_imports_and_probes_on_the_job_framework"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        create_job_model(
            "SynthesisBatch",
            [
                ("spec", models.JSONField()),
                ("model", models.CharField(blank=True, max_length=200)),
                ("keywords", models.JSONField(blank=True, default=list)),
                ("accepted", models.PositiveIntegerField(default=0)),
                ("shards", models.PositiveIntegerField(default=0)),
                ("shard_size", models.PositiveIntegerField(default=0)),
                ("shards_done", models.PositiveIntegerField(default=0)),
            ],
            options={"verbose_name_plural": "synthesis batches"},
        ),
        create_model(
            "BatchCampaign",
            [
                ("campaign", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="synthesis_link", to="audit.campaign")),
                ("batch", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="campaign_links", to="synthesis.synthesisbatch")),
            ],
        ),
        create_model(
            "SynthesisCandidate",
            [
                ("index", models.PositiveIntegerField()),
                ("question", models.TextField()),
                ("target_class", models.CharField(blank=True, max_length=2)),
                ("complexity", models.CharField(blank=True, max_length=2)),
                ("category", models.CharField(blank=True, max_length=64)),
                ("subcategory", models.CharField(blank=True, max_length=64)),
                ("accepted", models.BooleanField(default=False)),
                ("rejected_at", models.CharField(blank=True, max_length=32)),
                ("reason", models.TextField(blank=True)),
                ("stages", models.JSONField(default=list)),
                ("record", models.JSONField(default=dict)),
                ("decision", models.CharField(choices=[("auto", "By the funnel"), ("accepted_by_hand", "Accepted by hand"), ("rejected_by_hand", "Rejected by hand")], default="auto", max_length=20)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("decision_note", models.CharField(blank=True, max_length=500)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("batch", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="candidates", to="synthesis.synthesisbatch")),
                ("decided_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("task", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="synthesis_candidates", to="rubrics.task")),
            ],
            options={
                "ordering": ["batch", "index"],
                "indexes": [models.Index(fields=["batch", "accepted", "index"], name="synthesis_cand_accepted"), models.Index(fields=["batch", "rejected_at", "index"], name="synthesis_cand_stage")],
                "constraints": [models.UniqueConstraint(fields=("batch", "index"), name="synthesis_candidate_index")],
            },
        ),
    ]
