from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from apps.live.report import report_html


class SessionStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    STOPPING = "stopping"
    FINISHED = "finished"
    FAILED = "failed"
    STALLED = "stalled"


ACTIVE_STATUSES = (SessionStatus.QUEUED, SessionStatus.RUNNING, SessionStatus.STOPPING)


class Policy(models.TextChoices):
    SCRIPTED = "scripted", "scripted (LLM-free researcher)"
    LLM = "llm", "LLM (QUEST protocol)"


class Pace(models.TextChoices):
    """How fast a run is shown: as fast as it runs, or one policy turn per second at most (a
    scripted run ends in under a second, too fast to watch)."""

    REAL_TIME = "real_time", "real time"
    STEP_PER_SECOND = "1_step_per_s", "1 step per second"


PACE_SECONDS = {Pace.REAL_TIME: 0.0, Pace.STEP_PER_SECOND: 1.0}


class Visibility(models.TextChoices):
    PRIVATE = "private"
    PUBLIC = "public", "public (every signed-in user can watch)"


class Session(models.Model):
    """One agent run. `last_seq` is the seq of its newest event: events are numbered under a row
    lock on the session, so seq is strictly increasing and unique whoever writes the event."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    question = models.TextField()
    task = models.ForeignKey(
        "rubrics.Task", null=True, blank=True, on_delete=models.SET_NULL, related_name="sessions"
    )
    policy = models.CharField(max_length=16, choices=Policy.choices, default=Policy.SCRIPTED)
    model = models.CharField(max_length=200, blank=True)
    # A training checkpoint run as the model: what it was when the session started, so the
    # page names it after the run's files are gone. Plain ids: training sits above this app.
    checkpoint = models.CharField(
        max_length=500, blank=True, help_text="relative to the training directory"
    )
    checkpoint_label = models.CharField(max_length=200, blank=True)
    training_job_id = models.PositiveIntegerField(null=True, blank=True)
    checkpoint_step = models.PositiveIntegerField(null=True, blank=True)
    held_out_reward = models.FloatField(null=True, blank=True)
    budgets = models.JSONField(default=dict)
    pace = models.CharField(max_length=16, choices=Pace.choices, default=Pace.REAL_TIME)
    status = models.CharField(
        max_length=16, choices=SessionStatus.choices, default=SessionStatus.QUEUED
    )
    visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sessions"
    )
    stop_requested = models.BooleanField(default=False)
    last_seq = models.PositiveIntegerField(default=0)
    answer = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The time of the newest event: the watchdog calls a running session stalled when it is old.
    active_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        indexes = [models.Index(fields=("status", "active_at"))]

    def __str__(self) -> str:
        return f"session {self.public_id} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES


class Event(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("session", "seq")
        constraints = [
            models.UniqueConstraint(fields=("session", "seq"), name="live_event_seq_unique")
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.seq} {self.type}"

    def to_message(self, session_public_id: str) -> dict[str, object]:
        """The event as viewers receive it; a report travels with its HTML, rendered here (not
        stored) so that every report, old ones too, is drawn by the one renderer."""
        payload = self.payload
        if self.type == "answer":
            html = report_html(str(payload.get("text", "")), payload.get("citations") or ())
            payload = {**payload, "html": html}
        return {
            "session": session_public_id,
            "seq": self.seq,
            "type": self.type,
            "payload": payload,
            "created_at": self.created_at.isoformat(),
        }


class Trajectory(models.Model):
    """What a run leaves for training (QUEST-SPEC §5.1): one record per session segment (the
    messages the policy saw, its turns, the state before and after) and one per condensation."""

    session = models.OneToOneField(Session, on_delete=models.CASCADE, related_name="trajectory")
    rollout_id = models.CharField(max_length=64)
    records = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"trajectory of {self.session_id} ({len(self.records)} records)"


class LLMEndpoint(models.Model):
    """An OpenAI-compatible endpoint the llm policy may use. Read when each session starts, so
    an admin's edit applies to the next session without a restart."""

    name = models.CharField(max_length=100, unique=True)
    base_url = models.URLField(max_length=500)
    model = models.CharField(max_length=200)
    api_key = models.CharField(max_length=500, blank=True)
    enabled = models.BooleanField(default=True)
    priority = models.IntegerField(default=100, help_text="lower is tried first")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("priority", "name")

    def __str__(self) -> str:
        return f"{self.name} ({self.model} at {self.base_url})"
