"""Each app's migrations are one squash (issue 37): a new database gets the models exactly, and a
database the previous release migrated to its end runs only the migrations written since."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

pytestmark = pytest.mark.django_db

# Where the previous release's migrations ended, app by app.
PREVIOUS_RELEASE = {
    "accounts": "0002_use_llm_permission",
    "audit": "0003_exportjob_on_the_job_framework",
    "corpus": "0003_corpusjob_on_the_job_framework",
    "live": "0003_session_pace",
    "rubrics": "0004_imports_and_probes_on_the_job_framework",
    "synthesis": "0005_batch_on_the_job_framework",
    "training": "0003_work_on_the_job_framework",
}
# Migrations written since that release: an upgraded database runs these, and only these.
SINCE_RELEASE = {
    ("live", "0004_session_checkpoint"),
    ("recipes", "0002_recipe_on_the_job_framework"),
    ("benchmarks", "0001_initial"),
}


def test_the_migrations_leave_nothing_for_makemigrations_to_write() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_a_database_at_the_previous_releases_end_has_nothing_to_apply() -> None:
    squashes = MigrationExecutor(connection).loader.replacements
    assert {app for app, _ in squashes} == set(PREVIOUS_RELEASE)
    recorded = MigrationRecorder.Migration.objects
    recorded.filter(app__in=PREVIOUS_RELEASE).delete()
    recorded.bulk_create(
        MigrationRecorder.Migration(app=app, name=name)
        for squash in squashes.values()
        for app, name in squash.replaces
    )
    assert set(PREVIOUS_RELEASE.items()) <= set(recorded.values_list("app", "name"))

    executor = MigrationExecutor(connection)
    assert set(squashes) <= set(executor.loader.applied_migrations)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    assert {(migration.app_label, migration.name) for migration, _ in plan} <= SINCE_RELEASE
