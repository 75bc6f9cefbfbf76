"""A training run's checkpoint as a live session's model (issue 40): an ended run's checkpoints are
offered with a label, its step and its held-out reward; one is picked, runs in-process on the
gpu queue's task (called here, on CPU: a tiny random-weights model, real generation) and the
session records which checkpoint it ran. A model that breaks the protocol ends the session with
one line saying so and the last invalid turn, escaped."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from apps.live.models import Event, Policy, Session
from apps.training.models import Evaluation, TrainingJob
from tests.live.test_llm_session import _llm_servers, build_roomy_tiny_model

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Reading 2,048 tokens: room for a few turns of the QUEST protocol."""
    return build_roomy_tiny_model(tmp_path_factory.mktemp("models") / _llm_servers().TINY, 2048)


@pytest.fixture
def make_run(settings: Any, tmp_path: Path, tiny_model: Path) -> Callable[..., TrainingJob]:
    """A tiny SFT run as the training worker leaves it: a row and checkpoint-<step> on disk
    (the tiny model's config and weights beside trainer_state.json)."""
    settings.TRAINING_DIR = tmp_path / "training"

    def make(status: str = "done", step: int = 30) -> TrainingJob:
        job = TrainingJob.objects.create(
            name="tiny sft", kind="sft", config={}, status=status, step=step, max_steps=step
        )
        job.config = {"model": "tiny", "output_dir": str(settings.TRAINING_DIR / f"runs/{job.pk}")}
        job.save()
        folder = Path(job.output_dir) / f"checkpoint-{step}"
        shutil.copytree(tiny_model, folder)
        (folder / "trainer_state.json").write_text("{}")
        return job

    return make


def _evaluate(job: TrainingJob, step: int, mean: float) -> Evaluation:
    scores = [{"task_id": "1", "reward": mean, "status": "answered"}]
    results = {"models": {"checkpoint": {"mean": mean, "n": 1, "scores": scores}}}
    return Evaluation.objects.create(
        job=job, checkpoint=f"{job.output_dir}/checkpoint-{step}", task_ids=["1"],
        status="done", results=results,
    )  # fmt: skip


def _llm_user(make_user: Callable[..., Any]) -> Any:
    user = make_user("viewer")
    user.user_permissions.add(Permission.objects.get(codename="use_llm"))
    return type(user).objects.get(pk=user.pk)


def _post(client: Client, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(
        "/api/live/sessions", json.dumps(body), content_type="application/json", headers=headers
    )


def test_the_models_list_offers_an_ended_runs_checkpoint_with_its_step_and_reward(
    make_run: Callable[..., TrainingJob],
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    job = make_run()
    _evaluate(job, 30, 0.42)
    make_run(status="running")  # still training: not offered
    make_run(status="failed")  # its checkpoints may be half-written: not offered
    body = client.get("/api/live/models", headers=bearer(make_user("viewer"))).json()
    [checkpoint] = body["checkpoints"]
    assert checkpoint == {
        "model": f"checkpoint:runs/{job.pk}/checkpoint-30",
        "label": f"SFT run {job.pk} · step 30",
        "path": f"runs/{job.pk}/checkpoint-30",
        "job_id": job.pk,
        "step": 30,
        "held_out_reward": 0.42,
    }
    assert body["models"][0] == "smollm2" and checkpoint["model"] in body["models"]


def test_a_picked_checkpoint_runs_in_process_on_the_gpu_task_and_the_session_records_it(
    make_run: Callable[..., TrainingJob],
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from apps.live.tasks import gpu_session_run

    sent: list[tuple[str, int]] = []
    monkeypatch.setattr(
        "apps.live.services.task_send", lambda name, pk, queue: sent.append((name, pk))
    )
    job = make_run()
    model = f"checkpoint:runs/{job.pk}/checkpoint-30"
    body = {"question": "What is the capital of Australia?", "policy": "llm", "model": model,
            "max_turns": 3, "max_turn_tokens": 16}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(client, body, bearer(_llm_user(make_user)))
    assert response.status_code == 201, response.content
    out = response.json()
    assert out["model"] == model
    assert out["checkpoint"] == {
        "path": f"runs/{job.pk}/checkpoint-30", "label": f"SFT run {job.pk} · step 30",
        "job_id": job.pk, "step": 30, "held_out_reward": None,
    }  # fmt: skip
    session = Session.objects.get()
    assert sent == [("apps.live.tasks.gpu_session_run", session.pk)]

    gpu_session_run(session.pk)  # the gpu worker's task, eagerly, on this CPU

    session.refresh_from_db()
    started = Event.objects.get(session=session, type="started").payload
    # The model reads 2,048 tokens: the history condenses at half of that, not at 16,384.
    assert started["budgets"]["condense_at_tokens"] == 1024
    finished = Event.objects.get(session=session, type="finished").payload
    assert finished["completion_tokens"] > 0, "the checkpoint really generated"
    # Random weights never speak the protocol: the page says so in one line, with the turn.
    failure = session.result["failure"]
    assert failure == finished["failure"]
    assert failure["reason"] == "The model broke the protocol 3 turns in a row"
    last = Event.objects.filter(session=session, type="reminder").last()
    assert last is not None and failure["last_invalid_turn"] == last.payload["reply"] != ""


def test_an_unknown_checkpoint_is_refused_naming_the_model_field(
    make_run: Callable[..., TrainingJob],
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    job = make_run(status="running")
    headers = bearer(_llm_user(make_user))
    for path in (f"runs/{job.pk}/checkpoint-30", "runs/999/checkpoint-1", "../../etc"):
        response = _post(
            client, {"question": "q", "policy": "llm", "model": f"checkpoint:{path}"}, headers
        )
        assert response.status_code == 422, path
        assert response.json()["detail"].startswith(f"model: no checkpoint '{path}'")
    assert not Session.objects.exists()


def test_a_user_without_the_llm_grant_cannot_run_a_checkpoint(
    make_run: Callable[..., TrainingJob],
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
) -> None:
    job = make_run()
    body = {"question": "q", "policy": "llm", "model": f"checkpoint:runs/{job.pk}/checkpoint-30"}
    response = _post(client, body, bearer(make_user("viewer")))
    assert response.status_code == 403 and "an admin must grant you" in response.json()["detail"]
    assert not Session.objects.exists()


def test_the_session_page_names_the_run_its_step_and_reward_and_why_the_model_failed(
    make_user: Callable[..., Any], make_session: Callable[..., Any], client: Client
) -> None:
    user = make_user("viewer")
    failure = {"status": "invalid", "reason": "The model broke the protocol 3 turns in a row",
               "last_invalid_turn": "<script>alert(1)</script> I think"}  # fmt: skip
    session = make_session(
        user, policy=Policy.LLM, model="checkpoint:runs/12/checkpoint-30", status="finished",
        checkpoint="runs/12/checkpoint-30", checkpoint_label="SFT run 12 · step 30",
        training_job_id=12, checkpoint_step=30, held_out_reward=0.4213,
        result={"failure": failure},
    )  # fmt: skip
    client.force_login(user)
    page = client.get(f"/live/{session.public_id}/").content.decode()
    assert "SFT run 12 · step 30 · held-out reward 0.421" in page
    assert "The model broke the protocol 3 turns in a row" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; I think" in page
    assert "<script>alert(1)" not in page
    export = client.get(f"/live/{session.public_id}/export/?format=md").content.decode()
    assert (
        "- checkpoint: SFT run 12 · step 30 (runs/12/checkpoint-30, held-out reward 0.421)"
        in export
    )
    assert "- ended: The model broke the protocol 3 turns in a row" in export


def test_the_start_form_offers_checkpoints_and_starts_two_sessions_to_compare(
    make_run: Callable[..., TrainingJob],
    make_user: Callable[..., Any],
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)
    job = make_run()
    _evaluate(job, 30, 0.5)
    user = _llm_user(make_user)
    client.force_login(user)
    form = client.get("/live/").content.decode()
    model = f"checkpoint:runs/{job.pk}/checkpoint-30"
    assert f'<option value="{model}">SFT run {job.pk} · step 30 · held-out reward 0.500' in form
    response = client.post(
        "/live/new/",
        {"question": "Capital of Australia?", "policy": "llm", "model": "smollm2",
         "compare": model, "max_turns": "5"},
    )  # fmt: skip
    base, trained = Session.objects.order_by("pk")
    assert response.status_code == 302
    assert response["Location"] == f"/live/compare/{base.public_id}/{trained.public_id}/"
    assert (base.model, trained.model, trained.checkpoint_step) == ("smollm2", model, 30)
    page = client.get(response["Location"]).content.decode()
    assert page.count("data-live-session") == 2
    assert "smollm2" in page and f"SFT run {job.pk} · step 30" in page


def test_a_comparison_that_cannot_start_both_starts_neither(
    make_user: Callable[..., Any], client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)
    client.force_login(make_user("viewer"))
    response = client.post(
        "/live/new/", {"question": "Capital?", "policy": "scripted", "compare": "smollm2"}
    )
    assert response.status_code == 403  # the second side needs the llm grant
    assert not Session.objects.exists()


def test_the_api_starts_a_comparison_of_base_and_checkpoint_and_names_its_page(
    make_run: Callable[..., TrainingJob],
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)
    job = make_run()
    _evaluate(job, 30, 0.25)
    model = f"checkpoint:runs/{job.pk}/checkpoint-30"
    body = {"question": "Capital of Australia?", "policy": "llm", "model": "smollm2",
            "other_policy": "llm", "other_model": model, "max_turns": 5}  # fmt: skip
    response = client.post(
        "/api/live/comparisons", json.dumps(body), content_type="application/json",
        headers=bearer(_llm_user(make_user)),
    )  # fmt: skip
    assert response.status_code == 201, response.content
    found = response.json()
    base, trained = Session.objects.order_by("pk")
    assert (found["a"]["id"], found["b"]["id"]) == (str(base.public_id), str(trained.public_id))
    assert found["url"] == f"/live/compare/{base.public_id}/{trained.public_id}/"
    assert (found["a"]["model"], found["a"]["checkpoint"]) == ("smollm2", None)
    assert found["b"]["checkpoint"]["label"] == f"SFT run {job.pk} · step 30"
    assert found["b"]["checkpoint"]["held_out_reward"] == 0.25
    assert found["a"]["budgets"]["max_turns"] == found["b"]["budgets"]["max_turns"] == 5


@pytest.mark.parametrize(
    ("other", "status", "message"),
    [
        ({"other_policy": "llm", "other_model": "checkpoint:runs/999/checkpoint-1"}, 422, "model"),
        ({"other_policy": "oracle"}, 422, "other_policy"),
        ({}, 422, "other_policy"),
        ({"other_policy": "llm", "other_model": "smollm2"}, 403, "an admin must grant you"),
    ],
)
def test_a_comparison_the_api_cannot_start_whole_starts_neither_side(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    other: dict[str, Any],
    status: int,
    message: str,
) -> None:
    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)
    user = make_user("viewer") if status == 403 else _llm_user(make_user)
    body = {"question": "Capital?", "policy": "scripted", **other}
    response = client.post(
        "/api/live/comparisons", json.dumps(body), content_type="application/json",
        headers=bearer(user),
    )  # fmt: skip
    assert response.status_code == status, response.content
    assert message in response.content.decode()
    assert not Session.objects.exists()
