"""REST shapes of training. Every number is bounded here, at the door (the config's own rules,
cross-field ones included, are quest.training.config's and come back as a 422 naming the
field)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from ninja import Field, Schema

from apps.common.pagination import Page
from apps.common.schemas import INTEGER_MAX, Text
from apps.jobs.models import JobStatus
from apps.training.models import DatasetKind, JobKind

Name = Annotated[Text, Field(max_length=120)]
Ratio = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Rate = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)]
Steps = Annotated[int, Field(ge=1, le=1_000_000)]
Tokens = Annotated[int, Field(ge=1, le=1_048_576)]
if TYPE_CHECKING:
    # The models' choices, read at run time, which a type checker cannot: it sees their strings.
    Kind = str
    DataKind = str
    StatusName = str
else:
    Kind = Literal[tuple(JobKind.values)]
    DataKind = Literal[tuple(DatasetKind.values)]
    StatusName = Literal[tuple(JobStatus.values)]


class DatasetIn(Schema):
    kind: DataKind = Field(description="rl: prompts; sft: sessions of collected trajectories; mid")
    name: Name = ""
    split: Literal["train", "all"] | None = Field(
        default=None, description="rl, sft: gated tasks of the train split (held-out never)"
    )
    limit: int | None = Field(default=None, ge=0, le=100_000, description="0: every task")
    policy: Text | None = Field(
        default=None, max_length=200, description="sft: scripted or a model live sessions use"
    )
    attempts: int | None = Field(default=None, ge=1, le=16, description="sft: rollouts a task")
    min_reward: Ratio | None = Field(default=None, description="sft: keep rollouts at least this")
    hint_retry: bool | None = Field(
        default=None, description="sft: retry a failed task once with its failed leaves as hint"
    )
    source_dataset: int | None = Field(
        default=None, ge=1, le=2**63 - 1, description="mid: the SFT dataset whose trajectories"
    )


class DatasetOut(Schema):
    id: int
    name: str
    kind: str
    status: StatusName
    params: dict[str, Any]
    rows: int
    done: int
    total: int
    task_ids: list[str]
    stats: dict[str, Any]
    error: str
    created_by: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str


class DatasetPageOut(Page[DatasetOut]):
    """A page of datasets, newest first."""


class PreviewRowOut(Schema):
    row: int
    meta: dict[str, Any]
    segments: list[tuple[str, bool]] = Field(description="[text, trained] runs, in order")


class SFTIn(Schema):
    learning_rate: Rate | None = None
    batch_size: int | None = Field(default=None, ge=1, le=4096)
    gradient_accumulation_steps: int | None = Field(default=None, ge=1, le=4096)
    max_length: int | None = Field(default=None, ge=8, le=1_048_576)
    warmup_ratio: float | None = Field(default=None, ge=0, lt=1, allow_inf_nan=False)
    weight_decay: float | None = Field(default=None, ge=0, le=10, allow_inf_nan=False)
    lr_scheduler: Literal["cosine", "linear", "constant"] | None = None


class GRPOIn(Schema):
    num_generations: int | None = Field(default=None, ge=2, le=1024)
    prompts_per_step: int | None = Field(default=None, ge=1, le=4096)
    learning_rate: Rate | None = None
    epsilon: float | None = Field(default=None, gt=0, le=10, allow_inf_nan=False)
    epsilon_high: float | None = Field(default=None, gt=0, le=10, allow_inf_nan=False)
    beta: float | None = Field(default=None, ge=0, le=100, allow_inf_nan=False)
    temperature: float | None = Field(default=None, gt=0, le=10, allow_inf_nan=False)
    loss_type: Literal["dapo", "dr_grpo", "grpo", "bnpo"] | None = None
    vllm: Literal["off", "colocate"] | None = Field(
        default=None, description="GPU workers: sample rollout turns with a colocated vLLM"
    )
    vllm_gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1, allow_inf_nan=False)
    reward: Literal["rubric", "shuffled"] | None = Field(
        default=None, description="shuffled: the random-reward control (rewards permuted per step)"
    )


class RolloutIn(Schema):
    max_turns: int | None = Field(default=None, ge=1, le=1000)
    max_turn_tokens: Tokens | None = None
    max_session_tokens: Tokens | None = None
    max_tool_chars: int | None = Field(default=None, ge=1, le=1_000_000)
    condense_at_tokens: Tokens | None = None
    max_invalid: int | None = Field(default=None, ge=1, le=100)


class LoraIn(Schema):
    r: int | None = Field(default=None, ge=0, le=1024, description="0: full fine-tuning")
    alpha: int | None = Field(default=None, ge=1, le=4096)
    dropout: float | None = Field(default=None, ge=0, lt=1, allow_inf_nan=False)
    target_modules: Text | None = Field(
        default=None, min_length=1, max_length=200, description="all-linear or a comma list"
    )


class JobParamsIn(Schema):
    """Unset fields take the defaults: QUEST-SPEC §6 for GRPO, §5 for rollout budgets."""

    max_steps: Steps | None = None
    save_steps: Steps | None = None
    logging_steps: Steps | None = None
    seed: int | None = Field(default=None, ge=0, le=INTEGER_MAX)
    resumable: bool | None = Field(
        default=None,
        description="true: the newest checkpoint keeps the optimiser state a resume needs (fp32); "
        "false (default): every checkpoint holds bf16 weights only",
    )
    sft: SFTIn | None = None
    grpo: GRPOIn | None = None
    rollout: RolloutIn | None = None
    lora: LoraIn | None = None


class TrainingJobIn(JobParamsIn):
    kind: Kind
    dataset_id: int = Field(ge=1, le=2**63 - 1)
    model: Text = Field(
        max_length=500,
        description="tiny, smollm2, a model directory under the training directory as REST "
        "shows it (runs/3/final), or an absolute path to one (here, or only on the gpu "
        "workers)",
    )
    name: Name = ""


class ConfigPreviewOut(Schema):
    yaml: str


class TrainingJobOut(Schema):
    id: int
    name: str
    kind: str
    status: StatusName
    model: str
    dataset_id: int | None
    resumed_from_id: int | None
    config: dict[str, Any]
    step: int
    max_steps: int
    cancel_requested: bool
    summary: dict[str, Any]
    error: str
    worker: str
    created_by: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str


class TrainingJobPageOut(Page[TrainingJobOut]):
    """A page of training jobs, newest first."""


class MetricOut(Schema):
    line: int
    step: int
    kind: str
    values: dict[str, float | None]


class RolloutOut(Schema):
    step: int
    index: int
    question: str
    completion: str
    status: str
    reward: float | None
    base: float | None
    citation: float | None
    valid_rate: float | None
    leaves_passed: int | None
    leaves_total: int | None
    reason: str


class RolloutPageOut(Page[RolloutOut]):
    """A page of a run's rollouts, newest step first."""

    steps: list[int] = Field(description="Every step that has rollouts, newest first")


class LogOut(Schema):
    text: str = Field(description="The end of the run's log (at most 64 KB)")


class CheckpointOut(Schema):
    name: str
    step: int
    size_bytes: int
    final: bool
    resumable: bool = Field(description="Holds the optimiser state: a job can resume from it")
    path: str


class ResumeIn(Schema):
    checkpoint: Text = Field(max_length=64, description="checkpoint-N of the job")
    max_steps: Steps | None = Field(default=None, description="default: the job's max_steps")


class CompareOut(Schema):
    jobs: list[TrainingJobOut]
    differences: dict[str, dict[str, Any]] = Field(
        description="Dotted config key → {job id: value}, for keys where the jobs differ"
    )
    series: dict[str, list[dict[str, Any]]] = Field(description="Job id → logged steps")


class PresetIn(Schema):
    name: Name
    kind: Kind
    model: Text = Field(max_length=500)
    params: JobParamsIn = Field(default_factory=JobParamsIn)


class PresetOut(Schema):
    id: int
    name: str
    config: dict[str, Any]
    created_by: str | None
    created_at: datetime


class TrainingEvaluationIn(Schema):
    checkpoint: Text = Field(default="final", max_length=64, description="final or checkpoint-N")
    compare_base: bool = Field(default=True, description="Also run the job's base model")
    limit: int = Field(default=40, ge=1, le=2000, description="Held-out tasks to run")
    max_turns: int | None = Field(default=None, ge=1, le=50)
    max_turn_tokens: int | None = Field(default=None, ge=16, le=10_240)


class TrainingEvaluationOut(Schema):
    id: int
    job_id: int | None
    checkpoint: str
    base_model: str
    status: StatusName
    task_ids: list[str]
    budgets: dict[str, Any]
    done: int
    total: int
    results: dict[str, Any]
    error: str
    created_by: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    url: str


class TrainingEvaluationPageOut(Page[TrainingEvaluationOut]):
    """A page of evaluations, newest first."""
