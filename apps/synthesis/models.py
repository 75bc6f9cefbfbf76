"""Synthesis batches and the candidates they proposed.

A candidate's funnel outcome (`rejected_at`, `reason`, `stages`) is what the engine measured and
never changes; `accepted` and `decision` are the current call on it, which a person may reverse.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.jobs.models import Job
from quest.synthesis.model import LLM_STAGES, STAGE_LABELS, STAGES

# Every stage a candidate can reach, in order: the llm generator's own come first.
ALL_STAGES = (*LLM_STAGES, *STAGES)


class SynthesisBatch(Job):
    """One run of the synthesis engine (quest.synthesis) for a BatchSpec, by a cpu worker. Its
    progress is the candidates written (`done`, read as `proposed`) of those asked for
    (`total`, spec.count); `active_at` moves with each candidate written."""

    # BatchSpec as JSON: generator, count, seed, categories, classes, baseline.
    spec = models.JSONField()
    # The llm generator's model, as live sessions name them (apps.common.llm); "" for kg.
    model = models.CharField(max_length=200, blank=True)
    # The llm proposer's seed keywords (a CSV's `keyword` column); empty: derived from the corpus.
    keywords = models.JSONField(default=list, blank=True)
    accepted = models.PositiveIntegerField(default=0)  # of those, accepted now (funnel or hand)
    # A kg batch past one shard (quest.synthesis.shards) runs as this many Celery tasks; 0: one.
    shards = models.PositiveIntegerField(default=0)
    shard_size = models.PositiveIntegerField(default=0)  # candidates per shard (the last: fewer)
    shards_done = models.PositiveIntegerField(default=0)  # the last one to finish ends the batch

    class Meta(Job.Meta):
        verbose_name_plural = "synthesis batches"

    def __str__(self) -> str:
        return f"Synthesis batch {self.pk} ({self.status})"

    @property
    def proposed(self) -> int:
        return self.done

    @proposed.setter
    def proposed(self, value: int) -> None:
        self.done = value

    @property
    def generator(self) -> str:
        return str(self.spec.get("generator", ""))

    @property
    def seed(self) -> int:
        return int(self.spec.get("seed", 0))

    @property
    def baseline(self) -> bool:
        return bool(self.spec.get("baseline", True))

    @property
    def until_accepted(self) -> bool:
        """`total` is the accepted tasks asked for, not the candidates (kg, sharded in waves)."""
        return bool(self.spec.get("until_accepted", False))

    @property
    def provenance_batch(self) -> str:
        """The `batch` its tasks' provenance holds: audit campaigns filter tasks on it."""
        return f"synthesis-{self.pk}"


class Decision(models.TextChoices):
    AUTO = "auto", "By the funnel"
    ACCEPTED_BY_HAND = "accepted_by_hand", "Accepted by hand"
    REJECTED_BY_HAND = "rejected_by_hand", "Rejected by hand"


class SynthesisCandidate(models.Model):
    """One proposal of a batch with every funnel stage it reached; accepted ones have a task."""

    batch = models.ForeignKey(SynthesisBatch, on_delete=models.CASCADE, related_name="candidates")
    index = models.PositiveIntegerField()  # 0-based position in the batch
    question = models.TextField()
    target_class = models.CharField(max_length=2, blank=True)  # the class sampled for it
    complexity = models.CharField(max_length=2, blank=True)  # the class its tree measured
    category = models.CharField(max_length=64, blank=True)
    subcategory = models.CharField(max_length=64, blank=True)
    accepted = models.BooleanField(default=False)
    rejected_at = models.CharField(max_length=32, blank=True)  # first failed stage; "" if none
    reason = models.TextField(blank=True)
    # [{name, passed, reason, detail}] in funnel order (quest.synthesis.model.Stage.to_dict).
    stages = models.JSONField(default=list)
    # The task in the /api/imports format, as the engine wrote it.
    record = models.JSONField(default=dict)
    decision = models.CharField(max_length=20, choices=Decision.choices, default=Decision.AUTO)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=500, blank=True)
    # The task written for it; kept on a hand rejection when the audit flow already holds it.
    task = models.ForeignKey(
        "rubrics.Task",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="synthesis_candidates",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["batch", "index"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "index"], name="synthesis_candidate_index")
        ]
        indexes = [
            models.Index(fields=["batch", "accepted", "index"], name="synthesis_cand_accepted"),
            models.Index(fields=["batch", "rejected_at", "index"], name="synthesis_cand_stage"),
        ]

    def __str__(self) -> str:
        return f"Candidate {self.batch_id}/{self.index}"

    @property
    def rejected_label(self) -> str:
        return STAGE_LABELS.get(self.rejected_at, self.rejected_at)

    def stage(self, name: str) -> dict[str, object] | None:
        return next((s for s in self.stages if s.get("name") == name), None)


class BatchCampaign(models.Model):
    """An audit campaign made from a batch. Pressing "create" again adds to it rather than
    making another; a second campaign for the batch is asked for explicitly."""

    batch = models.ForeignKey(
        SynthesisBatch, on_delete=models.CASCADE, related_name="campaign_links"
    )
    campaign = models.OneToOneField(
        "audit.Campaign", on_delete=models.CASCADE, related_name="synthesis_link"
    )

    def __str__(self) -> str:
        return f"Batch {self.batch_id} → campaign {self.campaign_id}"
