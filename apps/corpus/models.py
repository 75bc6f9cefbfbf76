from __future__ import annotations

from django.db import models

from apps.jobs.models import Job


class JobKind(models.TextChoices):
    LOAD_WIKI = "load_wiki", "Load Wikipedia vital articles"
    LOAD_GEO = "load_geo", "Load GeoNames and countryinfo facts"
    LOAD_DOMAINS = "load_domains", "Load the data domains (elements, airports, languages, …)"
    LOAD_JSONL = "load_jsonl", "Load a JSONL file"
    INDEX_BM25 = "index_bm25", "Build the BM25 index"
    INDEX_DENSE = "index_dense", "Build the dense index"


class CorpusJob(Job):
    """A corpus load or index build, run by a worker on the cpu queue, with its progress
    (`done` of `total` within its current `stage`)."""

    kind = models.CharField(max_length=16, choices=JobKind.choices)
    stage = models.CharField(max_length=100, blank=True)
    # A JSONL upload waits here until the worker has read it.
    payload = models.BinaryField(blank=True, default=b"")
    filename = models.CharField(max_length=255, blank=True)
    report = models.JSONField(default=dict, blank=True)

    class Meta(Job.Meta):
        pass

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.status})"
