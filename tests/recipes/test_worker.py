"""A miniature recipe end to end through a real Celery worker (one solo worker on the default,
cpu and gpu queues, as `make run` starts them): a batch of eight kg proposals, the gate's
campaign audited by a person and its trees probed, the scripted researcher's trajectories,
one SFT step and one GRPO step of the tiny model, and the evaluations of the base, SFT and GRPO
models on the held-out tasks. Every stage after the first is started by the post-task hook;
the test sends the beat's task once, after the audit, as beat would."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from tests.recipes.conftest import MINI, audit_all

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True, reset_sequences=True),
]


def test_a_miniature_recipe_runs_every_stage_through_a_real_worker(
    client: Client,
    admin: User,
    bearer: Callable[[User], dict[str, str]],
    start_worker: Callable[..., Any],
    settings: Any,
    recipe_dirs: Path,
) -> None:
    from apps.recipes.tasks import recipes_advance

    worker = start_worker(
        "default,cpu,gpu",
        QUESTWEB_TRAINING_DIR=str(recipe_dirs),
        QUESTWEB_CORPUS_DIR=str(settings.CORPUS_DIR),
    )
    headers = bearer(admin)

    def get(recipe_id: int) -> Any:
        return client.get(f"/api/recipes/{recipe_id}", headers=headers).json()

    def wait(recipe_id: int, until: Callable[[Any], bool], timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            body = get(recipe_id)
            if until(body) or body["status"] in ("failed", "cancelled"):
                return body
            time.sleep(0.5)
        raise AssertionError(f"recipe {recipe_id} never got there: {body['stages']}")

    body = json.dumps({"name": "mini", "config": MINI, "audit_sample": 8})
    created = client.post("/api/recipes", body, content_type="application/json", headers=headers)
    assert created.status_code == 201, created.content
    recipe_id = created.json()["id"]

    gate = wait(recipe_id, lambda r: r["status"] == "waiting", 180)
    assert gate["stage"] == "gate", gate["error"]
    assert audit_all(admin, gate["campaign_id"]) >= 2
    recipes_advance.delay()  # what beat sends every few seconds

    done = wait(recipe_id, lambda r: r["status"] == "done", 300)
    assert done["status"] == "done", done["error"]
    assert [s["status"] for s in done["stages"]] == ["done"] * 7
    assert all(s["links"] for s in done["stages"][:6]), "each stage links to what it made"
    models = {m["label"]: m for m in done["results"]["models"]}
    assert list(models) == ["base", "sft", "grpo"]
    assert models["base"]["model"] == "tiny"
    assert all(m["n"] + m["dropped"] == models["base"]["n"] + models["base"]["dropped"]
               for m in models.values()), "the same held-out tasks"  # fmt: skip
    assert [d["label"] for d in done["results"]["differences"]] == [
        "sft vs base", "grpo vs base", "grpo vs sft"]  # fmt: skip
    grpo = client.get(f"/api/training/jobs/{done['grpo_job_id']}", headers=headers).json()
    sft = client.get(f"/api/training/jobs/{done['sft_job_id']}", headers=headers).json()
    assert grpo["model"] == str(Path(sft["config"]["output_dir"]) / "final")
    assert (sft["step"], grpo["step"]) == (1, 1)
    assert worker.poll() is None
