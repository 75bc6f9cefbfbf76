"""The tables as the apps' migrations create them: any table with the id every table of the
project has, and a job kind's table with the job framework's fields (apps.jobs.models.Job) too,
written here once, so that each app's migration says only the fields its models add.

Frozen, like any migration: the fields here are as Job declared them when the apps' migrations
were squashed (issue 37). A later change to Job or JobStatus gets migrations of its own in each
app, never an edit here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import django.db.models.deletion
import django.utils.timezone
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

# In Job's order. Functions, not fields: each table needs field instances of its own.
FIELDS: dict[str, Callable[[], models.Field]] = {  # type: ignore[type-arg]
    "status": lambda: models.CharField(
        choices=STATUS_CHOICES, db_index=True, default="queued", max_length=16
    ),
    "error": lambda: models.TextField(blank=True),
    "created_by": lambda: models.ForeignKey(
        blank=True,
        null=True,
        on_delete=django.db.models.deletion.SET_NULL,
        related_name="+",
        to=settings.AUTH_USER_MODEL,
    ),
    "created_at": lambda: models.DateTimeField(default=django.utils.timezone.now),
    "started_at": lambda: models.DateTimeField(blank=True, null=True),
    "active_at": lambda: models.DateTimeField(blank=True, null=True),
    "finished_at": lambda: models.DateTimeField(blank=True, null=True),
    "done": lambda: models.PositiveIntegerField(default=0),
    "total": lambda: models.PositiveIntegerField(default=0),
}


def create_model(
    name: str,
    fields: Sequence[tuple[str, models.Field]],  # type: ignore[type-arg]
    *,
    options: dict[str, Any] | None = None,
) -> migrations.CreateModel:
    """Create the model `name`: its id (the project's DEFAULT_AUTO_FIELD), then its `fields`."""
    primary_key = models.BigAutoField(
        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
    )
    return migrations.CreateModel(
        name=name, fields=[("id", primary_key), *fields], options=options or {}
    )


def create_job_model(
    name: str,
    fields: Sequence[tuple[str, models.Field]],  # type: ignore[type-arg]
    *,
    options: dict[str, Any] | None = None,
) -> migrations.CreateModel:
    """Create the job kind `name`: Job's fields, then the kind's own `fields`; its rows are
    ordered as Job orders them unless `options` says otherwise."""
    return create_model(
        name,
        [*((field, make()) for field, make in FIELDS.items()), *fields],
        options={"ordering": ["-created_at", "-id"], **(options or {})},
    )
