"""Training through a real Celery worker on the gpu queue (solo pool, as `make run` starts it),
a tiny model on the CPU: an SFT run and a multi-turn GRPO run end to end with their metrics and
rollouts stored; a run cancelled mid-way that saves a checkpoint and is resumed from it; an
evaluation of the checkpoint against its base; and a run whose worker is killed, which the
watchdog ends failed with its log kept."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.jobs.dispatch import jobs_expire
from apps.training import selectors, services
from apps.training.models import TrainingDataset
from apps.training.runner import dataset_run

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ENDED = ("done", "stopped", "failed", "cancelled")
# A tiny model never stops on its own: a few short turns keep a rollout to seconds.
SHORT = {"max_turns": 2, "max_turn_tokens": 16, "max_session_tokens": 64}


@pytest.fixture
def worker(start_worker: Callable[..., Any], settings: Any, training_dirs: Path) -> Any:
    return start_worker(
        "gpu",
        QUESTWEB_TRAINING_DIR=str(training_dirs),
        QUESTWEB_CORPUS_DIR=str(settings.CORPUS_DIR),
    )


@pytest.fixture
def api(client: Client, admin: User, bearer: Callable[[User], dict[str, str]]) -> Any:
    headers = bearer(admin)

    class Api:
        def get(self, path: str) -> Any:
            response = client.get(f"/api/training/{path}", headers=headers)
            assert response.status_code == 200, response.content
            return response.json()

        def post(self, path: str, body: Any = None, status: int = 202) -> Any:
            data = json.dumps(body or {})
            response = client.post(
                f"/api/training/{path}", data, content_type="application/json", headers=headers
            )
            assert response.status_code == status, response.content
            return response.json()

        def wait(self, path: str, until: Callable[[Any], bool], timeout: float = 300) -> Any:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                body = self.get(path)
                if until(body):
                    return body
                time.sleep(0.5)
            raise AssertionError(f"{path} never got there: {body}")

    return Api()


def built(admin: User, kind: str, **params: Any) -> TrainingDataset:
    dataset = services.dataset_create(user=admin, kind=kind, params=params)
    dataset_run(dataset_id=dataset.pk)
    dataset.refresh_from_db()
    assert dataset.status == "done", dataset.error
    return dataset


def long_sft_job(admin: User, gated_tasks: Callable[..., Any], api: Any) -> Any:
    """An SFT run of the tiny model far longer than any test waits for, launched over REST."""
    gated_tasks(train=2, held_out_count=1)
    rows = built(admin, "sft", policy="scripted", attempts=1)
    return api.post("jobs", {"kind": "sft", "dataset_id": rows.pk, "model": "tiny",
                             "max_steps": 5000, "save_steps": 5000, "resumable": True,
                             "sft": {"gradient_accumulation_steps": 1}})  # fmt: skip


def test_sft_then_grpo_run_through_the_gpu_worker_with_metrics_and_rollouts_stored(
    admin: User, gated_tasks: Callable[..., Any], worker: Any, api: Any
) -> None:
    gated_tasks(train=2, held_out_count=1)
    sft_rows = built(admin, "sft", policy="scripted", attempts=1)
    sft = api.post("jobs", {"kind": "sft", "dataset_id": sft_rows.pk, "model": "tiny",
                            "max_steps": 3, "save_steps": 2,
                            "sft": {"gradient_accumulation_steps": 1}})  # fmt: skip
    done = api.wait(f"jobs/{sft['id']}", lambda j: j["status"] in ENDED)
    assert (done["status"], done["step"], done["error"]) == ("done", 3, "")
    metrics = api.get(f"jobs/{sft['id']}/metrics")["results"]
    steps = [m for m in metrics if m["kind"] == "step"]
    assert [m["step"] for m in steps] == [1, 2, 3]
    assert all(m["values"]["loss"] > 0 and m["values"]["step_s"] > 0 for m in steps)
    names = [c["name"] for c in api.get(f"jobs/{sft['id']}/checkpoints")["results"]]
    assert names[0] == "final" and "checkpoint-2" in names
    assert "train: step 3/3" in api.get(f"jobs/{sft['id']}/log")["text"]

    rl_rows = built(admin, "rl")
    final = str(Path(done["config"]["output_dir"]) / "final")
    grpo = api.post("jobs", {"kind": "grpo", "dataset_id": rl_rows.pk, "model": final,
                             "max_steps": 2, "save_steps": 1, "rollout": SHORT,
                             "grpo": {"num_generations": 2, "prompts_per_step": 1}})  # fmt: skip
    done = api.wait(f"jobs/{grpo['id']}", lambda j: j["status"] in ENDED)
    assert (done["status"], done["step"]) == ("done", 2), done["error"]
    metrics = api.get(f"jobs/{grpo['id']}/metrics")["results"]
    logged = [m["values"] for m in metrics if m["kind"] == "step"]
    assert all("reward" in v and "reward/base" in v and "share/rollout" in v for v in logged)
    rollouts = api.get(f"jobs/{grpo['id']}/rollouts?page_size=50")
    # Two rollouts a group; an all-equal group may be replaced by a fresh one (dynamic
    # sampling), so a step rolls out one or two groups.
    assert rollouts["count"] in (4, 6, 8) and rollouts["steps"] == [2, 1]
    assert all("dynamic/zero_std_trained" in v for v in logged)
    row = rollouts["results"][0]
    assert row["question"] and row["leaves_total"] == 2 and row["reward"] is not None


def test_a_cancelled_run_saves_a_checkpoint_and_resumes_from_it(
    admin: User, gated_tasks: Callable[..., Any], worker: Any, api: Any
) -> None:
    long = long_sft_job(admin, gated_tasks, api)
    api.wait(f"jobs/{long['id']}", lambda j: j["step"] >= 2)
    asked = api.post(f"jobs/{long['id']}/cancel", status=200)
    assert asked["cancel_requested"] is True
    stopped = api.wait(f"jobs/{long['id']}", lambda j: j["status"] in ENDED)
    assert stopped["status"] == "stopped", stopped["error"]
    [saved] = api.get(f"jobs/{long['id']}/checkpoints")["results"]
    assert saved["name"] == f"checkpoint-{saved['step']}" and saved["step"] >= 2
    assert saved["resumable"] is True, "a resumable job's newest checkpoint keeps its optimiser"
    resumed = api.post(f"jobs/{long['id']}/resume",
                       {"checkpoint": saved["name"], "max_steps": saved["step"] + 2})  # fmt: skip
    assert resumed["resumed_from_id"] == long["id"]
    done = api.wait(f"jobs/{resumed['id']}", lambda j: j["status"] in ENDED)
    assert (done["status"], done["step"]) == ("done", saved["step"] + 2), done["error"]
    metrics = api.get(f"jobs/{resumed['id']}/metrics")["results"]
    steps = [m["step"] for m in metrics if m["kind"] == "step"]
    assert steps == [saved["step"] + 1, saved["step"] + 2], "the step count went on"


def test_a_checkpoint_is_evaluated_against_its_base_on_held_out_tasks(
    admin: User, gated_tasks: Callable[..., Any], worker: Any, api: Any
) -> None:
    split = gated_tasks(train=2, held_out_count=2)
    rows = built(admin, "sft", policy="scripted", attempts=1)
    job = api.post("jobs", {"kind": "sft", "dataset_id": rows.pk, "model": "tiny",
                            "max_steps": 1, "sft": {"gradient_accumulation_steps": 1}})  # fmt: skip
    api.wait(f"jobs/{job['id']}", lambda j: j["status"] == "done")
    evaluation = api.post(f"jobs/{job['id']}/evaluations",
                          {"limit": 2, "max_turns": 2, "max_turn_tokens": 16})  # fmt: skip
    assert sorted(evaluation["task_ids"]) == sorted(str(t.pk) for t in split["held_out"][:2])
    done = api.wait(f"evaluations/{evaluation['id']}", lambda e: e["status"] in ENDED)
    assert done["status"] == "done", done["error"]
    models = done["results"]["models"]
    for label in ("checkpoint", "base"):
        summary = models[label]
        assert summary["n"] + summary["dropped"] == 2 and len(summary["scores"]) == 2
        assert summary["ci95"][0] <= summary["mean"] <= summary["ci95"][1]
    assert models["base"]["model"] == "tiny"
    assert done["results"]["difference"]["n"] <= 2 and done["done"] == 4


def test_a_run_whose_worker_dies_ends_failed_with_its_log_kept(
    admin: User, gated_tasks: Callable[..., Any], worker: Any, api: Any
) -> None:
    job = long_sft_job(admin, gated_tasks, api)
    api.wait(f"jobs/{job['id']}", lambda j: j["step"] >= 1)
    pid = selectors.job_get(user=admin, job_id=job["id"]).pid
    worker.send_signal(signal.SIGKILL)
    worker.wait(30)
    assert jobs_expire(now=timezone.now() + timedelta(hours=1)) == 1  # long past its stall
    failed = api.get(f"jobs/{job['id']}")
    assert failed["status"] == "failed" and "stopped reporting" in failed["error"]
    assert "train: step 1/5000" in api.get(f"jobs/{job['id']}/log")["text"]
    deadline = time.monotonic() + 60
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(pid), "the run died with its worker: no orphan keeps training"


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split()[2] == "Z")
