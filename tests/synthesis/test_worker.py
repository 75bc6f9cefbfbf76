"""Batches asked for over REST and run by a real Celery worker on the cpu queue, with the real
engine over the GeoNames and countryinfo corpus: one runs to its end, one is cancelled while it
runs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.synthesis.models import SynthesisBatch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _wait(
    client: Client, headers: dict[str, str], batch_id: int, until: Callable[..., bool]
) -> Any:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        body = client.get(f"/api/synthesis/batches/{batch_id}", headers=headers).json()
        if until(body):
            return body
        time.sleep(0.5)
    raise AssertionError(f"batch {batch_id} is still {body['status']}: {body}")


def test_a_worker_runs_a_batch_to_its_end_and_stops_one_that_is_cancelled(
    client: Client,
    admin: User,
    bearer: Callable[[User], dict[str, str]],
    geo_corpus: Path,
    start_worker: Callable[..., Any],
) -> None:
    worker = start_worker("cpu", QUESTWEB_CORPUS_DIR=str(geo_corpus))
    headers = bearer(admin)

    def post(path: str, body: Any = None) -> Any:
        data = "" if body is None else json.dumps(body)
        return client.post(path, data, content_type="application/json", headers=headers)

    queued = post("/api/synthesis/batches", {"count": 3, "seed": 21, "baseline": True})
    assert queued.status_code == 202, queued.content
    ended = ("done", "failed", "cancelled")
    done = _wait(client, headers, queued.json()["id"], lambda b: b["status"] in ended)
    assert (done["status"], done["proposed"], done["error"]) == ("done", 3, "")
    candidates = client.get(f"/api/synthesis/batches/{done['id']}/candidates", headers=headers)
    assert [c["index"] for c in candidates.json()["results"]] == [0, 1, 2]

    long = post("/api/synthesis/batches", {"count": 2000, "seed": 22, "baseline": True}).json()
    _wait(client, headers, long["id"], lambda b: b["proposed"] >= 1)
    cancelled = post(f"/api/synthesis/batches/{long['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    time.sleep(3)  # the worker notices between two candidates and stops
    batch = SynthesisBatch.objects.get(pk=long["id"])
    written = batch.candidates.count()
    assert batch.proposed == written < 2000
    time.sleep(2)
    assert batch.candidates.count() == written, "nothing is written after the cancel"
    assert worker.poll() is None
