from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.jobs.models import Job


class TaskType(models.TextChoices):
    OBJECTIVE = "objective", "Objective"
    OPEN_ENDED = "open_ended", "Open-ended"


class Complexity(models.TextChoices):
    NONE = "", "Unknown"
    C1 = "C1", "C1 (B1·D1)"
    C2 = "C2", "C2 (B1·D2)"
    C3 = "C3", "C3 (B1·D3)"
    C4 = "C4", "C4 (B2·D1)"
    C5 = "C5", "C5 (B2·D2)"
    C6 = "C6", "C6 (B2·D3)"
    C7 = "C7", "C7 (B3·D1)"
    C8 = "C8", "C8 (B3·D2)"
    C9 = "C9", "C9 (B3·D3)"


class AuditState(models.TextChoices):
    UNAUDITED = "unaudited", "Not audited"
    ACCEPTED = "accepted", "Accepted"
    FIX_ACCEPTED = "fix_accepted", "Fixed and accepted"
    REJECTED = "rejected", "Rejected"


class Task(models.Model):
    """A research task: a question whose ground truth is its current rubric tree version."""

    question = models.TextField()
    type = models.CharField(max_length=16, choices=TaskType.choices, default=TaskType.OBJECTIVE)
    category = models.CharField(max_length=64, blank=True, db_index=True)
    subcategory = models.CharField(max_length=64, blank=True, db_index=True)
    complexity = models.CharField(max_length=2, choices=Complexity.choices, blank=True)
    # {item: {description, reference_urls}} as QUEST writes it, or free text in "text".
    solution = models.JSONField(default=dict, blank=True)
    # The solution written out as an answer (Markdown with citations): what probes score as the
    # reference. Empty: the probes write one from `solution`.
    reference_answer = models.TextField(blank=True)
    # Where the task came from: generator, batch, source file and line, external id.
    provenance = models.JSONField(default=dict, blank=True)
    audit_state = models.CharField(
        max_length=16, choices=AuditState.choices, default=AuditState.UNAUDITED, db_index=True
    )
    current_version = models.ForeignKey(
        "RubricVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Task {self.pk}: {self.question[:60]}"


class RubricVersion(models.Model):
    """One immutable version of a task's rubric tree, in canonical JSON."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    tree = models.JSONField()
    # Node, leaf, critical counts, depth and widest layer: read by lists without loading trees.
    stats = models.JSONField(default=dict)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["task", "number"]
        constraints = [
            models.UniqueConstraint(fields=["task", "number"], name="rubric_version_number_unique")
        ]

    def __str__(self) -> str:
        return f"Task {self.task_id} v{self.number}"


class TaskImport(Job):
    """An uploaded JSON / JSONL file of tasks, imported all-or-nothing by a worker. Its progress
    is the records checked (`done`, read as `processed`) of the file's `total`."""

    filename = models.CharField(max_length=255)
    payload = models.BinaryField()
    imported = models.PositiveIntegerField(default=0)
    # [{"record": line or index, "error": "…"}], capped; empty when everything went in.
    rejected = models.JSONField(default=list)

    class Meta(Job.Meta):
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Import {self.pk} ({self.filename}, {self.status})"

    @property
    def processed(self) -> int:
        return self.done


class ProbeVerdict(models.TextChoices):
    NONE = "", "Not decided"
    SOUND = "sound", "Sound"
    UNSOUND = "unsound", "Unsound"
    UNDECIDED = "undecided", "Undecided"


class ProbeRun(Job):
    """One probe of a rubric version: the reference answer and an adversarial battery scored with
    the real reward (quest.rubric.probe_tree). Only a version whose latest run is sound trains."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="probe_runs")
    version = models.ForeignKey(RubricVersion, on_delete=models.CASCADE, related_name="probe_runs")
    verdict = models.CharField(max_length=16, choices=ProbeVerdict.choices, blank=True)
    # ProbeReport.to_dict(): verdict, reasons, untested, judge, limits and every probe.
    report = models.JSONField(default=dict, blank=True)
    judge = models.CharField(max_length=200, blank=True)

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["version", "-created_at"], name="probe_run_version_latest")]

    def __str__(self) -> str:
        return f"Probe {self.pk} of task {self.task_id} ({self.status})"
