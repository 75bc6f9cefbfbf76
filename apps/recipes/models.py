"""Recipes: issue 15's loop (synthesize, gate, collect, SFT, GRPO, evaluate, report) run by the
app, each stage through the app's own services, and a link to what each stage made.

A recipe holds no work of its own: the batch, the campaign, the datasets, the jobs and the
evaluations are the ordinary rows of their apps, shown on their own pages. `config` is the
engine's LoopConfig (quest.loop.config) dumped as JSON, so the page and `python -m quest loop`
read the same knobs; `stages` keeps when each stage started and ended and a note on it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Stage(models.TextChoices):
    SYNTH = "synth", "Synthesize"
    GATE = "gate", "Gate"
    COLLECT = "collect", "Collect"
    SFT = "sft", "SFT"
    GRPO = "grpo", "GRPO"
    EVALUATE = "evaluate", "Evaluate"
    REPORT = "report", "Report"


STAGES = tuple(Stage)


class RecipeStatus(models.TextChoices):
    RUNNING = "running", "Running"
    WAITING = "waiting", "Waiting"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE = (RecipeStatus.RUNNING, RecipeStatus.WAITING)


def _nullable(model: str) -> models.ForeignKey[models.Model | None]:
    return models.ForeignKey(
        model, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )


class Recipe(models.Model):
    name = models.CharField(max_length=120)
    config = models.JSONField()  # LoopConfig.model_dump(mode="json")
    audit_sample = models.PositiveIntegerField(default=20)  # tasks the gate's campaign holds
    annotators_per_task = models.PositiveSmallIntegerField(default=1)
    stage = models.CharField(max_length=10, choices=Stage.choices, default=Stage.SYNTH)
    status = models.CharField(
        max_length=10, choices=RecipeStatus.choices, default=RecipeStatus.RUNNING, db_index=True
    )
    error = models.TextField(blank=True)
    # The gate: an admin may go on with the tasks audited so far instead of waiting for all.
    proceed_requested = models.BooleanField(default=False)
    # {stage: {"started_at": iso, "finished_at": iso, "note": text}}
    stages = models.JSONField(default=dict)
    batch = _nullable("synthesis.SynthesisBatch")
    campaign = _nullable("audit.Campaign")
    sft_dataset = _nullable("training.TrainingDataset")
    rl_dataset = _nullable("training.TrainingDataset")
    sft_job = _nullable("training.TrainingJob")
    grpo_job = _nullable("training.TrainingJob")
    sft_evaluation = _nullable("training.Evaluation")  # the SFT model and its base
    grpo_evaluation = _nullable("training.Evaluation")  # the GRPO model, same tasks
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Recipe {self.pk} {self.name} ({self.stage}, {self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE
