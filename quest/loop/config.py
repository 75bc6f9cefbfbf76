"""The recipe loop's config: every knob of every stage in one validated document, written to
DIR/loop.yaml on the first run and read back by every resumed one, so a loop's stages always
agree on what they were asked to do.

The defaults are sized for a 2-core CPU (see README "The whole recipe in one command"): the world
split, the path-guided teacher, bf16 autocast, a small tool budget per turn, few turns,
SmolLM2-135M-Instruct, greedy evaluation of 60 held-out and 30 out-of-family tasks. Measured on
seed 11 there: synth 1.3 min, collect 0.5, SFT 30 steps in 18; a GRPO step whose groups all
score 0 took 8 minutes (dynamic sampling rolls out twice), so GRPO reaches its 24 steps only once
the SFT policy earns some reward.
On a GPU worker the same document runs unchanged; the knobs that change there are `model`,
`grpo.num_generations`, `grpo.prompts_per_step`, `grpo.max_steps`, `grpo.vllm` and the rollout
budgets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from quest.agent.budgets import Budgets
from quest.training.config import (
    SMOLLM2,
    GRPOParams,
    LoraParams,
    RolloutBudgets,
    SFTParams,
    flat_fields,
)
from quest.untrusted_yaml import load_yaml

CONFIG_FILE = "loop.yaml"
OutOfFamily = Literal[
    "lookup",
    "find_k",
    "chain",
    "domain_chain",
    "chain_fanout",
    "comparison",
    "temporal_order",
    "aggregation",
    "intersection",
    "C1",
    "C2",
    "C3",
    "C4",
    "C5",
    "C6",
    "C7",
    "C8",
    "C9",
]
GATES = ("auto-accept-sound", "human")


class LoopError(ValueError):
    """A loop that cannot run as asked; the message says what to change."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SynthStage(_Strict):
    # `worlds`: the graph's entities are split into a train and a held-out world before any task
    # is proposed, and each side's tasks are synthesized in its own world
    # (quest.synthesis.worlds). `after`: one batch, split afterwards by shared entities
    # (quest.loop.split), which drops a third of the multi-domain tasks as mixed.
    split: Literal["worlds", "after"] = "worlds"
    # Proposals to the knowledge-graph generator: with `worlds`, those of the train world. Seed
    # 11 accepted 9 in 10 (README "The whole recipe in one command").
    tasks: int = Field(default=220, ge=2, le=2000)
    # `worlds`: proposals in the held-out world, outside the out-of-family slice ...
    heldout_tasks: int = Field(default=100, ge=1, le=2000)
    # ... and of the out-of-family slice, also in the held-out world (0: no slice).
    family_tasks: int = Field(default=50, ge=0, le=2000)
    # `worlds`: the share of the countries in the held-out world (what hangs off a country
    # follows it; quest.synthesis.worlds) ...
    world_share: float = Field(default=0.35, gt=0, lt=1)
    # `after`: the share of the tasks held out (quest.loop.split). The app's recipes split their
    # gated tasks this way, with its fixed share (apps.recipes).
    heldout_share: float = Field(default=0.2, gt=0, lt=1)
    # A family (chain, domain_chain, comparison ...) or class (C1..C9) never trained on: its
    # tasks are a held-out slice of their own. Country chains are about a tenth of the mix.
    out_of_family: OutOfFamily | None = "chain"


class CollectStage(_Strict):
    # `guided`: the path-guided teacher (quest.training.guided) walks each train task's solution
    # path; `scripted`: the scripted researcher alone. At the CPU budgets, on the 255 train tasks
    # of seed 11 (300 proposals), the guided teacher's rollouts reach 0.1 on 190 (mean 0.69),
    # the scripted researcher's on 15 (mean 0.06, nearly all lookups).
    teacher: Literal["guided", "scripted"] = "guided"
    # With the guided teacher: a scripted researcher's rollout where the teacher's is not kept.
    # Off by default: there it added 1 kept task in 65 tries.
    fallback: bool = False
    # The reward a rollout needs to become SFT data.
    min_reward: float = Field(default=0.1, ge=0, le=1)
    attempts: int = Field(default=1, ge=1, le=8)


class SFTStage(_Strict):
    max_steps: int = Field(default=30, ge=1)
    share: float = Field(default=0.35, gt=0, le=1)  # of the budget: the stage stops by then
    params: SFTParams = SFTParams(
        # Sessions of the CPU budgets run 2,300 to 3,500 tokens; a row cut at max_length loses
        # its end, which is the answer.
        learning_rate=1e-4,
        gradient_accumulation_steps=2,
        max_length=4096,
        lr_scheduler="constant",
    )


class GRPOStage(_Strict):
    # 24 steps of 2 prompts: 48 train tasks rolled out, the practised slice's 40 among them.
    max_steps: int = Field(default=24, ge=0)  # 0: no GRPO stage
    share: float = Field(default=0.55, gt=0, le=1)  # of the budget, counted from the loop's start
    params: GRPOParams = GRPOParams(
        num_generations=4, prompts_per_step=2, learning_rate=1e-5, temperature=0.8
    )


class EvalStage(_Strict):
    tasks: int = Field(default=60, ge=1)  # held-out tasks each model is evaluated on
    family_tasks: int = Field(default=30, ge=0)  # and out-of-family tasks (0: none)
    # and train tasks GRPO rolled out on, again greedy (0: none): does the optimisation work on
    # what it practised, before the other slices ask whether it generalises?
    practised_tasks: int = Field(default=40, ge=0)
    temperature: float = Field(default=0.0, ge=0)  # 0: greedy
    # Sessions sampled together. A wave's memory grows with it and with the context (their keys
    # and values are kept for the next turn): 12 sessions of 3,300 tokens peak near 6.3 GB on
    # the CPU, and the heaps are trimmed between waves (quest.training.heap). 40 passed 24 GB
    # before the prefill was chunked and the heaps bounded.
    batch: int = Field(default=12, ge=1, le=256)


class LoopConfig(_Strict):
    seed: int = 0
    minutes: float = Field(default=140.0, gt=0)
    # bf16 autocast for training and evaluation where the hardware computes bf16 and a parity
    # check holds (quest.training.precision); every model of a loop is evaluated in the same.
    precision: Literal["auto", "bf16", "fp32"] = "auto"
    gate: Literal["auto-accept-sound", "human"] = "human"
    model: str = SMOLLM2  # the base: tiny | smollm2 | a model directory
    rollout: RolloutBudgets = RolloutBudgets(
        max_turns=4,
        max_turn_tokens=256,
        max_session_tokens=1_024,
        max_tool_chars=2_000,  # a search shows its first 5 results: the records it needs
        condense_at_tokens=16_384,
        max_invalid=2,
    )
    synth: SynthStage = SynthStage()
    collect: CollectStage = CollectStage()
    sft: SFTStage = SFTStage()
    grpo: GRPOStage = GRPOStage()
    eval: EvalStage = EvalStage()
    lora: LoraParams = LoraParams()

    def budgets(self) -> Budgets:
        """The agent loop's budgets for every stage that runs it: collect, GRPO, evaluate."""
        return self.rollout.budgets()

    @model_validator(mode="after")
    def _shares(self) -> LoopConfig:
        if self.grpo.max_steps and self.grpo.share <= self.sft.share:
            raise ValueError("grpo.share must be above sft.share (both count from the start)")
        return self


def parse_loop_config(data: Any) -> LoopConfig:
    """A LoopConfig from decoded YAML. A nested section that is given only in part keeps the
    loop's defaults for the rest (`sft: {params: {max_length: 1024}}` changes that one field,
    not every SFT default back to a training run's). LoopError names the first bad field."""
    if not isinstance(data, dict):
        raise LoopError("the loop config must be a mapping of fields")
    try:
        return LoopConfig.model_validate(_merged(LoopConfig().model_dump(mode="json"), data))
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        message = str(problem["msg"]).removeprefix("Value error, ")
        if problem["type"] == "extra_forbidden":
            message = "unknown field"
        raise LoopError(f"{where}: {message}" if where else message) from None


def _merged(defaults: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    merged = dict(defaults)
    for key, value in given.items():
        if isinstance(value, dict) and isinstance(defaults.get(key), dict):
            merged[key] = _merged(defaults[key], value)
        else:
            merged[key] = value
    return merged


def read_loop_config(directory: Path) -> LoopConfig | None:
    path = directory / CONFIG_FILE
    if not path.is_file():
        return None
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise LoopError(f"{path}: not a loop config: {error}") from None
    return parse_loop_config(data)


def render_loop_config(config: LoopConfig) -> str:
    return str(yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False))


def changed_fields(saved: LoopConfig, asked: LoopConfig) -> list[str]:
    """The dotted fields where a resumed run's options differ from the saved config, besides
    `minutes` (a longer budget is how a cut-short loop completes)."""
    before = flat_fields(saved.model_dump(mode="json"))
    after = flat_fields(asked.model_dump(mode="json"))
    return sorted(
        k for k in before.keys() | after.keys() if before.get(k) != after.get(k) and k != "minutes"
    )
