"""What every job row holds: its status, who asked, when it ran, how far it got, why it failed.

`JobStatus` is the one status enum of every kind. A kind uses the values it needs; the stored
values of the enums it replaced are all here, so no row changed meaning when the kinds moved."""

from __future__ import annotations

from typing import ClassVar, Self

from django.conf import settings
from django.db import models
from django.utils import timezone


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    # An import whose records did not all pass: nothing was written, the reasons are kept.
    REJECTED = "rejected", "Rejected"
    # A training run asked to stop, which saved a checkpoint first (it can resume from it).
    STOPPED = "stopped", "Stopped (checkpoint saved)"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
ENDED = tuple(status for status in JobStatus if status not in ACTIVE)


class Job(models.Model):
    """The lifecycle fields of a job kind's table. `active_at` is the worker's last report
    (the watchdog ends a job silent for longer than its kind allows); `done` of `total` is its
    progress, in the kind's own unit."""

    status = models.CharField(
        max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True
    )
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    active_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)

    # Every kind keeps Django's default manager; declared (not assigned) so that code holding a
    # kind's model as `type[Job]` reaches it. Django adds the manager itself.
    objects: ClassVar[models.Manager[Self]]

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0
