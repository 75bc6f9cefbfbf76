"""The migration operations that put an existing table on the job framework's fields
(apps.jobs.models.Job), shared by the apps' migrations so that each says only which table and
which fields it lacked.

Frozen, like any migration: the fields here are as Job declared them when the kinds moved.
A later change to Job or JobStatus gets migrations of its own, never an edit here."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

STATUS_CHOICES = [
    ("queued", "Queued"),
    ("running", "Running"),
    ("done", "Done"),
    ("rejected", "Rejected"),
    ("stopped", "Stopped (checkpoint saved)"),
    ("failed", "Failed"),
    ("cancelled", "Cancelled"),
]

FIELDS: dict[str, Callable[[], models.Field]] = {  # type: ignore[type-arg]
    "status": lambda: models.CharField(
        choices=STATUS_CHOICES, db_index=True, default="queued", max_length=16
    ),
    "created_by": lambda: models.ForeignKey(
        blank=True,
        null=True,
        on_delete=django.db.models.deletion.SET_NULL,
        related_name="+",
        to=settings.AUTH_USER_MODEL,
    ),
    "started_at": lambda: models.DateTimeField(blank=True, null=True),
    "active_at": lambda: models.DateTimeField(blank=True, null=True),
    "done": lambda: models.PositiveIntegerField(default=0),
    "total": lambda: models.PositiveIntegerField(default=0),
}


def onto_jobs(
    model_name: str, *, added: Sequence[str] = ()
) -> list[migrations.operations.base.Operation]:
    """Add the Job fields the table lacked (`added`), then alter its status (the shared
    choices: every value stored before is one of them, so no row changes) and its owner."""
    operations: list[migrations.operations.base.Operation] = [
        migrations.AddField(model_name=model_name, name=name, field=FIELDS[name]())
        for name in added
    ]
    return operations + [
        migrations.AlterField(model_name=model_name, name=name, field=FIELDS[name]())
        for name in ("created_by", "status")
    ]
