from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class JobKind(models.TextChoices):
    LOAD_WIKI = "load_wiki", "Load Wikipedia vital articles"
    LOAD_GEO = "load_geo", "Load GeoNames and countryinfo facts"
    LOAD_DOMAINS = "load_domains", "Load the data domains (elements, airports, languages, …)"
    LOAD_JSONL = "load_jsonl", "Load a JSONL file"
    INDEX_BM25 = "index_bm25", "Build the BM25 index"
    INDEX_DENSE = "index_dense", "Build the dense index"


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class CorpusJob(models.Model):
    """A corpus load or index build, run by a worker on the cpu queue, with its progress."""

    kind = models.CharField(max_length=16, choices=JobKind.choices)
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    stage = models.CharField(max_length=100, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # A JSONL upload waits here until the worker has read it.
    payload = models.BinaryField(blank=True, default=b"")
    filename = models.CharField(max_length=255, blank=True)
    report = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.status})"

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0
