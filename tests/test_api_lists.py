"""Every list the API answers is one envelope (issue 38): {count, page, pages, next, previous,
results}, with next and previous as links a client follows, and a page past the end is a 404
that says so instead of the last page again. The list operations come from the generated
OpenAPI document, so a list added tomorrow is walked here the day it is added."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.accounts.services import token_create
from apps.audit.models import Campaign
from apps.audit.services import assignment_claim_next, campaign_create
from apps.benchmarks.models import BenchmarkRun
from apps.corpus.models import CorpusJob
from apps.live.models import LLMEndpoint, Session, Visibility
from apps.rubrics.services import task_prepare, tasks_write
from apps.training.models import (
    TrainingDataset,
    TrainingJob,
    TrainingMetric,
    TrainingPreset,
    TrainingRollout,
)
from questweb.api import api
from tests.factories import ProbeRunFactory, SynthesisBatchFactory, SynthesisCandidateFactory
from tests.rubrics.conftest import small_tree
from tests.training.conftest import gate

pytestmark = pytest.mark.django_db

SCHEMA = api.get_openapi_schema(path_prefix="/api/")
ENVELOPE = {"count", "page", "pages", "next", "previous", "results"}
# Answers that hold a `results` array but are no list of a collection.
NOT_LISTS = {
    "/api/search": "the k best passages for a query, ranked; k bounds it and there is no page 2",
}
# The lists the world below fills with two items or more: each is walked page by page.
SEVERAL = {
    "/api/tokens", "/api/users", "/api/tasks", "/api/tasks/{task_id}/probes", "/api/corpus/jobs",
    "/api/live/sessions", "/api/live/endpoints", "/api/audit/campaigns",
    "/api/audit/assignments", "/api/audit/training-tasks", "/api/synthesis/batches",
    "/api/synthesis/batches/{batch_id}/candidates", "/api/training/datasets/{dataset_id}/preview",
    "/api/training/jobs/{job_id}/metrics", "/api/training/jobs/{job_id}/rollouts",
    "/api/training/jobs/{job_id}/checkpoints", "/api/training/presets",
    "/api/benchmarks/runs/{run_id}/rows",
}  # fmt: skip
# Keys an envelope kept from before issue 38, for one release, with the key they repeat.
DEPRECATED = {"/api/live/sessions": {"sessions": "results"}}
# The offset paging of training-tasks, kept for one release (issue 38).
DEPRECATED_PARAMETERS = {"/api/audit/training-tasks": {"offset", "limit"}}


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMA["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _answer(operation: dict[str, Any]) -> dict[str, Any]:
    ok = operation["responses"].get(200) or operation["responses"].get("200") or {}
    return _resolve(ok.get("content", {}).get("application/json", {}).get("schema", {}))


def _list_paths() -> Iterator[str]:
    """GET operations on a collection (no id at the end) that answer an array, a `results`
    array or take a page."""
    for path, operations in SCHEMA["paths"].items():
        operation = operations.get("get")
        if operation is None or path.endswith("}") or path in NOT_LISTS:
            continue
        answer = _answer(operation)
        takes_page = any(p["name"] == "page" for p in operation.get("parameters", []))
        if answer.get("type") == "array" or "results" in answer.get("properties", {}) or takes_page:
            yield path


LIST_PATHS = sorted(_list_paths())


def test_the_walk_finds_the_lists_of_every_app() -> None:
    assert len(LIST_PATHS) >= 23
    assert set(LIST_PATHS) >= SEVERAL
    assert {"/api/audit/assignments", "/api/corpus/jobs", "/api/users"} <= set(LIST_PATHS)


@pytest.mark.parametrize("path", LIST_PATHS)
def test_every_list_publishes_the_typed_envelope_and_its_page_parameters(path: str) -> None:
    operation = SCHEMA["paths"][path]["get"]
    answer = _answer(operation)
    properties = answer.get("properties", {})
    assert answer.get("type") == "object" and set(properties) >= ENVELOPE, answer
    assert set(answer["required"]) >= ENVELOPE
    assert properties["count"]["type"] == properties["page"]["type"] == "integer"
    for link in ("next", "previous"):
        assert {o["type"] for o in properties[link]["anyOf"]} == {"string", "null"}
    assert properties["results"]["type"] == "array"
    assert "$ref" in properties["results"]["items"], "each item has a schema of its own"
    params = {p["name"]: p for p in operation["parameters"]}
    assert {"page", "page_size"} <= set(params)
    assert 404 in operation["responses"] or "404" in operation["responses"]
    for key in DEPRECATED.get(path, {}):
        assert properties[key].get("deprecated") is True
        assert "deprecated" in operation["description"]
    # Deprecated parameters are marked on the parameter itself, where client generators look.
    deprecated = {name for name, param in params.items() if param.get("deprecated") is True}
    assert deprecated == DEPRECATED_PARAMETERS.get(path, set())


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin", is_superuser=True)


@pytest.fixture
def world(admin: User, make_user: Callable[..., User], tmp_path: Path) -> dict[str, Any]:
    """Two items or more in most lists (SEVERAL), none in a few, and the ids their paths need."""
    records = [
        task_prepare({"question": f"Capital number {i}?", "rubric": small_tree()}) for i in range(3)
    ]
    tasks = tasks_write(user=None, prepared=records, note="test")
    audited = campaign_create(user=admin, name="round 1", filters={}, annotators_per_task=2)
    for annotator in (make_user("annotator"), make_user("annotator")):
        assignment_claim_next(user=annotator, campaign_id=audited.pk)
    gated = Campaign.objects.create(name="gate", created_by=admin)
    for task in tasks:
        gate(task, gated)
    ProbeRunFactory(version=tasks[0].current_version)
    token_create(user=admin, name="laptop")
    for n in range(2):
        CorpusJob.objects.create(kind="load_geo", created_by=admin)
        LLMEndpoint.objects.create(name=f"vllm {n}", base_url="http://127.0.0.1:1", model="m")
        Session.objects.create(owner=admin, visibility=Visibility.PRIVATE)
        TrainingPreset.objects.create(name=f"preset {n}", config={})
    Session.objects.create(owner=make_user("viewer"), visibility=Visibility.PRIVATE)
    batch = SynthesisBatchFactory(created_by=admin)
    SynthesisBatchFactory(created_by=admin)
    SynthesisCandidateFactory.create_batch(2, batch=batch)
    return {
        "task_id": tasks[0].pk,
        "campaign_id": audited.pk,
        "batch_id": batch.pk,
        **_training(admin, tmp_path),
        "run_id": _benchmark_run(admin, tmp_path),
    }


def _training(admin: User, folder: Path) -> dict[str, int]:
    rows = [{"row": n, "meta": {}, "segments": [["text", True]]} for n in range(2)]
    (folder / "preview.json").write_text(json.dumps(rows))
    dataset = TrainingDataset.objects.create(
        name="rl", kind="rl", status="done", directory=str(folder), created_by=admin
    )
    for step in (1, 2):
        (folder / f"checkpoint-{step}").mkdir()
        (folder / f"checkpoint-{step}" / "trainer_state.json").write_text("{}")
    job = TrainingJob.objects.create(
        name="run", kind="grpo", config={"output_dir": str(folder)}, status="done",
        dataset=dataset, created_by=admin,
    )  # fmt: skip
    for line in range(3):
        TrainingMetric.objects.create(job=job, line=line, step=line + 1, values={"loss": 1.0})
        TrainingRollout.objects.create(
            job=job, line=line, step=1, index=line, question="q", completion="a"
        )
    return {"dataset_id": dataset.pk, "job_id": job.pk}


def _benchmark_run(admin: User, folder: Path) -> int:
    """A finished benchmark run with two per-question rows in its directory."""
    row = {"question": "q", "gold": ["a"], "response": "a", "answer": "a", "confidence": 100.0,
           "confidence_stated": False, "exact_match": 1.0, "f1": 1.0, "verdict": "correct",
           "judged": False, "search_calls": 0, "cited_docs": [], "retrieved_docs": [],
           "evidence_docs": [], "status": "scored"}  # fmt: skip
    (folder / "rows.jsonl").write_text(
        "".join(json.dumps({"id": f"q{n}", **row}) + "\n" for n in range(2))
    )
    run = BenchmarkRun.objects.create(
        benchmark="flashrag", data="d", responses="r", queue="cpu", status="done",
        directory=str(folder), created_by=admin,
    )  # fmt: skip
    return int(run.pk)


def _url(path: str, ids: dict[str, Any]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", str(value))
    assert "{" not in path, f"{path}: give the world an id for it"
    return path


def _get(client: Client, url: str, headers: dict[str, str], status: int = 200) -> Any:
    response = client.get(url, headers=headers)
    assert response.status_code == status, (url, response.content)
    return response.json()


def _walk(client: Client, url: str, headers: dict[str, str], count: int) -> None:
    """Page by page with `next` to the end and back with `previous`: every item once, in the
    order of one page holding them all."""
    everything = _get(client, f"{url}?page_size={count}", headers)["results"]
    forward, link = [], f"{url}?page_size=1"
    while link is not None:
        page = _get(client, link, headers)
        assert (page["count"], page["pages"], page["page"]) == (count, count, len(forward) + 1)
        forward += page["results"]
        link, last = page["next"], page
    assert forward == everything
    backward, link = list(last["results"]), last["previous"]
    while link is not None:
        page = _get(client, link, headers)
        backward = page["results"] + backward
        link = page["previous"]
    assert backward == everything and page["page"] == 1


@pytest.mark.parametrize("path", LIST_PATHS)
def test_every_list_answers_the_envelope_and_a_page_past_the_end_is_a_404(
    client: Client,
    bearer: Callable[[User], dict[str, str]],
    admin: User,
    world: dict[str, Any],
    path: str,
) -> None:
    headers, url = bearer(admin), _url(path, world)
    body = _get(client, url, headers)
    assert set(body) >= ENVELOPE and body["page"] == 1 and body["previous"] is None
    assert (body["next"] is None) == (body["pages"] == 1)
    assert len(body["results"]) == min(body["count"], len(body["results"]))
    for key, same in DEPRECATED.get(path, {}).items():
        assert body[key] == body[same]
    past = body["pages"] + 1
    gone = _get(client, f"{url}?page={past}", headers, status=404)
    assert gone["detail"].startswith(f"page {past} is past the end: there ")
    assert f"{body['pages']} page" in gone["detail"]
    if path in SEVERAL:
        assert body["count"] >= 2
        _walk(client, url, headers, body["count"])


@pytest.mark.parametrize("path", LIST_PATHS)
def test_a_page_that_is_no_page_number_is_a_422_naming_it(
    client: Client, bearer: Callable[[User], dict[str, str]], admin: User, path: str
) -> None:
    ids = {"task_id": 1, "campaign_id": 1, "batch_id": 1, "dataset_id": 1, "job_id": 1,
           "run_id": 1}  # fmt: skip
    headers = bearer(admin)
    for page in ("0", "-1", "abc", "1.5", "", "2147483648"):
        body = _get(client, f"{_url(path, ids)}?page={page}", headers, status=422)
        assert body["detail"] == "request is not valid"
        assert any("page" in error["loc"] for error in body["errors"]), page


@pytest.mark.parametrize("size", ["0", "-5", "1000000", "huge"])
def test_a_page_size_out_of_bounds_is_a_422_not_the_whole_table(
    client: Client, bearer: Callable[[User], dict[str, str]], admin: User, size: str
) -> None:
    for path in ("/api/tasks", "/api/users", "/api/audit/assignments", "/api/corpus/jobs"):
        body = _get(client, f"{path}?page_size={size}", bearer(admin), status=422)
        assert any("page_size" in error["loc"] for error in body["errors"])


def test_an_empty_list_is_page_1_of_1_and_page_2_is_past_the_end(
    client: Client, bearer: Callable[[User], dict[str, str]], admin: User
) -> None:
    headers = bearer(admin)
    empty = _get(client, "/api/recipes", headers)
    assert empty == {
        "count": 0, "page": 1, "pages": 1, "next": None, "previous": None, "results": []
    }  # fmt: skip
    gone = _get(client, "/api/recipes?page=2", headers, status=404)
    assert gone == {"detail": "page 2 is past the end: there is 1 page (0 items, 20 a page)"}


def test_the_links_keep_the_filters_and_change_only_the_page(
    client: Client, bearer: Callable[[User], dict[str, str]], admin: User, world: dict[str, Any]
) -> None:
    headers = bearer(admin)
    first = _get(client, "/api/audit/campaigns?status=all&page_size=1", headers)
    assert first["next"] == "/api/audit/campaigns?status=all&page_size=1&page=2"
    second = _get(client, first["next"], headers)
    assert second["previous"] == "/api/audit/campaigns?status=all&page_size=1&page=1"
    assert second["next"] is None and second["results"] != first["results"]
    gone = _get(client, "/api/audit/campaigns?page_size=1&page=99", headers, status=404)
    assert gone == {"detail": "page 99 is past the end: there are 2 pages (2 items, 1 a page)"}


def test_other_users_objects_are_not_counted(
    client: Client,
    bearer: Callable[[User], dict[str, str]],
    make_user: Callable[..., User],
    admin: User,
    world: dict[str, Any],
) -> None:
    viewer, annotator = make_user("viewer"), make_user("annotator")
    as_viewer = bearer(viewer)
    mine = Session.objects.create(owner=viewer, visibility=Visibility.PRIVATE)
    sessions = _get(client, "/api/live/sessions", as_viewer)
    assert sessions["count"] == len(sessions["results"]) == 1
    assert sessions["results"][0]["id"] == str(mine.public_id), "private sessions stay private"
    tokens = _get(client, "/api/tokens", as_viewer)
    assert tokens["count"] == 1, "only the token this request was made with"
    assert _get(client, "/api/audit/assignments", bearer(annotator))["count"] == 0
    assert _get(client, "/api/audit/assignments", bearer(admin))["count"] == 2


def test_the_deprecated_offset_of_training_tasks_pages_in_its_own_terms(
    client: Client, bearer: Callable[[User], dict[str, str]], admin: User, world: dict[str, Any]
) -> None:
    headers, url = bearer(admin), "/api/audit/training-tasks"
    paged = _get(client, f"{url}?page_size=3", headers)["results"]
    first = _get(client, f"{url}?offset=0&limit=2", headers)
    assert (first["count"], first["page"], first["pages"]) == (3, 1, 2)
    assert first["results"] == paged[:2] and first["previous"] is None
    assert first["next"] == f"{url}?offset=2&limit=2"
    rest = _get(client, first["next"], headers)
    assert rest["results"] == paged[2:] and rest["next"] is None
    assert rest["previous"] == f"{url}?offset=0&limit=2"
    gone = _get(client, f"{url}?offset=3", headers, status=404)
    assert gone == {"detail": "offset 3 is past the end: there are 3 items"}
    both = _get(client, f"{url}?page=1&offset=2", headers, status=422)
    assert "page and offset/limit" in both["detail"]
