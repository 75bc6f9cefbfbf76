"""GRPO rollouts sampled by vLLM on GPU workers (grpo.vllm: colocate). vLLM cannot run on this
CPU machine, so the engine is a stand-in here, named as such: an object with the two methods
TRL 1.16's VLLMGeneration offers (generate, sync_weights), answering with fixed token ids. What
is tested is questweb's side: weights synced once per step, the turn cut to its budget, the
log-probs kept, and the config reaching GRPOConfig."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from quest.training.agent_rollouts import vllm_sampler
from quest.training.config import ConfigError, parse_config
from quest.training.trainers import _vllm


class VLLMGenerationStandIn:
    """Answers every prompt with ids 11, 12, 13, 14 and log-probs -0.1 … -0.4."""

    def __init__(self) -> None:
        self.prompts: list[list[int]] = []
        self.syncs = 0

    def sync_weights(self) -> None:
        self.syncs += 1

    def generate(
        self, prompts: list[list[int]], images: Any, num_generations: int
    ) -> tuple[Any, Any, Any, Any]:
        assert num_generations == 1 and images is None
        self.prompts.extend(prompts)
        ids = [[11, 12, 13, 14] for _ in prompts]
        logprobs = [[[-0.1], [-0.2], [-0.3], [-0.4]] for _ in prompts]
        return prompts, ids, logprobs, None


def trainer(step: int, generation: VLLMGenerationStandIn, loaded: int | None = None) -> Any:
    fields = {"vllm_generation": generation, "state": SimpleNamespace(global_step=step)}
    if loaded is not None:
        fields["_last_loaded_step"] = loaded
    return SimpleNamespace(**fields)


def test_a_turn_is_sampled_by_the_engine_and_cut_to_the_turn_budget() -> None:
    engine = VLLMGenerationStandIn()
    sample = vllm_sampler(trainer(0, engine))
    assert sample([1, 2, 3], 3) == ([11, 12, 13], [-0.1, -0.2, -0.3])
    assert sample([1, 2, 3, 11, 12, 13, 9], 8) == ([11, 12, 13, 14], [-0.1, -0.2, -0.3, -0.4])
    assert engine.prompts == [[1, 2, 3], [1, 2, 3, 11, 12, 13, 9]]


def test_weights_are_synced_once_a_step_before_its_rollouts() -> None:
    engine = VLLMGenerationStandIn()
    current = trainer(3, engine, loaded=2)
    vllm_sampler(current)
    vllm_sampler(current)  # a second rollout batch in the same step
    assert engine.syncs == 1 and current._last_loaded_step == 3


def test_the_config_turns_colocated_vllm_on_and_refuses_server_mode() -> None:
    base = {"kind": "grpo", "model": "tiny", "dataset": "rl.jsonl", "corpus": "c",
            "output_dir": "out"}  # fmt: skip
    grpo = {"vllm": "colocate", "vllm_gpu_memory_utilization": 0.5, "sessions": "last"}
    on = parse_config({**base, "grpo": grpo})
    assert _vllm(on.grpo) == {"use_vllm": True, "vllm_mode": "colocate",
                              "vllm_gpu_memory_utilization": 0.5}  # fmt: skip
    assert _vllm(parse_config(base).grpo) == {}
    with pytest.raises(ConfigError, match=r"grpo\.vllm"):
        parse_config({**base, "grpo": {"vllm": "server", "sessions": "last"}})
