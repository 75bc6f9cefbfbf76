"""Benchmark runs (issue 39): a job kind with the benchmark, its files, the model and judge,
and the headline metrics."""

from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_job_model


class Migration(migrations.Migration):
    initial = True

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        create_job_model(
            "BenchmarkRun",
            [
                ("benchmark", models.CharField(choices=[("browsecomp-plus", "BrowseComp-Plus"), ("flashrag", "Search-R1 / FlashRAG QA"), ("frames", "FRAMES")], max_length=20)),
                ("data", models.CharField(max_length=500)),
                ("corpus", models.CharField(blank=True, max_length=500)),
                ("model", models.CharField(blank=True, max_length=1000)),
                ("responses", models.CharField(blank=True, max_length=500)),
                ("judge", models.CharField(blank=True, max_length=1000)),
                ("limit", models.PositiveIntegerField(blank=True, null=True)),
                ("dataset", models.CharField(blank=True, max_length=64)),
                ("canary", models.CharField(blank=True, max_length=200)),
                ("get_document", models.BooleanField(default=False)),
                ("queue", models.CharField(max_length=8)),
                ("directory", models.CharField(blank=True, max_length=500)),
                ("stage", models.CharField(blank=True, max_length=200)),
                ("setup", models.JSONField(default=dict)),
                ("metrics", models.JSONField(default=dict)),
            ],
        ),
    ]
