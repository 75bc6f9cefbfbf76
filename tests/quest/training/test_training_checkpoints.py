"""What a run leaves on disk: bf16 weights-only checkpoints unless the run is resumable, whose
newest checkpoint alone keeps the fp32 weights and the optimiser state a resume continues from;
a bf16 final model that trains on in float32; and SmolLM2's checkpoint under 300 MB."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from training_helpers import AUSTRALIA

from quest.llm.local import TransformersChat
from quest.training.config import ConfigError, TrainConfig, parse_config
from quest.training.models import load_model
from quest.training.rl import prompt_messages
from quest.training.trainers import run_training

RESUME_FILES = ("optimizer.pt", "scheduler.pt", "rng_state.pth")
ANSWER = "<answer>Canberra is the capital (https://en.wikipedia.org/wiki/Canberra).</answer>"
SMOLLM2_LIMIT = 300 * 1024 * 1024
SFT = {"gradient_accumulation_steps": 1, "max_length": 1_024, "warmup_ratio": 0.0}

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two SFT rows: the Australia prompt and an answer, the answer trained."""
    turns = [{**m, "loss": False} for m in prompt_messages(AUSTRALIA)]
    row = {"messages": [*turns, {"role": "assistant", "content": ANSWER, "loss": True}]}
    path = tmp_path_factory.mktemp("checkpoint_rows") / "sft.jsonl"
    path.write_text((json.dumps(row) + "\n") * 2, encoding="utf-8")
    return path


def sft(data: Path, out: Path, **fields: Any) -> TrainConfig:
    return parse_config(
        {
            "kind": "sft",
            "model": "tiny",
            "dataset": str(data),
            "output_dir": str(out),
            "max_steps": 3,
            "save_steps": 1,
            "sft": SFT,
            **fields,
        }
    )


def stored(directory: Path) -> dict[str, str]:
    """Each tensor stored in directory/model.safetensors, with its dtype."""
    from safetensors import safe_open

    with safe_open(str(directory / "model.safetensors"), framework="pt") as weights:
        names = list(weights.keys())
        return {name: weights.get_slice(name).get_dtype() for name in names}


def dtypes(directory: Path) -> set[str]:
    return set(stored(directory).values())


def resume_files(directory: Path) -> list[str]:
    return [name for name in RESUME_FILES if (directory / name).exists()]


def losses(out: Path) -> dict[int, float]:
    lines = (out / "metrics.jsonl").read_text().splitlines()
    return {r["step"]: r["loss"] for r in map(json.loads, lines) if r["kind"] == "step"}


def test_a_run_that_is_not_resumable_keeps_only_bf16_weights_in_its_checkpoints(
    rows: Path, tmp_path: Path
) -> None:
    summary = run_training(sft(rows, tmp_path))
    assert summary["status"] == "finished" and summary["steps"] == 3
    for step in (1, 2, 3):
        checkpoint = tmp_path / f"checkpoint-{step}"
        assert (checkpoint / "trainer_state.json").is_file()
        assert resume_files(checkpoint) == []
        assert dtypes(checkpoint) == {"BF16"}
        assert json.loads((checkpoint / "config.json").read_text())["dtype"] == "bfloat16"
    with pytest.raises(ConfigError, match=r"^resume_from: .*checkpoint-3: holds the weights only"):
        run_training(sft(rows, tmp_path / "again", resume_from=str(tmp_path / "checkpoint-3")))


def test_the_bf16_final_model_loads_in_float32_trains_on_and_chats(
    rows: Path, tmp_path: Path
) -> None:
    import torch

    final = Path(run_training(sft(rows, tmp_path / "first", max_steps=1))["final"])
    assert dtypes(final) == {"BF16"}
    model, _ = load_model(str(final))
    assert {p.dtype for p in model.parameters()} == {torch.float32}
    # The inference loader computes in float32 on the CPU too (bf16 is 4x slower there).
    chat = TransformersChat(final, max_tokens=4)
    assert chat.complete([{"role": "user", "content": AUSTRALIA}]).completion_tokens == 4
    assert {p.dtype for p in chat._loaded().model.parameters()} == {torch.float32}
    summary = run_training(sft(rows, tmp_path / "second", model=str(final), max_steps=2))
    assert summary["status"] == "finished" and summary["steps"] == 2
    assert all(math.isfinite(loss) and loss > 0 for loss in losses(tmp_path / "second").values())


def test_a_resumable_run_keeps_the_optimiser_state_in_its_newest_checkpoint_only(
    rows: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    # A constant learning rate: the schedule of a run resumed to more steps is its first one.
    steady = {**SFT, "lr_scheduler": "constant"}
    run_training(sft(rows, out, resumable=True, sft=steady))
    newest = out / "checkpoint-3"
    assert resume_files(newest) == list(RESUME_FILES) and dtypes(newest) == {"F32"}
    for older in (out / "checkpoint-1", out / "checkpoint-2"):
        assert resume_files(older) == [] and dtypes(older) == {"BF16"}
        assert (older / "trainer_state.json").is_file()
    assert dtypes(out / "final") == {"BF16"}

    more = {"resumable": True, "max_steps": 5, "sft": steady}
    resumed = run_training(sft(rows, out, resume_from=str(newest), **more))
    assert resumed["status"] == "finished" and resumed["steps"] == 5
    assert sorted(losses(out)) == [1, 2, 3, 4, 5]
    holding = [p.name for p in sorted(out.glob("checkpoint-*")) if resume_files(p)]
    assert holding == ["checkpoint-5"]
    # The resume is exact: steps 4 and 5 lose what a run never interrupted loses.
    straight = tmp_path / "straight"
    run_training(sft(rows, straight, **more))
    for step in (4, 5):
        assert losses(out)[step] == pytest.approx(losses(straight)[step], rel=1e-6)


def test_a_smollm2_checkpoint_of_weights_only_is_under_300_mb(rows: Path, tmp_path: Path) -> None:
    """The real SmolLM2-135M (538 MB of fp32 weights): one step, one bf16 checkpoint, its
    tied output layer stored once and tied again on loading."""
    small = {"max_length": 512, "gradient_accumulation_steps": 1}
    config = sft(rows, tmp_path, model="smollm2", max_steps=1, sft=small)
    run_training(config)
    checkpoint = tmp_path / "checkpoint-1"
    assert (checkpoint / "model.safetensors").stat().st_size <= SMOLLM2_LIMIT
    assert resume_files(checkpoint) == [] and dtypes(checkpoint) == {"BF16"}
    assert "lm_head.weight" not in stored(checkpoint)
    model, _ = load_model(str(checkpoint))
    assert model.lm_head.weight is model.model.embed_tokens.weight
