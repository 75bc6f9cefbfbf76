from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.db import connection
from django.test import Client

from apps.accounts.models import User
from workers import heartbeat

pytestmark = pytest.mark.django_db

PUBLIC_KEYS = {"status", "db", "broker", "worker", "queues", "python_sandbox"}
ADMIN_KEYS = PUBLIC_KEYS | {"version", "mode", "busy_with"}


@pytest.fixture
def admin_session(client: Client, make_user: Callable[..., User]) -> Client:
    """A browser signed in with the admin role: the one that reads /healthz's details."""
    client.force_login(make_user("admin"))
    return client


def test_healthz_reports_no_worker_when_no_queue_ever_answered(
    client: Client, redis_client: redis.Redis
) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "db": "ok",
        "broker": "ok",
        "worker": "none",
        "queues": {"default": "none", "cpu": "none", "gpu": "none"},
        "python_sandbox": "ok",
    }


def test_healthz_tells_an_admin_the_version_and_mode(
    admin_session: Client, redis_client: redis.Redis
) -> None:
    body = admin_session.get("/healthz").json()
    assert (body["version"], body["mode"]) == ("0.1.0", "cluster")


def test_healthz_reports_that_the_python_sandbox_works(
    client: Client, redis_client: redis.Redis
) -> None:
    assert client.get("/healthz").json()["python_sandbox"] == "ok"


def test_healthz_stays_healthy_and_tells_an_admin_why_the_python_sandbox_is_off(
    client: Client,
    admin_session: Client,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine without bubblewrap

    response = admin_session.get("/healthz")

    assert response.status_code == 200
    assert response.json()["python_sandbox"] == (
        "off: no executable 'bwrap' was found (install the Debian package bubblewrap)"
    )
    admin_session.logout()
    assert client.get("/healthz").json()["python_sandbox"] == "off"


def test_healthz_reports_a_stale_worker_when_the_last_heartbeat_is_old(
    client: Client, redis_client: redis.Redis
) -> None:
    long_ago = time.time() - heartbeat.STALE_AFTER_SECONDS - 5
    heartbeat.record(redis_client, queue="default", hostname="w1", now=long_ago)
    body = client.get("/healthz").json()
    assert body["worker"] == "stale"


def test_healthz_reports_an_ok_worker_when_any_worker_beat_recently(
    client: Client, redis_client: redis.Redis
) -> None:
    heartbeat.record(redis_client, queue="default", hostname="old", now=time.time() - 3600)
    heartbeat.record(redis_client, queue="default", hostname="new")
    body = client.get("/healthz").json()
    assert body["worker"] == "ok"
    assert body["queues"] == {"default": "ok", "cpu": "none", "gpu": "none"}


def test_healthz_is_503_with_broker_error_when_redis_is_unreachable(
    client: Client, settings: Any
) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"] == "error"
    assert response.json()["db"] == "ok"


@pytest.fixture
def broken_database() -> Iterator[None]:
    original = connection.settings_dict.copy()
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent/dir/db.sqlite3"
    else:
        connection.settings_dict["PORT"] = 1
    yield
    connection.close()
    connection.settings_dict.update(original)


def test_healthz_is_503_with_db_error_when_the_database_is_down(
    client: Client, redis_client: redis.Redis, broken_database: None
) -> None:
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["db"] == "error"
    assert response.json()["broker"] == "ok"


@pytest.mark.integration
def test_a_real_worker_makes_healthz_report_ok(
    client: Client, redis_client: redis.Redis, start_worker: Any
) -> None:
    assert client.get("/healthz").json()["worker"] == "none"
    worker = start_worker("default,cpu")
    deadline = time.monotonic() + 60
    wanted = {"default": "ok", "cpu": "ok", "gpu": "none"}
    body = client.get("/healthz").json()
    # The worker reports each of its queues in turn, so wait for all of them.
    while body["queues"] != wanted and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker died at start"
        time.sleep(0.5)
        body = client.get("/healthz").json()
    assert body["worker"] == "ok"
    assert body["queues"] == wanted


def _running_job(*, reported_ago: float) -> Any:
    from datetime import timedelta

    from django.utils import timezone

    from apps.jobs.models import JobStatus
    from apps.training.models import TrainingJob

    now = timezone.now()
    return TrainingJob.objects.create(
        name="grpo-smollm2",
        kind="grpo",
        config={"model": "smollm2"},
        status=JobStatus.RUNNING,
        started_at=now - timedelta(minutes=20),
        active_at=now - timedelta(seconds=reported_ago),
        step=7,
        max_steps=200,
    )


def test_healthz_says_the_gpu_queue_is_busy_with_the_job_its_solo_worker_is_training(
    admin_session: Client, redis_client: redis.Redis
) -> None:
    long_ago = time.time() - heartbeat.STALE_AFTER_SECONDS - 600
    heartbeat.record(redis_client, queue="gpu", hostname="gpu1", now=long_ago)
    job = _running_job(reported_ago=5)

    body = admin_session.get("/healthz").json()

    assert body["queues"]["gpu"] == "busy"
    assert body["busy_with"] == {
        "gpu": {
            "kind": "training job",
            "id": job.pk,
            "name": "grpo-smollm2",
            "url": f"/training/jobs/{job.pk}/",
        }
    }


def test_healthz_keeps_the_gpu_queue_stale_when_its_running_job_stopped_reporting(
    admin_session: Client, redis_client: redis.Redis, settings: Any
) -> None:
    long_ago = time.time() - heartbeat.STALE_AFTER_SECONDS - 600
    heartbeat.record(redis_client, queue="gpu", hostname="gpu1", now=long_ago)
    _running_job(reported_ago=settings.TRAINING_STALL_SECONDS + 60)

    body = admin_session.get("/healthz").json()

    assert body["queues"]["gpu"] == "stale"
    assert body["busy_with"] == {}


def test_healthz_names_a_running_evaluation_by_its_checkpoint(
    admin_session: Client, redis_client: redis.Redis
) -> None:
    from django.utils import timezone

    from apps.jobs.models import JobStatus
    from apps.training.models import Evaluation

    heartbeat.record(redis_client, queue="gpu", hostname="gpu1", now=time.time() - 3600)
    evaluation = Evaluation.objects.create(
        checkpoint="var/training/runs/3/final", status=JobStatus.RUNNING, active_at=timezone.now()
    )

    body = admin_session.get("/healthz").json()

    assert body["queues"]["gpu"] == "busy"
    assert body["busy_with"]["gpu"] == {
        "kind": "evaluation",
        "id": evaluation.pk,
        "name": "var/training/runs/3/final",
        "url": f"/training/evaluations/{evaluation.pk}/",
    }


def _busy_evaluating(redis_client: redis.Redis, checkpoint: str) -> None:
    from django.utils import timezone

    from apps.jobs.models import JobStatus
    from apps.training.models import Evaluation

    heartbeat.record(redis_client, queue="gpu", hostname="gpu1", now=time.time() - 3600)
    Evaluation.objects.create(
        checkpoint=checkpoint, status=JobStatus.RUNNING, active_at=timezone.now()
    )


@pytest.mark.parametrize("role", [None, "viewer", "reviewer"])
def test_healthz_tells_anyone_but_an_admin_only_the_state_of_each_part(
    client: Client,
    redis_client: redis.Redis,
    make_user: Callable[..., User],
    settings: Any,
    tmp_path: Path,
    role: str | None,
) -> None:
    settings.TRAINING_DIR = tmp_path / "training"
    _busy_evaluating(redis_client, str(tmp_path / "training" / "runs" / "3" / "final"))
    if role is not None:
        client.force_login(make_user(role))

    response = client.get("/healthz")

    body = response.json()
    assert set(body) == PUBLIC_KEYS
    assert body["queues"] == {"default": "none", "cpu": "none", "gpu": "busy"}
    assert "/" not in response.content.decode()  # no path, no url, nothing of the server's
    assert str(tmp_path) not in response.content.decode()


def test_healthz_tells_an_admin_what_the_gpu_runs_relative_to_the_training_directory(
    admin_session: Client, redis_client: redis.Redis, settings: Any, tmp_path: Path
) -> None:
    settings.TRAINING_DIR = tmp_path / "training"
    _busy_evaluating(redis_client, str(tmp_path / "training" / "runs" / "3" / "final"))

    body = admin_session.get("/healthz").json()

    assert set(body) == ADMIN_KEYS
    assert body["busy_with"]["gpu"]["name"] == "runs/3/final"
    assert str(tmp_path) not in json.dumps(body)
