# Issue 37: the table moves onto the job framework (apps/jobs); every row is kept.

from django.conf import settings
from django.db import migrations

from apps.jobs.migration_operations import onto_jobs


class Migration(migrations.Migration):
    dependencies = [
        ("corpus", "0002_alter_corpusjob_kind"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = onto_jobs("corpusjob", added=["active_at"])
