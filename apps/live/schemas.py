from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from ninja import Field, Schema

from apps.common.pagination import Page
from apps.common.schemas import Id, Text
from apps.live.models import Pace, Policy, SessionStatus, Visibility
from apps.live.services import (
    CONDENSE_LIMITS,
    DEFAULT_BUDGETS,
    DEFAULT_PACE,
    DEFAULT_VISIBILITY,
    MAX_QUESTION_CHARS,
    TURN_LIMITS,
    TURN_TOKEN_LIMITS,
)

Turns = Annotated[int, Field(ge=TURN_LIMITS[0], le=TURN_LIMITS[1])]
CondenseTokens = Annotated[int, Field(ge=CONDENSE_LIMITS[0], le=CONDENSE_LIMITS[1])]
TurnTokens = Annotated[int, Field(ge=TURN_TOKEN_LIMITS[0], le=TURN_TOKEN_LIMITS[1])]


class SessionIn(Schema):
    question: Text = Field(
        "", max_length=MAX_QUESTION_CHARS, description="Required unless task_id names a task"
    )
    task_id: Id | None = Field(None, description="Research this task's question")
    policy: Policy = Policy.SCRIPTED
    model: Text = Field(
        "", max_length=200, description="An llm policy's model (GET /api/live/models)"
    )
    max_turns: Turns | None = Field(DEFAULT_BUDGETS["max_turns"], description="null: the default")
    condense_at_tokens: CondenseTokens | None = Field(
        DEFAULT_BUDGETS["condense_at_tokens"], description="null: the default"
    )
    max_turn_tokens: TurnTokens | None = Field(
        DEFAULT_BUDGETS["max_turn_tokens"], description="null: the default"
    )
    visibility: Visibility = DEFAULT_VISIBILITY
    pace: Pace = Field(
        DEFAULT_PACE,
        description="real_time: as fast as it runs; 1_step_per_s: each policy turn at least "
        "1 s after the last, so a fast run can be watched",
    )


class SessionCheckpointOut(Schema):
    path: str = Field(description="relative to the training directory")
    label: str = Field(description='e.g. "SFT run 12 · step 30"')
    job_id: int | None = Field(description="the training job (run) it came from")
    step: int | None
    held_out_reward: float | None = Field(
        description="its mean held-out reward when the session started, if an evaluation "
        "had scored it"
    )


class SessionOut(Schema):
    id: UUID
    question: str
    task_id: int | None
    policy: Policy
    model: str
    checkpoint: SessionCheckpointOut | None = Field(
        description="the training checkpoint the session ran, when its model is one"
    )
    budgets: dict[str, Any]
    status: SessionStatus
    visibility: Visibility
    pace: Pace
    owner: str
    last_seq: int
    answer: str
    result: dict[str, Any]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str


class ComparisonIn(SessionIn):
    other_policy: Policy = Field(description="the second session's policy")
    other_model: Text = Field(
        "", max_length=200, description="the second session's model, for an llm policy"
    )


class ComparisonOut(Schema):
    a: SessionOut
    b: SessionOut
    url: str = Field(description="the page that shows both sessions side by side")


class SessionPageOut(Page[SessionOut]):
    sessions: list[SessionOut] = Field(
        deprecated=True,
        description="The same as `results`, under its name before issue 38: kept for one "
        "release, then removed",
    )


class EventOut(Schema):
    seq: int
    type: str
    payload: dict[str, Any]
    created_at: datetime


class GapOut(Schema):
    first: int = Field(alias="from")
    last: int = Field(alias="to")


class EventPageOut(Schema):
    session: UUID
    status: SessionStatus
    last_seq: int
    events: list[EventOut]
    gaps: list[dict[str, int]]


class LiveCheckpointOut(Schema):
    model: str = Field(description='the `model` to start a session with ("checkpoint:<path>")')
    label: str = Field(description='e.g. "SFT run 12 · step 30"')
    path: str = Field(description="relative to the training directory")
    job_id: int
    step: int
    held_out_reward: float | None = Field(
        description="mean reward on held-out tasks of the newest evaluation of this step"
    )


class ModelsOut(Schema):
    policies: list[Policy]
    models: list[str] = Field(description="every model, the checkpoints' included")
    checkpoints: list[LiveCheckpointOut] = Field(
        description="checkpoints of finished, stopped or cancelled training runs"
    )


class EndpointIn(Schema):
    name: Text = Field(..., min_length=1, max_length=100)
    base_url: Text = Field(..., min_length=1, max_length=500)
    model: Text = Field(..., min_length=1, max_length=200)
    api_key: Text = Field("", max_length=500)
    enabled: bool = True
    priority: int = Field(100, ge=-1000, le=1000)


class EndpointOut(Schema):
    id: int
    name: str
    base_url: str
    model: str
    has_key: bool
    enabled: bool
    priority: int
    updated_at: datetime
