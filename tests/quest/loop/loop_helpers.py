"""Helpers of the recipe-loop tests: the miniature config and the CLI run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
# A miniature loop: the tiny model, a dozen proposals, a few steps of each trainer. Every
# rollout is kept (min_reward 0): what is tested is that the stages fit, not what they learn.
MINI = {
    "model": "tiny",
    "minutes": 30,
    "gate": "auto-accept-sound",
    "synth": {"tasks": 14, "heldout_tasks": 6, "family_tasks": 4},
    "collect": {"min_reward": 0.0},
    "sft": {"max_steps": 12, "params": {"max_length": 512, "gradient_accumulation_steps": 1}},
    "grpo": {"max_steps": 3, "params": {"num_generations": 2, "prompts_per_step": 1}},
    "eval": {"tasks": 3, "family_tasks": 2, "practised_tasks": 2},
    "rollout": {
        "max_turns": 3,
        "max_turn_tokens": 12,
        "max_session_tokens": 48,
        "max_tool_chars": 300,
    },
}


def write_config(path: Path, **changes: Any) -> Path:
    config = json.loads(json.dumps(MINI))
    config.update(changes)
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return path


def loop_command(out: Path, corpus: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "quest",
        "loop",
        "--out",
        str(out),
        "--corpus",
        str(corpus),
        *extra,
    ]


def run_loop_cli(out: Path, corpus: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        loop_command(out, corpus, *extra),
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )


def state(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "state.json").read_text(encoding="utf-8"))
    return data


def task_ids(path: Path) -> set[str]:
    """The task ids of a JSONL file's records that name one (a trajectory's step records
    do not: its header does)."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    found = {str(record["task_id"]) for record in records if "task_id" in record}
    assert found, f"{path}: no record names a task"
    return found
