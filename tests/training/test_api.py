"""Training over REST: the same rules as the pages (readers read, admins write), bad bodies
refused with the field named, files served only by the names a build listed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training.models import TrainingDataset, TrainingJob, TrainingMetric

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def rl_rows(admin: User, training_dirs: Path) -> TrainingDataset:
    folder = training_dirs / "datasets" / "1"
    folder.mkdir(parents=True)
    (folder / "rl.jsonl").write_text('{"prompt": []}\n')
    (folder / "notes.txt").write_text("not listed")
    return TrainingDataset.objects.create(
        name="rl", kind="rl", status="done", rows=1, directory=str(folder), created_by=admin,
        stats={"files": ["rl.jsonl"]},
    )  # fmt: skip


def post(client: Client, path: str, body: Any, headers: dict[str, str]) -> Any:
    return client.post(
        f"/api/training/{path}", json.dumps(body), content_type="application/json",
        headers=headers,
    )  # fmt: skip


def test_an_admin_launches_and_a_viewer_reads_but_cannot_launch_or_cancel(
    client: Client,
    admin: User,
    viewer: User,
    bearer: Callable[[User], dict[str, str]],
    rl_rows: TrainingDataset,
) -> None:
    body = {"kind": "grpo", "dataset_id": rl_rows.pk, "model": "tiny", "max_steps": 4,
            "grpo": {"num_generations": 4, "reward": "shuffled"}, "lora": {"r": 8},
            "resumable": True}  # fmt: skip
    as_viewer = bearer(viewer)
    assert post(client, "jobs", body, as_viewer).status_code == 403
    launched = post(client, "jobs", body, bearer(admin))
    assert launched.status_code == 202, launched.content
    job = launched.json()
    assert job["config"]["grpo"]["num_generations"] == 4 and job["config"]["lora"]["r"] == 8
    assert job["config"]["grpo"]["reward"] == "shuffled"  # the random-reward control
    assert job["config"]["resumable"] is True
    read = client.get(f"/api/training/jobs/{job['id']}", headers=as_viewer)
    assert read.status_code == 200 and read.json()["status"] == "queued"
    assert post(client, f"jobs/{job['id']}/cancel", {}, as_viewer).status_code == 403
    listed = client.get("/api/training/jobs", headers=as_viewer).json()
    assert [j["id"] for j in listed["results"]] == [job["id"]]


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"kind": "ppo"}, "kind"),
        ({"grpo": {"learning_rate": 0}}, "learning_rate"),
        ({"grpo": {"temperature": 1e309}}, "temperature"),
        ({"grpo": {"reward": "random"}}, "reward"),
        ({"max_steps": 2**40}, "max_steps"),
        ({"rollout": {"max_turns": -1}}, "max_turns"),
        ({"model": "x" * 600}, "model"),
    ],
)
def test_a_bad_launch_body_is_a_422_naming_the_field(
    client: Client,
    admin: User,
    bearer: Callable[[User], dict[str, str]],
    rl_rows: TrainingDataset,
    body: dict[str, Any],
    where: str,
) -> None:
    base = {"kind": "grpo", "dataset_id": rl_rows.pk, "model": "tiny"}
    response = post(client, "jobs", {**base, **body}, bearer(admin))
    assert response.status_code == 422, response.content
    assert where in json.dumps(response.json())
    assert not TrainingJob.objects.exists()


def test_a_rule_across_fields_comes_back_from_the_config_as_a_422(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]], rl_rows: TrainingDataset
) -> None:
    body = {"kind": "grpo", "dataset_id": rl_rows.pk, "model": "tiny",
            "grpo": {"epsilon": 0.3, "epsilon_high": 0.2}}  # fmt: skip
    preview = post(client, "config-preview", body, bearer(admin))
    assert preview.status_code == 422
    assert preview.json()["detail"].startswith("grpo: epsilon_high must be at least epsilon")
    body["grpo"] = {"epsilon": 0.2, "epsilon_high": 0.28}
    ok = post(client, "config-preview", body, bearer(admin))
    assert ok.status_code == 200 and "epsilon_high: 0.28" in ok.json()["yaml"]


def test_a_dataset_file_is_served_only_by_a_listed_name(
    client: Client, viewer: User, bearer: Callable[[User], dict[str, str]], rl_rows: TrainingDataset
) -> None:
    headers = bearer(viewer)
    base = f"/api/training/datasets/{rl_rows.pk}/files/"
    served = client.get(base + "rl.jsonl", headers=headers)
    assert served.status_code == 200
    assert b"".join(served.streaming_content) == b'{"prompt": []}\n'  # type: ignore[attr-defined]
    for name in ("notes.txt", "..%2F..%2Fsecret_key", "%2Fetc%2Fpasswd"):
        assert client.get(base + name, headers=headers).status_code == 404


def test_compare_lists_where_the_configs_differ_and_each_runs_steps(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]], rl_rows: TrainingDataset
) -> None:
    headers = bearer(admin)
    ids = []
    for lr in (1e-6, 3e-6):
        body = {"kind": "grpo", "dataset_id": rl_rows.pk, "model": "tiny",
                "grpo": {"learning_rate": lr}}  # fmt: skip
        ids.append(post(client, "jobs", body, headers).json()["id"])
    TrainingMetric.objects.create(job_id=ids[0], line=0, step=1, values={"loss": 0.5})
    query = "&".join(f"jobs={i}" for i in ids)
    body = client.get(f"/api/training/compare?{query}", headers=headers).json()
    assert body["differences"]["grpo.learning_rate"] == {str(ids[0]): 1e-6, str(ids[1]): 3e-6}
    assert "grpo.epsilon" not in body["differences"]
    assert body["series"][str(ids[0])] == [{"step": 1, "loss": 0.5}]
    one = client.get(f"/api/training/compare?jobs={ids[0]}&jobs={ids[0]}", headers=headers)
    assert one.status_code == 422


def test_presets_are_saved_listed_and_deleted_by_admins_only(
    client: Client, admin: User, viewer: User, bearer: Callable[[User], dict[str, str]]
) -> None:
    body = {"name": "paper", "kind": "grpo", "model": "smollm2", "params": {"max_steps": 9}}
    assert post(client, "presets", body, bearer(viewer)).status_code == 403
    saved = post(client, "presets", body, bearer(admin))
    assert saved.status_code == 201 and saved.json()["config"]["max_steps"] == 9
    listed = client.get("/api/training/presets", headers=bearer(viewer)).json()
    assert [p["name"] for p in listed["results"]] == ["paper"]
    gone = client.delete(f"/api/training/presets/{saved.json()['id']}", headers=bearer(admin))
    assert gone.status_code == 204
