"""REST shapes of recipes; every number bounded at the door."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from ninja import Field, Schema

from apps.common.pagination import Page
from apps.common.schemas import Storable, Text
from apps.recipes.services import MAX_ANNOTATORS, MAX_AUDIT_SAMPLE

Name = Annotated[Text, Field(max_length=120)]


class RecipeIn(Schema):
    name: Name = ""
    config: Annotated[dict[str, Any] | str | None, Storable] = Field(
        default=None,
        description="The loop's config (python -m quest loop's loop.yaml) as an object or YAML "
        "text; omitted fields take LoopConfig's defaults",
    )
    audit_sample: int = Field(
        default=20, ge=1, le=MAX_AUDIT_SAMPLE, description="Tasks the gate's audit campaign holds"
    )
    annotators_per_task: int = Field(default=1, ge=1, le=MAX_ANNOTATORS)


class RecipeStageOut(Schema):
    stage: str
    label: str
    status: str = Field(description="pending, running, waiting, done, skipped, failed, cancelled")
    seconds: float | None
    note: str
    links: list[tuple[str, str]] = Field(description="[label, page] of what the stage made")


class RecipeModelOut(Schema):
    label: str = Field(description="base, sft or grpo")
    model: str | None
    n: int | None
    mean: float | None
    ci95: list[float] | None
    answer_rate: float | None
    valid_turn_rate: float | None
    citation_validity: float | None
    dropped: int | None


class RecipeDifferenceOut(Schema):
    label: str
    n: int
    mean: float | None
    ci95: list[float] | None
    wins: int
    losses: int
    ties: int


class RecipeResultsOut(Schema):
    models: list[RecipeModelOut]
    differences: list[RecipeDifferenceOut]


class RecipeOut(Schema):
    id: int
    name: str
    stage: str
    status: str
    error: str
    config: dict[str, Any]
    audit_sample: int
    annotators_per_task: int
    proceed_requested: bool
    batch_id: int | None
    campaign_id: int | None
    sft_dataset_id: int | None
    rl_dataset_id: int | None
    sft_job_id: int | None
    grpo_job_id: int | None
    sft_evaluation_id: int | None
    grpo_evaluation_id: int | None
    stages: list[RecipeStageOut]
    results: RecipeResultsOut
    created_by: str | None
    created_at: datetime
    finished_at: datetime | None
    url: str


class RecipePageOut(Page[RecipeOut]):
    """A page of recipes, newest first."""
