"""Training: datasets built from gated tasks, jobs that train on them, the metrics and rollouts
a job logged, presets of job configs, and evaluations of checkpoints against their base.

Files live under settings.TRAINING_DIR (datasets/<id>/, runs/<id>/): a dataset's rows and a
run's checkpoints are too big for the database, and TRL reads and writes them there. The
database keeps what the pages query: status, counts, metrics per step, rollout rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.jobs.models import Job


class DatasetKind(models.TextChoices):
    RL = "rl", "RL prompts"
    SFT = "sft", "SFT sessions"
    MID = "mid", "Mid-training pairs"


class TrainingDataset(Job):
    """Rows a job trains on, built by a worker: RL prompts from gated tasks, SFT sessions from
    trajectories a policy collected on them (rejection sampling), mid-training pairs. Its
    progress counts the tasks processed."""

    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=8, choices=DatasetKind.choices)
    # What was asked: policy, attempts, min_reward, hint_retry, limit, split, source dataset.
    params = models.JSONField(default=dict)
    directory = models.CharField(max_length=500, blank=True)
    rows = models.PositiveIntegerField(default=0)
    # Gated task ids the rows come from; an evaluation keeps these out of its held-out set.
    task_ids = models.JSONField(default=list)
    # Builder reports, token-length histogram, skipped tasks.
    stats = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"Dataset {self.pk} {self.name} ({self.kind}, {self.status})"


class JobKind(models.TextChoices):
    MID = "mid", "Mid-training"
    SFT = "sft", "SFT"
    GRPO = "grpo", "GRPO"


class TrainingJob(Job):
    """One `python -m quest train` run, supervised by a gpu-queue worker."""

    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=8, choices=JobKind.choices)
    dataset = models.ForeignKey(
        TrainingDataset, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    # The resolved quest.training.config.TrainConfig, every default written out.
    config = models.JSONField()
    resumed_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="resumes"
    )
    cancel_requested = models.BooleanField(default=False)
    step = models.PositiveIntegerField(default=0)  # the last logged step
    max_steps = models.PositiveIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True)  # what the run printed at its end
    worker = models.CharField(max_length=200, blank=True)
    pid = models.IntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Job {self.pk} {self.name} ({self.kind}, {self.status})"

    @property
    def output_dir(self) -> str:
        return str(self.config.get("output_dir", ""))

    @property
    def model(self) -> str:
        return str(self.config.get("model", ""))


class MetricKind(models.TextChoices):
    STEP = "step", "Step"
    SUMMARY = "summary", "Summary"


class TrainingMetric(models.Model):
    """One line of a run's metrics.jsonl: a logged step, or the run's summary."""

    job = models.ForeignKey(TrainingJob, on_delete=models.CASCADE, related_name="metrics")
    line = models.PositiveIntegerField()  # position in metrics.jsonl: ingest is idempotent
    step = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=MetricKind.choices, default=MetricKind.STEP)
    values = models.JSONField()

    class Meta:
        ordering = ["job", "line"]
        constraints = [models.UniqueConstraint(fields=["job", "line"], name="training_metric_line")]

    def __str__(self) -> str:
        return f"Job {self.job_id} {self.kind} at step {self.step}"


class TrainingRollout(models.Model):
    """One GRPO rollout of a step: the question, the excerpt of the model's last turn and the
    reward's components."""

    job = models.ForeignKey(TrainingJob, on_delete=models.CASCADE, related_name="rollouts")
    line = models.PositiveIntegerField()  # position in rollouts.jsonl
    step = models.PositiveIntegerField()
    index = models.PositiveIntegerField()
    question = models.TextField()
    completion = models.TextField()
    status = models.CharField(max_length=16, blank=True)
    reward = models.FloatField(null=True)
    base = models.FloatField(null=True)
    citation = models.FloatField(null=True)
    valid_rate = models.FloatField(null=True)
    leaves_passed = models.PositiveIntegerField(null=True)
    leaves_total = models.PositiveIntegerField(null=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["job", "line"]
        constraints = [
            models.UniqueConstraint(fields=["job", "line"], name="training_rollout_line")
        ]
        indexes = [models.Index(fields=["job", "step"], name="training_rollout_step")]

    def __str__(self) -> str:
        return f"Job {self.job_id} step {self.step} rollout {self.index}"


class TrainingPreset(models.Model):
    """A saved launch form: a job config without its run-specific paths."""

    name = models.CharField(max_length=120, unique=True)
    config = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Evaluation(Job):
    """A checkpoint and its base model run by the same agent loop over held-out tasks. Its
    progress counts the runs finished (of both models)."""

    job = models.ForeignKey(
        TrainingJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluations"
    )
    checkpoint = models.CharField(max_length=500)  # a model directory (or tiny / smollm2)
    base_model = models.CharField(max_length=500, blank=True)  # "" when no base is compared
    task_ids = models.JSONField(default=list)  # the held-out tasks, in order
    # How many tasks were asked for: task_ids holds fewer when fewer held-out tasks exist.
    tasks_asked = models.PositiveIntegerField(null=True, blank=True)
    budgets = models.JSONField(default=dict)
    cancel_requested = models.BooleanField(default=False)
    # {"models": {"checkpoint": {summary, scores}, "base": {...}}, "difference": {...}}
    results = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"Evaluation {self.pk} of {self.checkpoint} ({self.status})"
