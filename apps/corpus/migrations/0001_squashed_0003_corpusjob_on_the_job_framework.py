"""corpus 0001 to 0003 as one migration (issue 37): the corpus job, a kind of the job framework.

Upgrading: a database must first be at 0003_corpusjob_on_the_job_framework, the previous
release's last corpus migration; Django then records this squash as applied and runs nothing."""

from django.conf import settings
from django.db import migrations, models

from apps.jobs.migration_operations import create_job_model


class Migration(migrations.Migration):
    initial = True

    replaces = [("corpus", "0001_initial"), ("corpus", "0002_alter_corpusjob_kind"), ("corpus", "0003_corpusjob_on_the_job_framework")]

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        create_job_model(
            "CorpusJob",
            [
                ("kind", models.CharField(choices=[("load_wiki", "Load Wikipedia vital articles"), ("load_geo", "Load GeoNames and countryinfo facts"), ("load_domains", "Load the data domains (elements, airports, languages, …)"), ("load_jsonl", "Load a JSONL file"), ("index_bm25", "Build the BM25 index"), ("index_dense", "Build the dense index")], max_length=16)),
                ("stage", models.CharField(blank=True, max_length=100)),
                ("payload", models.BinaryField(blank=True, default=b"")),
                ("filename", models.CharField(blank=True, max_length=255)),
                ("report", models.JSONField(blank=True, default=dict)),
            ],
        ),
    ]
