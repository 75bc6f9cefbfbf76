"""Recipes moved onto the job framework (issue 37) with their rows: a database that held recipes
before the move reads the same statuses after it."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db

BEFORE = ("recipes", "0001_initial")
AFTER = ("recipes", "0002_recipe_on_the_job_framework")
AT = "2026-01-01T00:00:00+00:00"
_RECIPE = ("recipes", "Recipe")


def _migrated(target: tuple[str, str]) -> Any:
    """The Recipe model as it stands at `target`, once the database is migrated there."""
    with connection.cursor() as cursor:
        # The rows written inside this test's transaction are checked now, not at its end:
        # PostgreSQL alters no table that has checks pending.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    MigrationExecutor(connection).migrate([target])
    return MigrationExecutor(connection).loader.project_state(target).apps.get_model(*_RECIPE)


def test_a_recipe_waiting_at_its_gate_reads_as_waiting_after_the_move() -> None:
    from apps.recipes.models import Recipe

    old = _migrated(BEFORE)
    done = {"started_at": AT, "finished_at": AT}
    stages = {"synth": done, "gate": {"started_at": AT, "note": "waiting for the audit"}}
    rows = {
        "waiting": old.objects.create(
            name="w", config={}, stage="gate", status="waiting", stages=stages
        ).pk,
        "failed": old.objects.create(
            name="f", config={}, stage="sft", status="failed", error="SFT: no GPU", stages={}
        ).pk,
    }
    _migrated(AFTER)

    waiting = Recipe.objects.get(pk=rows["waiting"])
    assert (waiting.status, waiting.waiting, waiting.shown_status) == ("running", True, "waiting")
    assert (waiting.done, waiting.total, waiting.percent) == (1, 7, 14), "one stage of seven ended"
    assert waiting.started_at == waiting.created_at
    failed = Recipe.objects.get(pk=rows["failed"])
    assert (failed.shown_status, failed.error, failed.waiting) == ("failed", "SFT: no GPU", False)


def test_moving_back_gives_a_waiting_recipe_its_old_status() -> None:
    new = _migrated(AFTER)
    pk = new.objects.create(
        name="w", config={}, stage="gate", status="running", waiting=True, total=7
    ).pk
    old = _migrated(BEFORE)
    assert old.objects.get(pk=pk).status == "waiting"
    _migrated(AFTER)
