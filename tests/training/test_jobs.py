"""Launching, cancelling and resuming jobs, presets, evaluations asked for, and the watchdog:
the services' rules, with rows made directly (the worker's part is test_worker.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from apps.accounts.models import User
from apps.common.errors import Conflict, Forbidden, Invalid, NotFound
from apps.jobs.dispatch import jobs_expire
from apps.training import selectors, services
from apps.training.models import Evaluation, TrainingDataset, TrainingJob

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def dataset(training_dirs: Path, admin: User) -> Callable[..., TrainingDataset]:
    def make(kind: str = "rl", task_ids: tuple[str, ...] = ()) -> TrainingDataset:
        row = TrainingDataset.objects.create(
            name=f"{kind} rows", kind=kind, status="done", rows=1, task_ids=list(task_ids),
            created_by=admin,
        )  # fmt: skip
        row.directory = str(training_dirs / "datasets" / str(row.pk))
        Path(row.directory).mkdir(parents=True)
        (Path(row.directory) / f"{kind}.jsonl").write_text("{}\n")
        row.save()
        return row

    return make


def launch(user: User, dataset: TrainingDataset, **params: Any) -> TrainingJob:
    kind = {"rl": "grpo", "sft": "sft", "mid": "mid"}[dataset.kind]
    return services.job_create(
        user=user, kind=kind, dataset_id=dataset.pk, model="tiny", params=params
    )


def test_a_grpo_job_gets_the_papers_settings_unless_told_otherwise(
    admin: User, dataset: Callable[..., TrainingDataset], settings: Any
) -> None:
    job = launch(admin, dataset("rl"), max_steps=3, grpo={"num_generations": 4})
    grpo = job.config["grpo"]
    assert (grpo["num_generations"], grpo["learning_rate"], grpo["beta"]) == (4, 1e-6, 0.0)
    assert (grpo["epsilon"], grpo["epsilon_high"], grpo["temperature"]) == (0.2, 0.28, 1.0)
    assert job.config["corpus"] == str(settings.CORPUS_DIR)
    assert job.config["output_dir"].endswith(f"runs/{job.pk}")
    assert (job.status, job.max_steps) == ("queued", 3)


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("sft", {}, "a sft job trains on a sft dataset, not rl"),
        ("grpo", {"grpo": {"epsilon": 0.3, "epsilon_high": 0.2}}, "grpo: epsilon_high must be"),
        ("grpo", {"grpo": {"num_generations": 1}}, "grpo.num_generations"),
        ("grpo", {"sft": {"lr_scheduler": "step"}}, "sft.lr_scheduler"),
        ("grpo", {"max_steps": 0}, "max_steps"),
        ("grpo", {"max_steps": 10**9}, "max_steps: at most"),
        ("grpo", {"output_dir": "/etc"}, "unknown field 'output_dir'"),
        ("grpo", {"grpo": {"kl": 1}}, "grpo.kl: unknown field"),
    ],
)
def test_a_bad_launch_is_refused_naming_the_field_and_queues_nothing(
    admin: User,
    dataset: Callable[..., TrainingDataset],
    kind: str,
    params: dict[str, Any],
    message: str,
) -> None:
    rows = dataset("rl")
    with pytest.raises(Invalid, match=message):
        services.job_create(user=admin, kind=kind, dataset_id=rows.pk, model="tiny", params=params)
    assert not TrainingJob.objects.exists()


@pytest.mark.parametrize(
    ("model", "message"),
    [("relative/dir", "absolute path"), ("/tmp/../etc", "without '..'"), ("", "model must be")],
)
def test_a_model_is_built_in_or_an_absolute_directory(
    admin: User, dataset: Callable[..., TrainingDataset], model: str, message: str
) -> None:
    with pytest.raises(Invalid, match=message):
        services.job_create(user=admin, kind="grpo", dataset_id=dataset("rl").pk, model=model)


def test_a_directory_here_must_hold_a_model_but_one_only_on_gpu_workers_is_allowed(
    admin: User, dataset: Callable[..., TrainingDataset], tmp_path: Path
) -> None:
    rows = dataset("rl")
    with pytest.raises(Invalid, match="not a model directory"):
        services.job_create(user=admin, kind="grpo", dataset_id=rows.pk, model=str(tmp_path))
    remote = "/models/qwen3-8b-sft"  # exists only on the cluster's gpu workers
    job = services.job_create(user=admin, kind="grpo", dataset_id=rows.pk, model=remote)
    assert job.config["model"] == remote


def test_only_admins_launch_and_cancel(
    admin: User, viewer: User, dataset: Callable[..., TrainingDataset]
) -> None:
    rows = dataset("rl")
    with pytest.raises(Forbidden):
        launch(viewer, rows)
    job = launch(admin, rows)
    with pytest.raises(Forbidden):
        services.job_cancel(user=viewer, job_id=job.pk)
    assert selectors.job_get(user=viewer, job_id=job.pk).status == "queued"


def test_a_queued_job_is_cancelled_and_a_running_one_asked_to_stop(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    rows = dataset("rl")
    queued = launch(admin, rows)
    assert services.job_cancel(user=admin, job_id=queued.pk).status == "cancelled"
    with pytest.raises(Conflict, match="nothing to cancel"):
        services.job_cancel(user=admin, job_id=queued.pk)
    running = launch(admin, rows)
    TrainingJob.objects.filter(pk=running.pk).update(status="running")
    stopping = services.job_cancel(user=admin, job_id=running.pk)
    assert (stopping.status, stopping.cancel_requested) == ("running", True)


def test_one_person_cannot_queue_without_bound(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    rows = dataset("rl")
    for _ in range(services.MAX_QUEUED_PER_USER):
        launch(admin, rows)
    with pytest.raises(Conflict, match="already have"):
        launch(admin, rows)


def checkpoint(job: TrainingJob, step: int, *, resumable: bool = True) -> Path:
    """checkpoint-N as a run writes it: with the optimiser's state, or the weights only."""
    folder = Path(job.output_dir) / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    (folder / "trainer_state.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"0" * 2048)
    if resumable:
        (folder / "optimizer.pt").write_bytes(b"0" * 4096)
    return folder


def test_a_job_resumes_from_one_of_its_checkpoints_into_a_new_directory(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    job = launch(admin, dataset("rl"), max_steps=4)
    TrainingJob.objects.filter(pk=job.pk).update(status="stopped")
    folder = checkpoint(job, 2)
    [found] = selectors.checkpoints(job)
    assert (found.name, found.step, found.size_bytes) == ("checkpoint-2", 2, 6146)
    assert found.resumable
    resumed = services.job_resume(user=admin, job_id=job.pk, checkpoint="checkpoint-2")
    assert resumed.resumed_from_id == job.pk
    assert resumed.config["resume_from"] == str(folder)
    assert resumed.config["output_dir"] != job.config["output_dir"]
    assert resumed.config["grpo"] == job.config["grpo"]


@pytest.mark.parametrize(
    ("name", "max_steps", "error", "message"),
    [
        ("checkpoint-9", None, NotFound, "no checkpoint 'checkpoint-9'"),
        ("../../etc", None, NotFound, "no checkpoint"),
        ("checkpoint-2", 2, Invalid, "above the checkpoint's step 2"),
    ],
)
def test_a_resume_needs_a_real_checkpoint_and_steps_left(
    admin: User,
    dataset: Callable[..., TrainingDataset],
    name: str,
    max_steps: int | None,
    error: type[Exception],
    message: str,
) -> None:
    job = launch(admin, dataset("rl"), max_steps=4)
    TrainingJob.objects.filter(pk=job.pk).update(status="stopped")
    checkpoint(job, 2)
    with pytest.raises(error, match=message):
        services.job_resume(user=admin, job_id=job.pk, checkpoint=name, max_steps=max_steps)


def test_a_job_that_was_not_resumable_cannot_be_resumed_from_its_checkpoints(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    job = launch(admin, dataset("rl"), max_steps=4)
    assert job.config["resumable"] is False
    TrainingJob.objects.filter(pk=job.pk).update(status="stopped")
    folder = checkpoint(job, 2, resumable=False)
    [found] = selectors.checkpoints(job)
    assert not found.resumable
    with pytest.raises(Invalid) as refused:
        services.job_resume(user=admin, job_id=job.pk, checkpoint="checkpoint-2")
    assert refused.value.message == (
        f"checkpoint: checkpoint-2 holds no optimiser state and cannot be resumed (job {job.pk} "
        "was not resumable, so its checkpoints hold the weights only); a new job can train "
        f"from its weights with {folder} as the model"
    )
    assert TrainingJob.objects.count() == 1


def test_a_resumable_job_resumes_only_from_its_newest_checkpoint(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    job = launch(admin, dataset("rl"), max_steps=6, resumable=True)
    TrainingJob.objects.filter(pk=job.pk).update(status="stopped")
    checkpoint(job, 2, resumable=False)  # pruned when checkpoint-4 was written
    checkpoint(job, 4)
    with pytest.raises(Invalid, match="only the newest checkpoint of a resumable job keeps"):
        services.job_resume(user=admin, job_id=job.pk, checkpoint="checkpoint-2")
    resumed = services.job_resume(user=admin, job_id=job.pk, checkpoint="checkpoint-4")
    assert resumed.config["resume_from"].endswith("checkpoint-4")
    assert resumed.config["resumable"] is True, "a resumed job stays resumable"


def test_a_running_job_cannot_be_resumed(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    job = launch(admin, dataset("rl"))
    TrainingJob.objects.filter(pk=job.pk).update(status="running")
    with pytest.raises(Conflict, match="resume it once it has ended"):
        services.job_resume(user=admin, job_id=job.pk, checkpoint="checkpoint-1")


def test_the_yaml_preview_is_the_config_the_run_gets(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    import yaml

    from quest.training.config import parse_config

    rows = dataset("sft")
    text = services.config_preview(
        user=admin, kind="sft", dataset_id=rows.pk, model="smollm2",
        params={"max_steps": 7, "sft": {"learning_rate": 2e-5}},
    )  # fmt: skip
    config = parse_config(yaml.safe_load(text))
    assert (config.kind, config.model, config.max_steps) == ("sft", "smollm2", 7)
    assert config.sft.learning_rate == 2e-5 and config.dataset[0].endswith("sft.jsonl")


def test_a_preset_saves_a_valid_form_and_replaces_one_of_its_name(admin: User) -> None:
    first = services.preset_save(
        user=admin, name="paper grpo", kind="grpo", model="smollm2", params={"max_steps": 5}
    )
    again = services.preset_save(
        user=admin, name="paper grpo", kind="grpo", model="tiny", params={"seed": 3}
    )
    assert first.pk == again.pk and again.config == {"kind": "grpo", "model": "tiny", "seed": 3}
    with pytest.raises(Invalid, match=r"grpo\.temperature"):
        services.preset_save(
            user=admin, name="bad", kind="grpo", model="tiny", params={"grpo": {"temperature": 0}}
        )


def test_an_evaluation_runs_only_on_held_out_tasks_none_of_the_jobs_data_came_from(
    admin: User,
    dataset: Callable[..., TrainingDataset],
    gated_tasks: Callable[..., dict[str, list[Any]]],
) -> None:
    split = gated_tasks(train=2, held_out_count=3)
    leaked = str(split["held_out"][0].pk)  # a dataset built before the split: it used one
    job = launch(admin, dataset("rl", task_ids=(leaked,)))
    TrainingJob.objects.filter(pk=job.pk).update(status="done")
    final = Path(job.output_dir) / "final"
    final.mkdir(parents=True)
    (final / "config.json").write_text("{}")
    evaluation = services.evaluation_create(user=admin, job_id=job.pk, limit=10)
    expected = [str(t.pk) for t in split["held_out"][1:]]
    assert sorted(evaluation.task_ids) == sorted(expected)
    assert evaluation.base_model == "tiny" and evaluation.total == 2 * len(expected)


def test_an_evaluation_without_held_out_tasks_is_refused(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    job = launch(admin, dataset("rl"))
    checkpoint(job, 1)
    with pytest.raises(Invalid, match="no held-out gated task"):
        services.evaluation_create(user=admin, job_id=job.pk, checkpoint="checkpoint-1")
    assert not Evaluation.objects.exists()


def test_the_watchdog_fails_work_whose_worker_stopped_reporting(
    admin: User, dataset: Callable[..., TrainingDataset]
) -> None:
    rows = dataset("rl")
    silent, alive = launch(admin, rows), launch(admin, rows)
    now = timezone.now()
    TrainingJob.objects.filter(pk=silent.pk).update(
        status="running", active_at=now - timedelta(minutes=10)
    )
    TrainingJob.objects.filter(pk=alive.pk).update(status="running", active_at=now)
    assert jobs_expire(now=now) == 1
    silent.refresh_from_db()
    alive.refresh_from_db()
    assert silent.status == "failed" and "stopped reporting" in silent.error
    assert alive.status == "running"


def test_without_a_judge_an_evaluation_leaves_out_trees_only_a_judge_can_score(
    admin: User, dataset: Callable[..., TrainingDataset], settings: Any
) -> None:
    from apps.audit.models import Campaign
    from apps.rubrics.services import task_create
    from tests.quest.training.training_helpers import AUSTRALIA, capital_tree, judged_tree
    from tests.training.conftest import gate

    settings.LLM_JUDGE_MODEL = ""
    campaign = Campaign.objects.create(name="gate", created_by=admin)
    kept: list[str] = []
    judged = 0
    while not kept or not judged:
        for tree in (capital_tree(AUSTRALIA, "Canberra"), judged_tree(AUSTRALIA)):
            task = task_create(user=admin, record={"question": AUSTRALIA, "rubric": tree})
            gate(task, campaign)
            if selectors.held_out(task.pk):
                if tree["root"]["children"][0]["check"]["kind"] == "judge":
                    judged += 1
                else:
                    kept.append(str(task.pk))
    job = launch(admin, dataset("rl"))
    checkpoint(job, 1)
    evaluation = services.evaluation_create(user=admin, job_id=job.pk, checkpoint="checkpoint-1")
    assert evaluation.task_ids == kept
