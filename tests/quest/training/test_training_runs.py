"""Training runs of the tiny model (random weights, SmolLM2's tokenizer) end to end: SFT on rows
the real dataset builder wrote, GRPO through real agent rollouts over the corpus tools, stop and
resume, the config and the CLI."""

from __future__ import annotations

import json
import math
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from training_helpers import AUSTRALIA

from quest.agent.prompts import message, tool_response
from quest.cli import main
from quest.corpus.store import CorpusStore
from quest.tools import Toolbox
from quest.training import SFTBuilder, read_jsonl, read_rollouts, read_tasks
from quest.training import write_jsonl as write_rows
from quest.training.agent_rollouts import TokenPolicy
from quest.training.config import ConfigError, TrainConfig, load_config, parse_config, render_yaml
from quest.training.models import tiny_model
from quest.training.precision import PRECISION_FILE
from quest.training.rl import prompt_messages
from quest.training.trainers import run_training, sft_examples

# Short rows and steps: the runs take seconds on 2 cores.
SFT = {"gradient_accumulation_steps": 1, "max_length": 448, "warmup_ratio": 0.0}
GRPO = {"num_generations": 2, "prompts_per_step": 1}
BUDGETS = {"max_turns": 2, "max_turn_tokens": 12, "max_session_tokens": 48}


pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def sft_file(
    tmp_path_factory: pytest.TempPathFactory, rollouts_file: Path, tasks_file: Path, corpus: Path
) -> Path:
    builder = SFTBuilder(tasks=read_tasks(tasks_file), store=CorpusStore(corpus))
    path = tmp_path_factory.mktemp("sft") / "sft.jsonl"
    write_rows(path, builder.rows(read_rollouts(read_jsonl(rollouts_file))))
    return path


def sft_config(data: Path, out: Path, **fields: Any) -> TrainConfig:
    base = {"kind": "sft", "model": "tiny", "dataset": str(data), "output_dir": str(out)}
    return parse_config({**base, "max_steps": 2, "save_steps": 2, "sft": SFT, **fields})


def metrics(out: Path) -> list[dict[str, Any]]:
    lines = (out / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "step"]


def test_an_sft_run_trains_the_tiny_model_and_writes_metrics_checkpoints_and_the_model(
    sft_file: Path, tmp_path: Path
) -> None:
    summary = run_training(sft_config(sft_file, tmp_path))
    assert summary["status"] == "finished" and summary["steps"] == 2
    steps = metrics(tmp_path)
    assert [r["step"] for r in steps] == [1, 2]
    for record in steps:
        assert math.isfinite(record["loss"]) and record["loss"] > 0
        assert record["grad_norm"] > 0 and record["learning_rate"] > 0
        assert record["step_s"] > 0 and record["tokens_per_s"] > 0
    assert (tmp_path / "checkpoint-2" / "trainer_state.json").is_file()
    assert (tmp_path / "final" / "config.json").is_file()
    assert load_config(tmp_path / "config.yaml") == sft_config(sft_file, tmp_path)


def test_sft_trains_only_the_models_turns(sft_file: Path, smollm2_tokenizer: Any) -> None:
    rows = [row for _, row in read_jsonl(sft_file)]
    examples = list(sft_examples([str(sft_file)], smollm2_tokenizer, 100_000))
    assert len(examples) == len(rows)
    for row, example in zip(rows, examples, strict=True):
        trained = [t for t in example["labels"] if t != -100]
        text = smollm2_tokenizer.decode(trained)
        spoken = [m["content"] for m in row["messages"] if m["loss"]]
        assert text == "".join(f"{content}<|im_end|>\n" for content in spoken)
        assert "<tool_response>" not in text


def test_a_grpo_run_rolls_out_the_agent_with_the_corpus_tools_and_logs_the_reward(
    rl_file: Path, corpus: Path, tmp_path: Path
) -> None:
    config = parse_config(
        {
            "kind": "grpo",
            "model": "tiny",
            "dataset": str(rl_file),
            "corpus": str(corpus),
            "output_dir": str(tmp_path),
            "max_steps": 1,
            "save_steps": 1,
            "grpo": GRPO,
            "rollout": BUDGETS,
        }
    )
    summary = run_training(config)
    assert summary["status"] == "finished" and summary["steps"] == 1
    [step] = metrics(tmp_path)
    # A random model never calls a tool or answers: every rollout ends at its budget with 0.
    assert step["reward"] == 0.0 and step["reward_std"] == 0.0
    assert step["reward/base"] == 0.0 and step["reward/citation"] == 0.0
    assert step["rollout/turns"] >= 2 and step["rollout/answered"] == 0.0
    # Turns after the first continue from their session's kept keys and values.
    assert 0.0 < step["rollout/prefix_reused"] < 1.0
    assert math.isfinite(step["entropy"]) and step["completions/mean_length"] > 0
    shares = step["share/rollout"] + step["share/reward"] + step["share/optimisation"]
    assert step["share/rollout"] > 0 and shares == pytest.approx(1.0)
    assert (tmp_path / "checkpoint-1" / "trainer_state.json").is_file()


def test_a_rollout_trains_the_sampled_tokens_and_not_the_tool_response(
    smollm2_tokenizer: Any, toolbox: Toolbox
) -> None:
    import torch

    model = tiny_model(smollm2_tokenizer).eval()
    policy = TokenPolicy(model, smollm2_tokenizer, temperature=1.0, max_tokens=8)
    messages = prompt_messages(AUSTRALIA, toolbox.names())
    first = policy.next_turn(messages)
    # What the loop appends after a search call: the real tool's result.
    result = toolbox.call("search", {"query": ["capital of Australia"]}).text
    messages = [*messages, message("assistant", first.text), message("user", tool_response(result))]
    second = policy.next_turn(messages)
    [session] = policy.sessions
    env = [t for t, m in zip(session.completion_ids, session.env_mask, strict=True) if not m]
    assert "Canberra" in result and result in smollm2_tokenizer.decode(env)
    assert sum(session.env_mask) == first.completion_tokens + second.completion_tokens
    # The log-probs recorded while sampling are the trainer's forward pass over the same ids.
    with torch.no_grad():
        logits = model(torch.tensor([session.ids])).logits[0, len(session.prompt_ids) - 1 : -1]
    forward = torch.log_softmax(logits, dim=-1).gather(
        1, torch.tensor(session.completion_ids)[:, None]
    )
    for logprob, again, trained in zip(
        session.logprobs, forward[:, 0], session.env_mask, strict=True
    ):
        if trained:
            assert logprob == pytest.approx(float(again), abs=1e-4)


def test_sigterm_stops_a_run_with_a_checkpoint_and_resume_continues_its_steps(
    sft_file: Path, tmp_path: Path
) -> None:
    def terminate_after_the_first_step() -> None:
        while not (tmp_path / "metrics.jsonl").exists():
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=terminate_after_the_first_step, daemon=True).start()
    long = {"max_steps": 50, "save_steps": 50, "resumable": True}
    stopped = run_training(sft_config(sft_file, tmp_path, **long))
    assert stopped["status"] == "stopped" and stopped["steps"] < 50
    checkpoint = tmp_path / f"checkpoint-{stopped['steps']}"
    assert checkpoint.is_dir() and not (tmp_path / "final").exists()

    resumed = sft_config(
        sft_file,
        tmp_path,
        max_steps=stopped["steps"] + 1,
        resume_from=str(checkpoint),
        resumable=True,
    )
    summary = run_training(resumed)
    assert summary["status"] == "finished" and summary["steps"] == stopped["steps"] + 1
    assert [r["step"] for r in metrics(tmp_path)][-1] == stopped["steps"] + 1


def test_a_stop_file_stops_a_run_after_the_step_it_appears_in(
    sft_file: Path, tmp_path: Path
) -> None:
    def stop_after_the_first_step() -> None:
        while not (tmp_path / "metrics.jsonl").exists():
            time.sleep(0.01)
        (tmp_path / "STOP").touch()

    threading.Thread(target=stop_after_the_first_step, daemon=True).start()
    stopped = run_training(sft_config(sft_file, tmp_path, max_steps=50, save_steps=50))
    assert stopped["status"] == "stopped"
    assert (tmp_path / f"checkpoint-{stopped['steps']}").is_dir()


def test_the_config_fills_in_the_papers_grpo_settings() -> None:
    config = parse_config(
        {
            "kind": "grpo",
            "model": "smollm2",
            "dataset": "rl.jsonl",
            "corpus": "c",
            "output_dir": "o",
        }
    )
    grpo = config.grpo
    assert (grpo.num_generations, grpo.learning_rate, grpo.beta, grpo.temperature) == (
        8,
        1e-6,
        0.0,
        1.0,
    )
    assert (grpo.epsilon, grpo.epsilon_high, grpo.loss_type) == (0.2, 0.28, "dapo")
    assert config.rollout.max_tool_chars == 12_000 and config.rollout.max_turns == 50
    assert config.dataset == ["rl.jsonl"]
    assert parse_config(_yaml(render_yaml(config))) == config


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"kind": "dpo"}, "kind: Input should be 'sft', 'grpo' or 'mid'"),
        ({"grpo": {"epsilon_high": 0.1}}, "grpo: epsilon_high must be at least epsilon"),
        ({"grpo": {"num_generations": 1}}, "grpo.num_generations: Input should be greater"),
        ({"rollout": {"max_turn": 3}}, "rollout.max_turn: unknown field"),
        ({"corpus": None}, "corpus: a grpo run needs the corpus its tools search"),
        ({"dataset": []}, "dataset: List should have at least 1 item"),
    ],
)
def test_a_bad_field_is_named(fields: dict[str, Any], problem: str) -> None:
    base = {
        "kind": "grpo",
        "model": "tiny",
        "dataset": "rl.jsonl",
        "corpus": "c",
        "output_dir": "o",
    }
    with pytest.raises(ConfigError) as error:
        parse_config({**base, **fields})
    assert str(error.value).startswith(problem)


def test_the_cli_says_which_field_is_wrong_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(
        "kind: sft\nmodel: tiny\ndataset: missing.jsonl\noutput_dir: out\nmax_steps: 0\n"
    )
    assert main(["train", str(path)]) == 1
    assert (
        capsys.readouterr().err == "error: max_steps: Input should be greater than or equal to 1\n"
    )
    path.write_text(f"kind: sft\nmodel: tiny\ndataset: {tmp_path}/missing.jsonl\noutput_dir: o\n")
    assert main(["train", str(path)]) == 1
    assert capsys.readouterr().err == f"error: dataset: {tmp_path}/missing.jsonl: no such file\n"
    path.write_text("[kind, sft]\n")
    assert main(["train", str(path)]) == 1
    assert capsys.readouterr().err.startswith("error: the config must be a mapping")


def test_the_cli_prints_the_resolved_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("kind: sft\nmodel: tiny\ndataset: rows.jsonl\noutput_dir: out\n")
    assert main(["train", str(path), "--print-config"]) == 0
    printed = _yaml(capsys.readouterr().out)
    assert printed["sft"]["learning_rate"] == 1e-5 and printed["grpo"]["num_generations"] == 8


def _yaml(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def test_smollm2_from_its_gguf_file_is_a_trainable_float_model() -> None:
    from transformers.trainer import validate_quantization_for_training

    from quest.training.models import load_model

    model, _ = load_model("smollm2")
    validate_quantization_for_training(model)  # raised "purely quantized models" before
    assert not model.is_quantized and model.hf_quantizer is None
    import torch

    assert {p.dtype for p in model.parameters()} == {torch.float32}


def test_a_lora_run_trains_adapters_and_saves_a_merged_model(
    sft_file: Path, tmp_path: Path
) -> None:
    from transformers import AutoModelForCausalLM

    config = sft_config(sft_file, tmp_path, lora={"r": 4, "alpha": 8})
    summary = run_training(config)
    assert summary["status"] == "finished"
    adapter = tmp_path / "checkpoint-2" / "adapter_config.json"
    assert json.loads(adapter.read_text())["r"] == 4, "checkpoints hold the adapters"
    final = Path(summary["final"])
    assert not (final / "adapter_config.json").exists()
    merged = AutoModelForCausalLM.from_pretrained(final)
    assert not any("lora" in name for name, _ in merged.named_parameters())


def test_concurrent_rollouts_are_sampled_in_one_batch_with_each_rows_own_log_probs(
    smollm2_tokenizer: Any,
) -> None:
    import torch

    from quest.training.agent_rollouts import BatchSampler

    model = tiny_model(smollm2_tokenizer).eval()
    calls = []
    forward = model.forward

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(tuple((kwargs["input_ids"] if "input_ids" in kwargs else args[0]).shape))
        return forward(*args, **kwargs)

    model.forward = counted  # type: ignore[method-assign]
    batch = BatchSampler(model, smollm2_tokenizer, temperature=1.0)
    prompts = [[1, 2, 3, 4, 5, 6], [7, 8], [9, 10, 11, 12]]
    rooms = [5, 3, 4]
    answers: dict[int, tuple[list[int], list[float]]] = {}

    def ask(index: int) -> None:
        try:
            answers[index] = batch.sample(prompts[index], rooms[index])
        finally:
            batch.leave()

    batch.expect(len(prompts))
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(prompts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert calls[0] == (3, 6), "one left-padded prefill for the three rollouts"
    assert all(rows <= 3 and width == 1 for rows, width in calls[1:]), calls
    assert [rows for rows, _ in calls[1:]] == [3, 3, 2, 1], "a row leaves at its room"
    for index, (ids, room) in enumerate(zip(prompts, rooms, strict=True)):
        sampled, logprobs = answers[index]
        assert 1 <= len(sampled) <= room and len(logprobs) == len(sampled)
        with torch.no_grad():
            logits = model(torch.tensor([ids + sampled])).logits[0, len(ids) - 1 : -1]
        scored = torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(sampled)[:, None])
        assert logprobs == pytest.approx(scored[:, 0].tolist(), abs=1e-4)


def test_the_shuffled_control_permutes_a_batchs_rewards_and_keeps_their_spread() -> None:
    from quest.training.trainers import shuffled_rewards

    values = [1.0, 0.0, 0.0, 0.75, None, 0.0, 1.0, 0.25]
    shuffled = shuffled_rewards(values, seed=3)
    assert shuffled[4] is None  # left out of the baseline where it was
    assert sorted(v for v in shuffled if v is not None) == sorted(
        v for v in values if v is not None
    )
    assert shuffled != values
    assert shuffled == shuffled_rewards(values, seed=3)  # a control run is reproducible
    assert shuffled_rewards(values, seed=4) != shuffled


def test_the_cli_sets_the_random_reward_control_on_a_grpo_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("kind: grpo\nmodel: tiny\ndataset: rows.jsonl\noutput_dir: out\ncorpus: c\n")
    assert main(["train", str(path), "--print-config"]) == 0
    assert _yaml(capsys.readouterr().out)["grpo"]["reward"] == "rubric"
    assert main(["train", str(path), "--reward", "shuffled", "--print-config"]) == 0
    assert _yaml(capsys.readouterr().out)["grpo"]["reward"] == "shuffled"
    path.write_text("kind: sft\nmodel: tiny\ndataset: rows.jsonl\noutput_dir: out\n")
    assert main(["train", str(path), "--reward", "shuffled"]) == 1
    assert capsys.readouterr().err == "error: --reward applies to grpo configs, not sft\n"


def test_an_sft_run_in_bf16_trains_and_says_so(sft_file: Path, tmp_path: Path) -> None:
    summary = run_training(sft_config(sft_file, tmp_path, precision="bf16"))
    assert summary["status"] == "finished"
    recorded = json.loads((tmp_path / PRECISION_FILE).read_text())
    assert recorded["use"] == "bf16" and recorded["device"] == "cpu"
    steps = metrics(tmp_path)
    assert steps and all(math.isfinite(r["loss"]) and r["grad_norm"] > 0 for r in steps)
    # the weights stay float32 while training: the checkpoint is the same kind either way
    assert (tmp_path / "final" / "config.json").is_file()
