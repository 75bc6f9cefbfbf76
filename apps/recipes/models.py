"""Recipes: issue 15's loop (synthesize, gate, collect, SFT, GRPO, evaluate, report) run by the
app, each stage through the app's own services, and a link to what each stage made.

A recipe holds no work of its own: the batch, the campaign, the datasets, the jobs and the
evaluations are the ordinary rows of their apps, shown on their own pages. `config` is the
engine's LoopConfig (quest.loop.config) dumped as JSON, so the page and `python -m quest loop`
read the same knobs; `stages` keeps when each stage started and ended and a note on it.
"""

from __future__ import annotations

from typing import TypeVar

from django.db import models

from apps.audit.models import Campaign
from apps.jobs.models import Job, JobStatus
from apps.synthesis.models import SynthesisBatch
from apps.training.models import Evaluation, TrainingDataset, TrainingJob
from quest.loop.state import STAGES as LOOP_STAGES

# The loop's stages, in its order (quest/loop/state.py), as the app stores and shows them.
LABELS = {"synth": "Synthesize", "sft": "SFT", "grpo": "GRPO"}
# The stub's functional-API overloads take names only, not Django's (name, (value, label)) pairs.
Stage = models.TextChoices(  # type: ignore[call-overload]
    "Stage", [(name.upper(), (name, LABELS.get(name, name.capitalize()))) for name in LOOP_STAGES]
)
STAGES = tuple(Stage)

M = TypeVar("M", bound=models.Model)


def _nullable(model: type[M]) -> models.ForeignKey[M | None, M | None]:
    """A link to what a stage made, kept (as null) when that row is deleted."""
    return models.ForeignKey(
        model, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )


class Recipe(Job):
    """A recipe is a job of the framework (apps.jobs): running from the moment it is made (its
    first stage starts with it) until its last stage ends; `done` of `total` counts stages."""

    name = models.CharField(max_length=120)
    config = models.JSONField()  # LoopConfig.model_dump(mode="json")
    audit_sample = models.PositiveIntegerField(default=20)  # tasks the gate's campaign holds
    annotators_per_task = models.PositiveSmallIntegerField(default=1)
    stage = models.CharField(max_length=10, choices=Stage.choices, default=Stage.SYNTH)
    # A running recipe whose stage waits on others: people auditing at the gate.
    waiting = models.BooleanField(default=False)
    # The gate: an admin may go on with the tasks audited so far instead of waiting for all.
    proceed_requested = models.BooleanField(default=False)
    # {stage: {"started_at": iso, "finished_at": iso, "note": text}}
    stages = models.JSONField(default=dict)
    batch = _nullable(SynthesisBatch)
    campaign = _nullable(Campaign)
    sft_dataset = _nullable(TrainingDataset)
    rl_dataset = _nullable(TrainingDataset)
    sft_job = _nullable(TrainingJob)
    grpo_job = _nullable(TrainingJob)
    sft_evaluation = _nullable(Evaluation)  # the SFT model and its base
    grpo_evaluation = _nullable(Evaluation)  # the GRPO model, same tasks

    class Meta(Job.Meta):
        pass

    def __str__(self) -> str:
        return f"Recipe {self.pk} {self.name} ({self.stage}, {self.shown_status})"

    @property
    def shown_status(self) -> str:
        """The status the pages and the recipes API have always shown: waiting is running."""
        return "waiting" if self.waiting and self.status == JobStatus.RUNNING else self.status
