"""Datasets built here as the worker builds them (runner.dataset_run), from tasks that passed
the real training gate, over a small real corpus: files, counts, token lengths and the loss-mask
preview; held-out tasks never reach a dataset."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.common.errors import Forbidden, Invalid, NotAuthenticated
from apps.training import selectors, services
from apps.training.models import TrainingDataset
from apps.training.runner import dataset_run

pytestmark = pytest.mark.django_db(transaction=True)


def build(user: User, kind: str, **params: Any) -> TrainingDataset:
    dataset = services.dataset_create(user=user, kind=kind, name=f"{kind} set", params=params)
    dataset_run(dataset_id=dataset.pk)
    return TrainingDataset.objects.get(pk=dataset.pk)


def test_an_rl_set_holds_every_gated_train_task_and_no_held_out_one(
    admin: User, gated_tasks: Callable[..., dict[str, list[Any]]]
) -> None:
    split = gated_tasks(train=3, held_out_count=1)
    dataset = build(admin, "rl", split="all")
    assert dataset.status == "done", dataset.error
    train_ids = sorted(str(t.pk) for t in split["train"])
    assert sorted(dataset.task_ids) == train_ids
    assert dataset.rows == len(train_ids)
    folder = Path(dataset.directory)
    rows = [json.loads(line) for line in (folder / "rl.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in rows) == train_ids
    assert all(r["prompt"][0]["role"] == "system" for r in rows)
    assert (folder / "rl.parquet").stat().st_size > 0
    assert not folder.with_name(folder.name + ".partial").exists()
    tokens = dataset.stats["tokens"]
    assert tokens["rows"] == len(train_ids) and tokens["trained"] == 0 < tokens["median"]


def test_an_sft_set_keeps_rollouts_above_the_threshold_with_loss_on_the_models_turns(
    admin: User, gated_tasks: Callable[..., dict[str, list[Any]]]
) -> None:
    gated_tasks(train=2, held_out_count=1)
    dataset = build(admin, "sft", policy="scripted", attempts=2, min_reward=0.5)
    assert dataset.status == "done", dataset.error
    collect = dataset.stats["collect"]
    assert collect["rollouts"] >= 4 and collect["kept"] >= 1
    assert dataset.rows >= collect["kept"]  # one row per session of each kept rollout
    rows = [json.loads(line) for line in (Path(dataset.directory) / "sft.jsonl").open()]
    assert all(row["reward"] >= 0.5 for row in rows)
    preview = selectors.dataset_preview(dataset)
    assert preview, "the first rows are previewed"
    segments = preview[0]["segments"]
    trained = "".join(text for text, loss in segments if loss)
    context = "".join(text for text, loss in segments if not loss)
    assert "<answer>" in trained or "<tool_call>" in trained
    assert "<|im_start|>system" in context, "the chat template's prompt carries no loss"
    assert dataset.stats["tokens"]["trained"] > 0


def test_a_mid_set_reads_the_trajectories_of_an_sft_set(
    admin: User, gated_tasks: Callable[..., dict[str, list[Any]]]
) -> None:
    gated_tasks(train=1, held_out_count=1)
    source = build(admin, "sft", policy="scripted", attempts=1)
    mid = build(admin, "mid", source_dataset=source.pk)
    assert mid.status == "done", mid.error
    assert mid.rows > 0 and mid.stats["source"] == source.pk


def test_a_build_with_no_gated_task_fails_saying_why(admin: User) -> None:
    dataset = build(admin, "rl")
    assert dataset.status == "failed"
    assert "no gated task" in dataset.error
    assert not Path(dataset.directory).exists()


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("rl", {"policy": "scripted"}, "unknown field 'policy'"),
        ("sft", {"attempts": 0}, "attempts must be between 1 and 16"),
        ("sft", {"attempts": True}, "attempts must be a whole number"),
        ("sft", {"min_reward": 1.5}, "min_reward must be between 0 and 1"),
        ("sft", {"policy": "gpt-9"}, "policy must be one of"),
        ("sft", {"split": "held_out"}, "split must be one of train, all"),
        ("mid", {"source_dataset": 999}, "no built SFT dataset 999"),
        ("dpo", {}, "kind must be one of"),
    ],
)
def test_bad_build_parameters_are_refused_naming_the_field(
    admin: User, kind: str, params: dict[str, Any], message: str
) -> None:
    with pytest.raises(Invalid, match=message):
        services.dataset_create(user=admin, kind=kind, params=params)
    assert not TrainingDataset.objects.exists()


def test_only_admins_build_datasets(viewer: User, make_user: Callable[..., User]) -> None:
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(Forbidden):
        services.dataset_create(user=viewer, kind="rl")
    with pytest.raises(Forbidden):
        services.dataset_create(user=make_user("reviewer"), kind="rl")
    with pytest.raises(NotAuthenticated):
        services.dataset_create(user=AnonymousUser(), kind="rl")


def test_a_cancelled_build_writes_nothing(
    admin: User, gated_tasks: Callable[..., dict[str, list[Any]]]
) -> None:
    gated_tasks(train=1, held_out_count=1)
    dataset = services.dataset_create(user=admin, kind="rl")
    services.dataset_cancel(user=admin, dataset_id=dataset.pk)
    dataset_run(dataset_id=dataset.pk)
    dataset.refresh_from_db()
    assert (dataset.status, dataset.rows) == ("cancelled", 0)
    assert not Path(dataset.directory).exists()


def test_a_build_that_keeps_no_row_fails_saying_why(admin: User) -> None:
    from apps.audit.models import Campaign
    from apps.rubrics.services import task_create
    from tests.quest.training.training_helpers import AUSTRALIA, judged_tree
    from tests.training.conftest import gate

    campaign = Campaign.objects.create(name="gate", created_by=admin)
    made = 0
    while made < 2:  # two judge-only tasks on the train side of the split
        task = task_create(
            user=admin, record={"question": AUSTRALIA, "rubric": judged_tree(AUSTRALIA)}
        )
        gate(task, campaign)
        made += not selectors.held_out(task.pk)
    dataset = build(admin, "sft", policy="scripted")
    assert dataset.status == "failed" and dataset.rows == 0
    assert dataset.error.startswith("no row to train on: 2 task(s) left out")
    assert "QUESTWEB_JUDGE_MODEL" in dataset.error
    assert len(dataset.stats["skipped"]) == 2, "the page lists them"
