"""A benchmark run: one model (or a file of saved responses) on one benchmark file, run by the
engine (quest.bench) into its own directory under settings.BENCHMARKS_DIR (runs/<id>/: the
rows as each question finishes, results.json, the corpus index). The database keeps what the
pages list and compare: the setup and the headline metrics with their intervals."""

from __future__ import annotations

from django.db import models

from apps.jobs.models import Job


class Benchmark(models.TextChoices):
    BROWSECOMP_PLUS = "browsecomp-plus", "BrowseComp-Plus"
    FLASHRAG = "flashrag", "Search-R1 / FlashRAG QA"
    FRAMES = "frames", "FRAMES"


class BenchmarkRun(Job):
    """Its progress counts questions. Paths are absolute server paths (the worker reads them);
    the pages and REST show them relative to the benchmarks directory."""

    benchmark = models.CharField(max_length=20, choices=Benchmark.choices)
    data = models.CharField(max_length=500)
    corpus = models.CharField(max_length=500, blank=True)
    # A checkpoint directory, "scripted", a backend spec or endpoints (URL|MODEL[|KEY_ENV]);
    # empty when saved responses are scored instead.
    model = models.CharField(max_length=1000, blank=True)
    responses = models.CharField(max_length=500, blank=True)
    judge = models.CharField(max_length=1000, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)
    dataset = models.CharField(max_length=64, blank=True)
    canary = models.CharField(max_length=200, blank=True)
    get_document = models.BooleanField(default=False)
    queue = models.CharField(max_length=8)
    directory = models.CharField(max_length=500, blank=True)
    # What the worker is doing now, in words (reading the corpus, indexing, answering).
    stage = models.CharField(max_length=200, blank=True)
    setup = models.JSONField(default=dict)
    metrics = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"benchmark run {self.pk} ({self.benchmark})"
