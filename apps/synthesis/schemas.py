from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema

from apps.audit.schemas import CampaignOut
from apps.audit.services.campaigns import MAX_ANNOTATORS_PER_TASK, MAX_LOCK_MINUTES
from apps.common.pagination import Page
from apps.common.schemas import INTEGER_MAX, Text
from apps.jobs.models import JobStatus
from apps.synthesis.models import ALL_STAGES, Decision
from apps.synthesis.services import NOTE_MAX
from quest.synthesis.kgsynth import SUBCATEGORIES as KG_SUBCATEGORIES
from quest.synthesis.model import GENERATORS
from quest.synthesis.seeds import CLASSES, SUBCATEGORIES
from quest.synthesis.shards import GOAL_PROPOSALS, MAX_SHARDED

Generator = Literal[GENERATORS]  # type: ignore[valid-type]
Stage = Literal[ALL_STAGES]  # type: ignore[valid-type]
MAX_WEIGHT = 1_000_000
Weight = Annotated[float, Field(ge=0, le=MAX_WEIGHT, allow_inf_nan=False)]
Name = Annotated[Text, Field(min_length=1, max_length=64)]
Keyword = Annotated[Text, Field(min_length=1, max_length=200)]


class BatchSpecIn(Schema):
    generator: Generator = Field(default=GENERATORS[0], description="The synthesizer to run")
    count: int = Field(default=20, ge=1, le=MAX_SHARDED, description="Candidates (kg: sharded)")
    seed: int = Field(default=0, ge=0, le=INTEGER_MAX, description="Same seed, same batch")
    categories: dict[Name, Weight] = Field(
        default_factory=dict,
        max_length=len(SUBCATEGORIES),
        description=(
            "Subcategory → weight; empty: least-used subcategory first. The llm generator "
            "takes any of QUEST's, the kg generator writes: " + ", ".join(KG_SUBCATEGORIES)
        ),
    )
    classes: dict[Name, Weight] = Field(
        default_factory=dict,
        max_length=len(CLASSES),
        description="Complexity class (C1..C9) → weight; empty: the QUEST paper's targets",
    )
    baseline: bool = Field(
        default=True, description="Run the scripted agent on each candidate for its difficulty"
    )
    open_ended: bool = Field(
        default=False,
        description="Report-writing tasks with criteria and relative scoring (kg generator)",
    )
    proposer_turns: int = Field(
        default=30, ge=2, le=400, description="The llm proposer's turns per proposal"
    )
    until_accepted: bool = Field(
        default=False,
        description="kg: count is the accepted tasks wanted; shards are proposed until the "
        f"funnel has accepted that many (at most {GOAL_PROPOSALS}x count proposals)",
    )
    keywords: list[Keyword] = Field(
        default_factory=list,
        max_length=10_000,
        description="Seed keywords for the llm proposer (10 sampled per task); empty: derived "
        "from the corpus per subcategory",
    )
    model: Text = Field(
        default="",
        max_length=200,
        description="The llm generator's model, one of GET /api/live/models; empty: the first",
    )


class BatchSpecOut(Schema):
    generator: str
    count: int
    seed: int
    categories: dict[str, float]
    classes: dict[str, float]
    baseline: bool
    open_ended: bool = False
    proposer_turns: int = 30
    until_accepted: bool = False


class BatchOut(Schema):
    id: int
    status: JobStatus
    spec: BatchSpecOut
    model: str = Field(description="The llm generator's model; empty for kg")
    total: int = Field(
        description="Candidates asked for (until_accepted: accepted tasks asked for)"
    )
    proposed: int = Field(description="Candidates written so far: the progress")
    accepted: int = Field(description="Candidates accepted now, by the funnel or by hand")
    error: str = Field(description="Why it failed, or who cancelled it")
    created_by: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str = Field(description="The batch's page")


class BatchPageOut(Page[BatchOut]):
    """A page of batches, newest first."""


class StageOut(Schema):
    name: str
    passed: bool
    reason: str
    detail: dict[str, Any]


class CandidateSummaryOut(Schema):
    id: int
    batch_id: int
    index: int
    question: str
    target_class: str
    complexity: str = Field(description="The class its tree measured")
    category: str
    subcategory: str
    accepted: bool
    rejected_at: Stage | Literal[""] = Field(description="The funnel stage it failed first")
    reason: str
    decision: Decision
    decided_by: str | None
    decided_at: datetime | None
    task_id: int | None = Field(description="The task written for it")
    url: str = Field(description="The candidate's page")


class CandidateOut(CandidateSummaryOut):
    decision_note: str
    stages: list[StageOut]
    record: dict[str, Any] = Field(description="The task in the /api/imports format")


class CandidatePageOut(Page[CandidateSummaryOut]):
    """A page of a batch's candidates, in order."""


class DecisionIn(Schema):
    note: Text = Field(default="", max_length=NOTE_MAX, description="Why, for the record")


class BatchCampaignIn(Schema):
    name: Text = Field(default="", max_length=200, description='Empty: "Synthesis batch <id>"')
    annotators_per_task: int = Field(default=2, ge=1, le=MAX_ANNOTATORS_PER_TASK)
    lock_minutes: int = Field(default=30, ge=1, le=MAX_LOCK_MINUTES)
    instructions: Text = Field(default="", max_length=10_000)
    new: bool = Field(
        default=False,
        description="Make another campaign even though the batch has one (its name gets a "
        "suffix); otherwise the batch's newest open campaign gets the undecided tasks it lacks",
    )


class BatchCampaignOut(CampaignOut):
    created: bool = Field(description="False: the batch's campaign was there already")
    added: int = Field(description="Undecided tasks put into the campaign by this request")
    message: str = Field(description="What happened, in words")
