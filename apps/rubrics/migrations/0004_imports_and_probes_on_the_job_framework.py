# Issue 37: the table moves onto the job framework (apps/jobs); every row is kept.

from django.conf import settings
from django.db import migrations

from apps.jobs.migration_operations import onto_jobs


class Migration(migrations.Migration):
    dependencies = [
        ("rubrics", "0003_import_started_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The records checked so far become the job's progress: the column keeps its rows.
        migrations.RenameField(model_name="taskimport", old_name="processed", new_name="done"),
        *onto_jobs("taskimport", added=["active_at"]),
        *onto_jobs("proberun", added=["active_at", "done", "started_at", "total"]),
    ]
