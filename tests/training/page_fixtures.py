"""Fixtures of the training page tests: rows made directly (a built dataset, a GRPO job with
metrics, rollouts, a checkpoint and a log, and a finished evaluation); no worker runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training.models import (
    Evaluation,
    TrainingDataset,
    TrainingJob,
    TrainingMetric,
    TrainingRollout,
)
from quest.training.config import parse_config

QUESTION = "Which city is the capital of Australia?"
HTMX = {"HX-Request": "true"}


def _login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def _html(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return str(response.content.decode())


@pytest.fixture
def dataset(training_dirs: Path, admin: User) -> TrainingDataset:
    """A built RL dataset: its rows file, lengths and a two-row preview with a loss mask."""
    row = TrainingDataset.objects.create(
        name="capitals", kind="rl", status="done", rows=3, done=3, total=3, created_by=admin,
        params={"split": "train", "limit": 0},
        stats={"files": ["rl.jsonl"], "skipped_tasks": [{"task_id": "9", "reason": "no leaf"}],
               "tokens": {"trained": 12, "total": 90}},
    )  # fmt: skip
    row.directory = str(training_dirs / "datasets" / str(row.pk))
    row.save()
    folder = Path(row.directory)
    folder.mkdir(parents=True)
    (folder / "rl.jsonl").write_text('{"prompt": []}\n' * 3)
    (folder / "secret.txt").write_text("not listed")
    (folder / "lengths.json").write_text("[10, 30, 50]")
    preview = [
        {"row": 1, "meta": {"task_id": "4"},
         "segments": [["<|im_start|>user\nWhich city?", False], ["Canberra [1]", True]]},
        {"row": 2, "meta": {}, "segments": [["second row context", False], ["Paris", True]]},
    ]  # fmt: skip
    (folder / "preview.json").write_text(json.dumps(preview))
    return row


def _config(job: TrainingJob, dataset: TrainingDataset, **over: Any) -> dict[str, Any]:
    runs = Path(dataset.directory).parents[1] / "runs"
    data = {
        "kind": "grpo",
        "model": "tiny",
        "dataset": [f"{dataset.directory}/rl.jsonl"],
        "corpus": "/corpus",
        "output_dir": str(runs / str(job.pk)),
        "max_steps": 10,
        **over,
    }
    return dict(parse_config(data).model_dump(mode="json"))


@pytest.fixture
def make_job(dataset: TrainingDataset, admin: User) -> Callable[..., TrainingJob]:
    def make(status: str = "running", **config: Any) -> TrainingJob:
        job = TrainingJob.objects.create(
            name=f"grpo {status}", kind="grpo", dataset=dataset, config={}, status=status,
            step=2, max_steps=10, created_by=admin,
        )  # fmt: skip
        job.config = _config(job, dataset, **config)
        job.save()
        return job

    return make


@pytest.fixture
def job(make_job: Callable[..., TrainingJob]) -> TrainingJob:
    """A running GRPO job with two logged steps, three rollouts, a checkpoint and a log."""
    job = make_job()
    for line, step in enumerate((1, 2)):
        values = {"loss": 0.5 / step, "reward": 0.2 * step, "reward_std": 0.1,
                  "reward/base": 0.3, "kl": 0.0, "step_s": 4.0}  # fmt: skip
        TrainingMetric.objects.create(job=job, line=line, step=step, values=values)
    for line in range(3):
        TrainingRollout.objects.create(
            job=job, line=line, step=2, index=line, question=QUESTION,
            completion=f"The capital is Canberra, try {line}.", status="answered",
            reward=0.75, base=0.8, citation=0.5, leaves_passed=2, leaves_total=3,
        )  # fmt: skip
    checkpoint = Path(job.output_dir) / "checkpoint-2"
    checkpoint.mkdir(parents=True)
    (checkpoint / "trainer_state.json").write_text("{}")
    (checkpoint / "model.safetensors").write_bytes(b"0" * 3 * 1024 * 1024)
    (checkpoint / "optimizer.pt").write_bytes(b"0" * 1024)  # the run was resumable
    (Path(job.output_dir) / "train.log").write_text("train: 3 rl rows\nstep 2 done\n")
    return job


@pytest.fixture
def evaluation(job: TrainingJob, admin: User) -> Evaluation:
    def scores(rewards: list[float | None]) -> list[dict[str, Any]]:
        return [{"task_id": str(n + 1), "reward": r, "status": "answered"}
                for n, r in enumerate(rewards)]  # fmt: skip

    results = {
        "models": {
            "checkpoint": {"model": "ckpt", "n": 3, "mean": 0.6, "ci95": [0.5, 0.7],
                           "answer_rate": 1.0, "valid_turn_rate": 0.9, "citation_validity": 0.8,
                           "dropped": 0, "scores": scores([0.5, 0.6, 0.7])},
            "base": {"model": "tiny", "n": 2, "mean": 0.25, "ci95": [0.2, 0.3], "dropped": 1,
                     "scores": scores([0.2, 0.3, None])},
        },
        "difference": {"n": 2, "mean": 0.3, "ci95": [0.25, 0.35], "wins": 2, "losses": 0,
                       "ties": 0},
        "tasks": 3,
    }  # fmt: skip
    return Evaluation.objects.create(
        job=job, checkpoint=f"{job.output_dir}/checkpoint-2", base_model="tiny",
        task_ids=["1", "2", "3"], status="done", done=6, total=6, results=results,
        created_by=admin,
    )  # fmt: skip
