"""Every session of a condensed rollout trained with the rollout's advantage
(quest.training.sessions): the scored batch extended row by row, and a GRPO run of the tiny model
whose rollouts condense training more rows than it has rollouts."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from quest.training.config import ConfigError, parse_config
from quest.training.sessions import EarlierSession, with_sessions

PAD = 0


class SingleProcessAccelerator:
    """What with_sessions asks of accelerate's Accelerator in a one-process run: gather is the
    identity (a real Accelerator needs a trainer around it)."""

    def gather(self, tensor: torch.Tensor) -> torch.Tensor:
        return tensor


def trainer(steps_per_generation: int = 1) -> Any:
    return SimpleNamespace(
        processing_class=SimpleNamespace(pad_token_id=PAD),
        args=SimpleNamespace(steps_per_generation=steps_per_generation),
        accelerator=SingleProcessAccelerator(),
    )


def scored() -> dict[str, Any]:
    """TRL's scored batch of two rollouts: prompts left-padded, completions right-padded."""
    return {
        "prompt_ids": torch.tensor([[PAD, 5, 6], [7, 8, 9]]),
        "prompt_mask": torch.tensor([[0, 1, 1], [1, 1, 1]]),
        "completion_ids": torch.tensor([[21, 22, PAD], [31, 32, 33]]),
        "completion_mask": torch.tensor([[1, 1, 0], [1, 1, 1]]),
        "tool_mask": torch.tensor([[1, 0, 1], [1, 1, 0]]),
        "advantages": torch.tensor([0.5, -0.5]),
        "num_items_in_batch": torch.tensor(3),
        "sampling_per_token_logps": torch.tensor([[-0.1, 0.0, 0.0], [-0.3, -0.4, 0.0]]),
    }


def test_earlier_sessions_become_rows_with_their_rollouts_advantage() -> None:
    earlier = [
        [EarlierSession([1, 2, 3, 4], [41, 42, 43, 44], [1, 1, 0, 1], [-1.0, -2.0, 0.0, -4.0])],
        [EarlierSession([9], [51], [0], [0.0])],  # nothing the model sampled: no row
    ]
    out = with_sessions(trainer(), scored(), earlier)
    assert out["advantages"].tolist() == [0.5, -0.5, 0.5]
    assert out["prompt_ids"].tolist() == [[PAD, PAD, 5, 6], [PAD, 7, 8, 9], [1, 2, 3, 4]]
    assert out["prompt_mask"].tolist() == [[0, 0, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]]
    assert out["completion_ids"][2].tolist() == [41, 42, 43, 44]
    assert out["completion_mask"].tolist() == [[1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]
    assert out["tool_mask"].tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 0, 1]]
    assert int(out["num_items_in_batch"]) == 1 + 2 + 3, "the loss counts every row's tokens"
    assert out["sampling_per_token_logps"][2].tolist() == [-1.0, -2.0, 0.0, -4.0]


def test_the_rows_are_filled_with_loss_free_rows_to_split_into_generation_steps() -> None:
    earlier = [[EarlierSession([1], [41], [1], [-1.0])], []]
    out = with_sessions(trainer(steps_per_generation=2), scored(), earlier)
    assert out["advantages"].shape[0] == 4
    assert out["advantages"][3] == 0.0 and out["completion_mask"][3].sum() == 0
    assert int(out["num_items_in_batch"]) == 1 + 2 + 1


def test_a_batch_it_cannot_rebuild_is_refused_rather_than_mangled() -> None:
    batch = {**scored(), "ref_per_token_logps": torch.zeros(2, 3)}
    with pytest.raises(ValueError, match="ref_per_token_logps"):
        with_sessions(trainer(), batch, [[EarlierSession([1], [2], [1], [-1.0])], []])


def test_the_config_refuses_all_sessions_with_a_reference_model_or_vllm() -> None:
    base = {"kind": "grpo", "model": "tiny", "dataset": "rl.jsonl", "corpus": "c",
            "output_dir": "o"}  # fmt: skip
    for grpo in ({"beta": 0.1}, {"vllm": "colocate"}):
        with pytest.raises(ConfigError, match="sessions: all needs beta 0"):
            parse_config({**base, "grpo": grpo})
    assert parse_config({**base, "grpo": {"beta": 0.1, "sessions": "last"}}).grpo.beta == 0.1


class ToolCallingSampler:
    """Stands in for the model's sampling in one test: every turn is the same well-formed
    search call, as a model warmed up by SFT would write. A 2-layer random model never writes a
    valid tool call, and only tool calls grow the context to a condensation; the trainer, the
    agent loop, the tools, the condenser and the loss are all real."""

    def __init__(self, tokenizer: Any) -> None:
        call = '<tool_call>\n{"name": "search", "arguments": {"query": ["capital"]}}\n</tool_call>'
        self.ids = [*tokenizer(call, add_special_tokens=False)["input_ids"], tokenizer.eos_token_id]

    def __call__(self, ids: list[int], room: int) -> tuple[list[int], list[float]]:
        return self.ids[:room], [-1.0] * len(self.ids[:room])


def test_a_run_whose_rollouts_condense_trains_their_earlier_sessions(
    rl_file: Path, corpus: Path, tmp_path: Path
) -> None:
    from quest.tools.offline import offline_toolbox
    from quest.training import trainers
    from quest.training.agent_rollouts import RolloutStats, make_rollout_func
    from quest.training.callbacks import stop_callback
    from quest.training.models import load_model
    from quest.training.precision import Precision

    config = parse_config(
        {
            "kind": "grpo", "model": "tiny", "dataset": str(rl_file), "corpus": str(corpus),
            "output_dir": str(tmp_path), "max_steps": 1, "save_steps": 10,
            "grpo": {"num_generations": 2, "prompts_per_step": 1},
            "rollout": {"max_turns": 4, "max_turn_tokens": 64, "max_session_tokens": 512,
                        "condense_at_tokens": 700},
        }
    )  # fmt: skip
    model, tokenizer = load_model("tiny")
    stop = stop_callback(tmp_path / "STOP")
    trainer = trainers._grpo_trainer(config, model, tokenizer, stop, Precision("fp32", "", "cpu"))
    trainer.rollout_func = make_rollout_func(
        toolbox=offline_toolbox(str(corpus)), budgets=trainers._budgets(config),
        temperature=1.0, stats=RolloutStats(), sampler=ToolCallingSampler(tokenizer),
    )  # fmt: skip
    trainer.train()
    step = next(json.loads(line) for line in (tmp_path / "metrics.jsonl").open())
    assert step["rollout/session_rows"] > 0, "the earlier sessions were trained"
    assert math.isfinite(step["loss"])
