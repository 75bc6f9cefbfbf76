"""A training run's config (`python -m quest train CONFIG.yaml`): one YAML document, validated.

    kind: grpo                  # sft | grpo | mid
    model: tiny                 # tiny | smollm2 | a local Hugging Face model directory
    dataset: var/rl.jsonl       # one path or a list: SFT/mid rows, or the RL set's TRL layout
    corpus: var/corpus          # grpo: the corpus the tools search and the reward reads
    output_dir: var/runs/grpo-1
    max_steps: 200

Unset fields take the defaults below: QUEST-SPEC §6 for GRPO (group 8, lr 1e-6, clip 0.2/0.28,
no KL, temperature 1.0, DAPO token-mean loss, 16 prompts per step) and §5 for the rollout
budgets. An unknown or bad field is a ConfigError whose message starts with the field's dotted
name. Paths are checked by `check_paths`, not here: a config may name paths that exist only on
the machine that runs it (a GPU worker), and the web form previews it with `render_yaml`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from quest.agent.budgets import Budgets
from quest.untrusted_yaml import load_yaml

TINY = "tiny"
SMOLLM2 = "smollm2"
STOP_FILE = "STOP"
# What the Trainer restores a run from besides its weights; only a checkpoint that still holds
# it can be resumed (see TrainConfig.resumable).
OPTIMIZER_FILE = "optimizer.pt"
CHECKPOINT_PREFIX = "checkpoint-"  # the Trainer's checkpoint-N directories


class ConfigError(ValueError):
    """A config that cannot run; the message names the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RolloutBudgets(_Strict):
    """QUEST-SPEC §5, RL column."""

    max_turns: int = Field(default=50, ge=1)
    max_turn_tokens: int = Field(default=10_240, ge=1)
    max_session_tokens: int = Field(default=12_288, ge=1)  # the policy's tokens in one session
    max_tool_chars: int = Field(default=12_000, ge=1)
    condense_at_tokens: int = Field(default=16_384, ge=1)
    max_invalid: int = Field(default=3, ge=1)

    def budgets(self) -> Budgets:
        """The agent loop's budgets (quest.agent.Budgets) for these settings."""
        return Budgets(
            max_turns=self.max_turns,
            max_session_response_tokens=self.max_session_tokens,
            max_turn_tokens=self.max_turn_tokens,
            max_tool_chars=self.max_tool_chars,
            condense_at_tokens=self.condense_at_tokens,
            max_invalid=self.max_invalid,
        )


def flat_fields(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"grpo": {"epsilon": 0.2}} -> {"grpo.epsilon": 0.2}: how configs are compared."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flat_fields(value, f"{name}."))
        else:
            flat[name] = value
    return flat


class LoraParams(_Strict):
    """LoRA adapters (peft) instead of full fine-tuning when r > 0; the final model is saved
    merged, so evaluation and a next run load it as any model directory."""

    r: int = Field(default=0, ge=0)
    alpha: int = Field(default=32, ge=1)
    dropout: float = Field(default=0.05, ge=0, lt=1)
    target_modules: str = "all-linear"


class SFTParams(_Strict):
    learning_rate: float = Field(default=1e-5, gt=0)
    batch_size: int = Field(default=1, ge=1)
    gradient_accumulation_steps: int = Field(default=8, ge=1)
    max_length: int = Field(default=16_384, ge=8)  # tokens per row; longer rows are cut at the end
    warmup_ratio: float = Field(default=0.03, ge=0, lt=1)
    weight_decay: float = Field(default=0.0, ge=0)
    lr_scheduler: Literal["cosine", "linear", "constant"] = "cosine"


class GRPOParams(_Strict):
    num_generations: int = Field(default=8, ge=2)
    prompts_per_step: int = Field(default=16, ge=1)
    learning_rate: float = Field(default=1e-6, gt=0)
    epsilon: float = Field(default=0.2, gt=0)
    epsilon_high: float = Field(default=0.28, gt=0)
    beta: float = Field(default=0.0, ge=0)  # KL coefficient; 0: no reference model
    temperature: float = Field(default=1.0, gt=0)
    loss_type: Literal["dapo", "dr_grpo", "grpo", "bnpo"] = "dapo"
    # GPU workers: rollout turns sampled by a vLLM engine colocated with each training process
    # (TRL's vllm_mode "colocate"); "off": the model's own generate (CPU, tests).
    vllm: Literal["off", "colocate"] = "off"
    vllm_gpu_memory_utilization: float = Field(default=0.3, gt=0, le=1)
    # "all": every session of a rollout is a training row with the rollout's advantage
    # (quest.training.sessions); "last": only the session that wrote the answer.
    sessions: Literal["all", "last"] = "all"
    # Signal in every step (quest.training.dynamic): tasks whose last group was all-equal are
    # swapped for informative ones, and all-equal groups are replaced by fresh groups for at
    # most `dynamic_rounds` extra rounds of rollouts a step (0: none).
    curriculum: bool = True
    dynamic_rounds: int = Field(default=1, ge=0, le=8)
    # "shuffled": the random-reward control. Each step's rubric rewards are permuted across the
    # step's rollouts (same mean and spread, no link to the answers), so a gain over it is the
    # reward's, not the optimiser's or the sampling's. The true rewards are still logged.
    reward: Literal["rubric", "shuffled"] = "rubric"

    @model_validator(mode="after")
    def _clip_higher(self) -> GRPOParams:
        if self.epsilon_high < self.epsilon:
            raise ValueError("epsilon_high must be at least epsilon (clip-higher)")
        if self.sessions == "all" and (self.beta > 0 or self.vllm != "off"):
            raise ValueError(
                "sessions: all needs beta 0 and vllm off (the extra rows would need reference "
                "log-probs and vLLM importance ratios); use sessions: last"
            )
        return self


# SFT defaults of the built-in models where the paper's (8 accumulated rows of up to 16,384
# tokens) do not fit: `tiny` is a smoke-test model (its 6-step run took 18 minutes with the
# paper's), and SmolLM2 reads 8,192 tokens at most; 2 accumulated rows of 4,096 are what the
# recipe loop trains it with on a 2-core CPU. A config that gives a field keeps its value.
MODEL_SFT: dict[str, dict[str, Any]] = {
    TINY: {"gradient_accumulation_steps": 1, "max_length": 2_048},
    SMOLLM2: {"gradient_accumulation_steps": 2, "max_length": 4_096},
}


class TrainConfig(_Strict):
    kind: Literal["sft", "grpo", "mid"]
    model: str = Field(min_length=1)
    dataset: list[str] = Field(min_length=1)
    output_dir: str = Field(min_length=1)
    corpus: str | None = None
    max_steps: int = Field(default=200, ge=1)
    save_steps: int = Field(default=50, ge=1)
    logging_steps: int = Field(default=1, ge=1)
    seed: int = 0
    resume_from: str | None = None
    # False: every checkpoint holds the model weights only, in bf16 (a SmolLM2 one is 270 MB;
    # with the optimiser's state it was 1.6 GB). True: the newest checkpoint also keeps the
    # fp32 weights and the optimiser, scheduler and RNG state that `resume_from` needs, and each
    # older one is cut to bf16 weights when a newer one is written.
    resumable: bool = False
    # auto: bf16 autocast where the hardware computes bf16 and a parity check on the model holds
    # (quest.training.precision); bf16 forces it, fp32 turns it off.
    precision: Literal["auto", "bf16", "fp32"] = "auto"
    stop_file: str | None = None  # default: OUTPUT_DIR/STOP
    sft: SFTParams = Field(default_factory=SFTParams)
    grpo: GRPOParams = Field(default_factory=GRPOParams)
    rollout: RolloutBudgets = Field(default_factory=RolloutBudgets)
    lora: LoraParams = Field(default_factory=LoraParams)

    @model_validator(mode="before")
    @classmethod
    def _one_dataset(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("dataset"), str):
            return {**data, "dataset": [data["dataset"]]}
        return data

    @model_validator(mode="before")
    @classmethod
    def _sft_fits_the_model(cls, data: Any) -> Any:
        """The SFT fields a config leaves out, sized for the model it names (MODEL_SFT)."""
        if not isinstance(data, dict) or data.get("model") not in MODEL_SFT:
            return data
        given = data.get("sft")
        if given is not None and not isinstance(given, dict):
            return data  # the field's own validation says what is wrong
        return {**data, "sft": {**MODEL_SFT[data["model"]], **(given or {})}}

    @model_validator(mode="after")
    def _grpo_needs_a_corpus(self) -> TrainConfig:
        if self.kind == "grpo" and not self.corpus:
            raise ValueError("corpus: a grpo run needs the corpus its tools search")
        return self

    @property
    def stop_path(self) -> Path:
        return Path(self.stop_file) if self.stop_file else Path(self.output_dir) / STOP_FILE


def parse_config(data: Any) -> TrainConfig:
    """A TrainConfig from decoded YAML; ConfigError names the first bad field."""
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping of fields (kind, model, dataset, ...)")
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(_first_problem(error)) from None


def load_config(path: str | Path) -> TrainConfig:
    source = Path(path)
    try:
        data = load_yaml(source.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not YAML: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: not UTF-8 text") from None
    return parse_config(data)


def render_yaml(config: TrainConfig) -> str:
    """The resolved config, every default written out, as YAML that load_config reads back."""
    return str(yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False))


def check_paths(config: TrainConfig) -> None:
    """ConfigError for an input path missing on this machine."""
    for path in config.dataset:
        if not Path(path).is_file():
            raise ConfigError(f"dataset: {path}: no such file")
    if config.kind == "grpo" and any(Path(p).suffix != ".jsonl" for p in config.dataset):
        raise ConfigError("dataset: grpo reads the RL set in TRL's layout (.jsonl)")
    if config.corpus and not Path(config.corpus).is_dir():
        raise ConfigError(f"corpus: {config.corpus}: no such directory")
    if config.resume_from:
        _check_resumable(Path(config.resume_from))
    if config.model not in (TINY, SMOLLM2) and not (Path(config.model) / "config.json").is_file():
        raise ConfigError(
            f"model: {config.model}: not {TINY!r}, {SMOLLM2!r} or a model directory with a "
            "config.json"
        )


def checkpoint_step(checkpoint: Path) -> int | None:
    """N of a `checkpoint-N` directory, or None for any other name."""
    number = checkpoint.name.removeprefix(CHECKPOINT_PREFIX)
    return (
        int(number) if checkpoint.name.startswith(CHECKPOINT_PREFIX) and number.isdigit() else None
    )


def holds_optimizer_state(checkpoint: Path) -> bool:
    """Whether `checkpoint` can be resumed: the optimiser's state is there, not pruned."""
    return (checkpoint / OPTIMIZER_FILE).is_file()


def _check_resumable(checkpoint: Path) -> None:
    if not (checkpoint / "trainer_state.json").is_file():
        raise ConfigError(f"resume_from: {checkpoint}: not a checkpoint directory")
    # The Trainer would start a fresh optimiser and learning-rate schedule, silently.
    if not holds_optimizer_state(checkpoint):
        raise ConfigError(
            f"resume_from: {checkpoint}: holds the weights only, no optimiser state (the run "
            "was not resumable, or a newer checkpoint was written after it); train from its "
            f"weights with model: {checkpoint} instead"
        )


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"])
    message = str(problem["msg"]).removeprefix("Value error, ")
    if problem["type"] == "extra_forbidden":
        message = "unknown field"
    if message.startswith("corpus: "):  # a cross-field rule names its own field
        return message
    return f"{where}: {message}" if where else message
