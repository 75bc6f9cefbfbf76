"""The llm generator through the app: the batch names a model as live sessions do, the worker
hands the engine that model's client, and the proposer's own stages (proposal, refine,
verifier) show in the REST answers and on the pages. The model is the engine tests'
RecordedLLMServer, a real OpenAI-compatible HTTP server replaying recorded replies: a capable
model cannot run here. The client, the proposer's corpus tools, the funnel and the app are real."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.common.errors import Invalid
from apps.synthesis import tasks
from apps.synthesis.models import SynthesisBatch
from apps.synthesis.runner import batch_run
from apps.synthesis.services import batch_create
from quest.synthesis.model import LLM_STAGES, STAGES
from tests.quest.synthesis.recorded_llm import (
    KENYA_PROPOSAL,
    KENYA_QUESTION,
    SEARCH_KENYA,
    RecordedLLMServer,
    answer,
    visit_first_geonames_result,
)

pytestmark = pytest.mark.django_db

PROPOSAL, QUESTION = KENYA_PROPOSAL, KENYA_QUESTION


@pytest.fixture
def recorded_model(settings: Any) -> Iterator[RecordedLLMServer]:
    replies = [SEARCH_KENYA, visit_first_geonames_result,
               answer(PROPOSAL)]  # fmt: skip
    with RecordedLLMServer(proposer=replies) as server:
        settings.LLM_ENDPOINTS = f"{server.url}|recorded"
        settings.LLM_JUDGE_MODEL = ""
        yield server


def test_an_llm_batch_runs_the_proposer_with_the_chosen_model_and_writes_its_task(
    client: Client,
    admin: User,
    bearer: Callable[[User], dict[str, str]],
    geo_corpus: Any,
    recorded_model: RecordedLLMServer,
) -> None:
    spec = {"generator": "llm", "count": 1, "seed": 3, "classes": {"C1": 1}, "baseline": False,
            "model": "recorded"}  # fmt: skip
    created = client.post(
        "/api/synthesis/batches", json.dumps(spec), "application/json", headers=bearer(admin)
    )
    assert created.status_code == 202, created.content
    assert created.json()["model"] == "recorded"
    batch = batch_run(batch_id=created.json()["id"])
    assert (batch.status, batch.proposed, batch.error) == ("done", 1, "")
    candidate = batch.candidates.get()
    assert [s["name"] for s in candidate.stages] == [*LLM_STAGES, *STAGES]
    assert candidate.accepted, candidate.reason
    assert candidate.task.question == QUESTION
    assert candidate.task.provenance["batch"] == f"synthesis-{batch.pk}"
    assert recorded_model.requests, "the proposer asked the chosen model"

    client.force_login(admin)
    page = client.get(f"/synthesis/candidates/{candidate.pk}/").content.decode()
    assert "Proposal readable" in page and "Independent verifier" in page
    batch_page = client.get(f"/synthesis/{batch.pk}/").content.decode()
    assert '<option value="proposal">Proposal readable</option>' in batch_page


def test_an_llm_proposal_that_is_no_task_is_rejected_at_the_proposal_stage(
    client: Client, admin: User, bearer: Any, geo_corpus: Any, settings: Any
) -> None:
    with RecordedLLMServer(proposer=["<answer>The capital is Nairobi.</answer>"]) as server:
        settings.LLM_ENDPOINTS = f"{server.url}|recorded"
        batch = batch_create(
            user=admin,
            spec={"generator": "llm", "count": 1, "baseline": False},
            model="recorded",
        )
        batch = batch_run(batch_id=batch.pk)
    assert (batch.status, batch.accepted) == ("done", 0)
    url = f"/api/synthesis/batches/{batch.pk}/candidates?rejected_at=proposal"
    [rejected] = client.get(url, headers=bearer(admin)).json()["results"]
    assert rejected["rejected_at"] == "proposal" and "no JSON object" in rejected["reason"]


def test_the_model_must_be_one_a_session_could_use_and_only_llm_takes_one(
    admin: User, settings: Any
) -> None:
    settings.LLM_ENDPOINTS = ""
    settings.LLM_VLLM_MODELS = []
    with pytest.raises(Invalid, match="model must be one of smollm2"):
        batch_create(user=admin, spec={"generator": "llm", "count": 1}, model="gpt-9")
    with pytest.raises(Invalid, match="the kg generator takes no model"):
        batch_create(user=admin, spec={"count": 1}, model="smollm2")
    assert batch_create(user=admin, spec={"generator": "llm", "count": 1}).model == "smollm2"
    assert not SynthesisBatch.objects.filter(model="gpt-9").exists()


def test_an_llm_batch_on_a_vllm_model_goes_to_the_gpu_queue(
    admin: User,
    settings: Any,
    sent_tasks: list[tuple[str, list[Any]]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    from workers.app import app

    settings.LLM_VLLM_MODELS = ["vllm:Qwen/Qwen3-8B"]
    with django_capture_on_commit_callbacks(execute=True):
        gpu = batch_create(user=admin, spec={"generator": "llm"}, model="vllm:Qwen/Qwen3-8B")
        cpu = batch_create(user=admin, spec={"generator": "kg"})
    assert sent_tasks == [
        (tasks.gpu_synthesis_batch.name, [gpu.pk]),
        (tasks.cpu_synthesis_batch.name, [cpu.pk]),
    ]
    assert app.amqp.router.route({}, tasks.gpu_synthesis_batch.name, (), {})["queue"].name == "gpu"


def test_keywords_sent_over_rest_seed_the_proposer(
    client: Client, admin: User, bearer: Any, geo_corpus: Any, recorded_model: RecordedLLMServer
) -> None:
    keywords = ["solar eclipse", " solar  eclipse ", "Bread"]
    spec = {"generator": "llm", "count": 1, "seed": 3, "classes": {"C1": 1}, "baseline": False,
            "model": "recorded", "keywords": keywords}  # fmt: skip
    created = client.post(
        "/api/synthesis/batches", json.dumps(spec), "application/json", headers=bearer(admin)
    )
    assert created.status_code == 202, created.content
    batch = SynthesisBatch.objects.get(pk=created.json()["id"])
    assert batch.keywords == ["solar eclipse", "Bread"]
    batch = batch_run(batch_id=batch.pk)
    task = batch.candidates.get().task
    assert task is not None and task.provenance["keywords_from"] == "csv"
    assert "solar eclipse" in recorded_model.requests[0][1]["content"]


def test_without_keywords_the_proposer_takes_them_from_the_corpus(
    admin: User, geo_corpus: Any, recorded_model: RecordedLLMServer
) -> None:
    batch = batch_create(user=admin, spec={"generator": "llm", "count": 1, "seed": 3,
                                           "classes": {"C1": 1}, "baseline": False},
                         model="recorded")  # fmt: skip
    batch = batch_run(batch_id=batch.pk)
    provenance = batch.candidates.get().record["provenance"]
    # The geography corpus has no Wikipedia pages to name: the subcategory stands in.
    assert provenance["keywords_from"] in ("corpus", "subcategory")


def test_a_keyword_csv_is_uploaded_with_the_form_and_a_bad_one_is_refused(
    client: Client, admin: User, settings: Any
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.LLM_ENDPOINTS = ""
    client.force_login(admin)
    form = {"generator": "llm", "count": "2", "seed": "1", "model": "smollm2"}
    good = SimpleUploadedFile("kw.csv", b"keyword\nBread\nCheese\n", "text/csv")
    created = client.post("/synthesis/", {**form, "keywords": good})
    assert created.status_code == 302
    assert SynthesisBatch.objects.get().keywords == ["Bread", "Cheese"]
    bad = SimpleUploadedFile("kw.csv", b"term\nBread\n", "text/csv")
    refused = client.post("/synthesis/", {**form, "keywords": bad})
    assert refused.status_code == 422
    assert "no `keyword` column" in refused.content.decode()
    assert SynthesisBatch.objects.count() == 1
    with pytest.raises(Invalid, match="kg generator takes none"):
        batch_create(user=admin, spec={"count": 1}, keywords=["Bread"])
