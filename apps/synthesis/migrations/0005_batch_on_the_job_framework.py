# Issue 37: the table moves onto the job framework (apps/jobs); every row is kept.

from django.conf import settings
from django.db import migrations

from apps.jobs.migration_operations import onto_jobs


class Migration(migrations.Migration):
    dependencies = [
        ("synthesis", "0004_batch_campaigns"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The candidates written so far become the job's progress: the column keeps its rows.
        migrations.RenameField(model_name="synthesisbatch", old_name="proposed", new_name="done"),
        *onto_jobs("synthesisbatch"),
    ]
