"""GRPO learns: a policy whose rollouts earn different rewards moves towards the better one.

The tiny model (random weights) never answers, so every reward would be 0 and every gradient 0;
here it is first taught, by plain teacher forcing, to answer the Australia question with either
of two answers about equally often: one naming Canberra and citing its page (the real rubric
reward gives it 1.0) and one naming Sydney (0.0). GRPO then runs through the real trainer, the
real agent loop over the corpus tools and the real rubric reward. The policy never sees the
tree: it only ever gets the question.

That the gain is the reward's and not the optimiser's or the sampling's is shown by reversing
the reward: from the same warm start, the same run on a tree that wants Sydney moves the policy
the other way. A random-reward control (the true rewards permuted across the rollouts) cannot
show it in one short run: Adam's first update has the same size whatever the gradient's, so a
control step moves the policy about as far as a real one, towards Canberra or away from it as
the permutation happens to fall (with 8 rollouts, about one run in three towards it), and with
momentum and a decaying learning rate the first step carries most of a 5-step run. One control
run once gained 4.49 where the real run gained 4.63. What the control run shows is that it
trains on its permuted rewards and moves where they point, not where the rubric does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from training_helpers import AUSTRALIA, capital_tree

from quest.training.config import parse_config
from quest.training.models import load_model
from quest.training.rl import prompt_messages
from quest.training.trainers import run_training

GOOD = "<answer>Canberra is the capital (https://en.wikipedia.org/wiki/Canberra).</answer>"
BAD = "<answer>Sydney is the capital (https://en.wikipedia.org/wiki/Sydney).</answer>"
WARM_STEPS = 120
BUDGETS = {"max_turns": 2, "max_turn_tokens": 40, "max_session_tokens": 160}


pytestmark = pytest.mark.usefixtures("one_thread")


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _prompt_ids(tokenizer: Any) -> list[int]:
    text = tokenizer.apply_chat_template(
        prompt_messages(AUSTRALIA), tokenize=False, add_generation_prompt=True
    )
    return _ids(tokenizer, text)


def logprob(model_dir: Path | str, text: str) -> float:
    """log p(text | the Australia prompt) under the model in `model_dir`."""
    import torch

    model, tokenizer = load_model(str(model_dir))
    model.eval()
    prompt, completion = _prompt_ids(tokenizer), _ids(tokenizer, text)
    with torch.no_grad():
        logits = model(torch.tensor([prompt + completion]), logits_to_keep=len(completion) + 1)
    scores = logits.logits[0, :-1].log_softmax(-1)
    return float(scores.gather(1, torch.tensor(completion)[:, None]).sum())


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model taught both answers by teacher forcing (not the system under test)."""
    return teach(tmp_path_factory.mktemp("warm"), [GOOD, BAD], seed=0)


def teach(folder: Path, answers: list[str], *, seed: int) -> Path:
    """The tiny model, taught `answers` to the Australia prompt by teacher forcing, in `folder`."""
    import torch

    model, tokenizer = load_model("tiny", seed=seed)
    prompt = _prompt_ids(tokenizer)
    rows = [[*_ids(tokenizer, text), int(tokenizer.eos_token_id)] for text in answers]
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(WARM_STEPS):
        loss = sum(
            torch.nn.functional.cross_entropy(
                model(torch.tensor([prompt + row]), logits_to_keep=len(row) + 1).logits[0, :-1],
                torch.tensor(row),
            )
            for row in rows
        )
        optimiser.zero_grad()
        loss.backward()  # type: ignore[union-attr]
        optimiser.step()
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def rl_rows(path: Path, *cities: str) -> Path:
    """One RL row per city: the Australia question, with a tree that wants that city."""
    rows = [
        {
            "prompt": prompt_messages(AUSTRALIA),
            "task_id": f"australia-{city.lower()}",
            "question": AUSTRALIA,
            "ground_truth": json.dumps(capital_tree(AUSTRALIA, city)),
        }
        for city in cities
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def grpo(
    model: Path,
    data: Path,
    corpus: Path,
    out: Path,
    steps: int,
    *,
    save_steps: int = 1_000,
    **params: Any,
) -> list[dict[str, Any]]:
    config = parse_config(
        {
            "kind": "grpo",
            "model": str(model),
            "dataset": str(data),
            "corpus": str(corpus),
            "output_dir": str(out),
            "max_steps": steps,
            "save_steps": save_steps,
            "grpo": {
                "num_generations": 8,
                "prompts_per_step": 1,
                "learning_rate": 1e-3,
                "temperature": 1.0,
                **params,
            },
            "rollout": BUDGETS,
        }
    )
    assert run_training(config)["status"] == "finished"
    lines = (out / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "step"]


def test_the_warm_start_answers_either_way(warm: Path) -> None:
    # Both answers are likely (the rest of the mass is on broken variants): the groups of
    # the tests below earn different rewards because of what the policy samples.
    assert logprob(warm, GOOD) > -2.0 and logprob(warm, BAD) > -2.0


@pytest.fixture(scope="module")
def real(warm: Path, corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five GRPO steps on the rubric reward from the warm start."""
    out = tmp_path_factory.mktemp("real")
    grpo(warm, rl_rows(out / "rl.jsonl", "Canberra"), corpus, out / "run", CONTROL_STEPS)
    return out / "run"


CONTROL_STEPS = 5
# Fewer steps where fewer show it: each GRPO step here is tens of seconds on two cores. The
# reversed run's first steps already move it by nats; the shuffled one is read at step 1.
REVERSED_STEPS = 3
SHUFFLED_STEPS = 2


def _steps(run: Path) -> list[dict[str, Any]]:
    lines = (run / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "step"]


def _margin(model_dir: Path) -> float:
    """How much likelier the good answer is than the bad one (log-odds)."""
    return logprob(model_dir, GOOD) - logprob(model_dir, BAD)


def test_grpo_raises_the_better_answers_probability_and_the_groups_reward(
    warm: Path, real: Path
) -> None:
    good, bad = logprob(warm, GOOD), logprob(warm, BAD)
    steps = _steps(real)
    first = steps[0]
    # Rewards differ in the group: advantages and gradients are not 0.
    assert first["reward_std"] > 0 and first["grad_norm"] > 0
    assert first["frac_reward_zero_std"] == 0.0
    assert 0 < first["reward"] < 1
    after_good, after_bad = logprob(real / "final", GOOD), logprob(real / "final", BAD)
    assert after_good > good + 0.2, (good, after_good)
    assert after_bad < bad - 0.2, (bad, after_bad)
    late = sum(s["reward"] for s in steps[-2:]) / 2
    assert late > first["reward"], [s["reward"] for s in steps]
    # The reward's components are logged each step.
    assert {"reward/base", "reward/citation", "reward/answered", "reward/leaves"} <= set(first)


def test_a_reward_that_wants_the_other_answer_teaches_the_other_answer(
    warm: Path, real: Path, corpus: Path, tmp_path: Path
) -> None:
    """The gain is the reward's, not the optimiser's or the sampling's: the same run (seed,
    budgets, steps, warm start) on a tree that wants Sydney moves the policy the other way."""
    data = rl_rows(tmp_path / "rl.jsonl", "Sydney")
    steps = grpo(warm, data, corpus, tmp_path / "sydney", REVERSED_STEPS)
    assert steps[0]["reward_std"] > 0 and 0 < steps[0]["reward"] < 1
    start = _margin(warm)
    real_gain = _margin(real / "final") - start
    reversed_gain = _margin(tmp_path / "sydney" / "final") - start
    assert real_gain > 0.4, real_gain
    assert reversed_gain < -0.4, reversed_gain


def _pull(rows: list[dict[str, Any]]) -> float:
    """How far a step's trained rewards point towards what the rubric rewards: their
    covariance with the true rewards, summed over the rollouts (the real reward's is its
    variance, above 0; a permutation's is 0 on average, either side of it in one step)."""
    trained = [r["trained_reward"] for r in rows]
    true = [r["reward"] for r in rows]
    mean_trained, mean_true = sum(trained) / len(rows), sum(true) / len(rows)
    return sum((a - mean_trained) * (b - mean_true) for a, b in zip(trained, true, strict=True))


def test_the_random_reward_control_trains_on_its_permuted_rewards(
    warm: Path, corpus: Path, tmp_path: Path
) -> None:
    """The same run with each step's rewards permuted across its rollouts (grpo.reward:
    shuffled): same seed, task, budgets and reward mean. What trains is a permutation of the
    true rewards, and the policy moves where the permuted rewards point, not where the rubric
    does. (Whether it ends above or below its start is the permutation's luck: see the module
    docstring; the reversed reward above is what shows the gain is the reward's.)"""
    data = rl_rows(tmp_path / "rl.jsonl", "Canberra")
    run = tmp_path / "control"
    control = grpo(warm, data, corpus, run, SHUFFLED_STEPS, reward="shuffled", save_steps=1)
    assert len(control) == SHUFFLED_STEPS
    # What trained was a permutation of the true rewards, which the rollouts file keeps.
    rows = [json.loads(line) for line in (run / "rollouts.jsonl").open()]
    for step in {row["step"] for row in rows}:
        mine = [row for row in rows if row["step"] == step]
        assert sorted(r["trained_reward"] for r in mine) == sorted(r["reward"] for r in mine)
    assert any(row["trained_reward"] != row["reward"] for row in rows)
    # The first update follows the permuted rewards: towards the good answer when they
    # happened to favour it, away from it when they favoured the others.
    pull = _pull([row for row in rows if row["step"] == 1])
    moved = _margin(run / "checkpoint-1") - _margin(warm)
    if abs(pull) > 0.1:
        assert moved * pull > 0, (moved, pull)


def test_an_all_equal_group_adds_no_gradient_and_is_counted(
    warm: Path, corpus: Path, tmp_path: Path
) -> None:
    import torch

    # A tree that wants Melbourne: neither answer earns anything, so every reward is 0.
    data = rl_rows(tmp_path / "rl.jsonl", "Melbourne")
    [step] = grpo(warm, data, corpus, tmp_path / "run", 1)
    assert step["reward"] == 0.0 and step["reward_std"] == 0.0
    assert step["frac_reward_zero_std"] == 1.0
    assert step["grad_norm"] == 0.0 and step["loss"] == 0.0
    # No other task to replace it with: it stays in the batch, counted as all-equal.
    assert step["dynamic/zero_std_trained"] == 1.0 and step["dynamic/dropped_groups"] == 0.0
    before, _ = load_model(str(warm))
    after, _ = load_model(str(tmp_path / "run" / "final"))
    for (name, a), (_, b) in zip(
        before.state_dict().items(), after.state_dict().items(), strict=True
    ):
        assert torch.equal(a.bfloat16().float(), b), name  # the final model is stored in bf16


def test_dynamic_sampling_replaces_an_all_equal_group_with_an_informative_one(
    warm: Path, corpus: Path, tmp_path: Path
) -> None:
    data = rl_rows(tmp_path / "rl.jsonl", "Melbourne", "Canberra")
    steps = grpo(warm, data, corpus, tmp_path / "run", 2)
    # Whichever task the sampler drew, no step trained an all-equal group: the Melbourne
    # group was replaced after its rollouts or swapped out before them.
    assert all(s["dynamic/zero_std_trained"] == 0.0 for s in steps)
    assert all(s["grad_norm"] > 0 for s in steps)
    assert sum(s["dynamic/dropped_groups"] + s["dynamic/swapped"] for s in steps) > 0
    # Off, the same draws train on whatever they got.
    off = grpo(warm, data, corpus, tmp_path / "off", 2, curriculum=False)
    assert not any(key.startswith("dynamic/") for key in off[0])


TEACHER = (
    "<think>\nSearch for the capital.\n</think>\n<tool_call>\n"
    '{"name": "search", "arguments": {"query": ["capital of Australia"]}}\n</tool_call>'
)


def test_an_sft_checkpoint_writes_its_training_turn_through_the_evaluations_path(
    tmp_path: Path,
) -> None:
    """The Trainer's checkpoint, loaded and decoded as the evaluation does (load_model, the
    batch sampler, greedy), writes the valid turn it was trained on, token for token."""
    from quest.protocol.turns import parse_turn
    from quest.training.agent_rollouts import BatchSampler, TokenPolicy

    teach(tmp_path / "warm", [TEACHER], seed=1)
    messages = prompt_messages(AUSTRALIA)
    data = tmp_path / "sft.jsonl"
    turn = {"role": "assistant", "content": TEACHER, "loss": True}
    rows = [{"messages": [*({**m, "loss": False} for m in messages), turn]}]
    data.write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    config = parse_config(
        {
            "kind": "sft",
            "model": str(tmp_path / "warm"),
            "dataset": str(data),
            "output_dir": str(tmp_path / "sft"),
            "max_steps": 1,
            "save_steps": 1,
            "sft": {"gradient_accumulation_steps": 1, "max_length": 512, "learning_rate": 1e-6},
        }
    )
    run_training(config)
    checkpoint, tokenizer = load_model(str(tmp_path / "sft" / "checkpoint-1"))
    checkpoint.eval()
    sampler = BatchSampler(checkpoint, tokenizer, 0.0, logprobs=False)
    policy = TokenPolicy(checkpoint, tokenizer, max_tokens=64, sampler=sampler.sample)
    written = policy.next_turn(messages).text
    assert written == TEACHER
    assert parse_turn(written).kind == "tool_call"


def test_a_checkpoint_missing_weights_is_refused_not_filled_at_random(tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    from quest.llm.types import LLMError

    model, tokenizer = load_model("tiny")
    model.save_pretrained(str(tmp_path))
    tokenizer.save_pretrained(str(tmp_path))
    weights = load_file(str(tmp_path / "model.safetensors"))
    del weights["lm_head.weight"]
    save_file(weights, str(tmp_path / "model.safetensors"), metadata={"format": "pt"})
    with pytest.raises(LLMError, match=r"lm_head\.weight"):
        load_model(str(tmp_path))
