from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.jobs.models import JobStatus
from apps.rubrics.imports import task_import_run
from apps.rubrics.models import RubricVersion, Task, TaskImport
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db


def _upload(client: Client, headers: dict[str, str], name: str, content: bytes) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post("/api/imports", {"file": SimpleUploadedFile(name, content)}, headers=headers)


def _run(job_id: int) -> TaskImport:
    # The Celery task is a one-line call of this service; the worker path is tested separately.
    return task_import_run(import_id=job_id)


def test_a_jsonl_file_of_quest_task_files_imports_every_task_with_version_one(
    client: Client, make_user: Callable[..., User], bearer, quest_task
) -> None:
    admin = make_user("admin")
    lines = [json.dumps(quest_task("yu_lineage")), json.dumps(quest_task("ad_patent"))]
    response = _upload(client, bearer(admin), "quest.jsonl", "\n".join(lines).encode())
    assert response.status_code == 202
    job = _run(response.json()["id"])
    assert (job.status, job.total, job.imported) == (JobStatus.DONE, 2, 2)
    questions = set(Task.objects.values_list("question", flat=True))
    assert any(q.startswith("Identify the academic lineage of Prof. Yu Su") for q in questions)
    task = Task.objects.get(question__startswith="Find three U.S. patents")
    assert task.current_version.number == 1
    assert task.current_version.stats["nodes"] == 58
    assert task.current_version.tree["root"]["strategy"] == "parallel"
    assert task.created_by == admin


def test_a_file_with_one_bad_record_imports_nothing_and_says_which_and_why(
    client: Client, make_user: Callable[..., User], bearer, quest_task
) -> None:
    bad_tree = small_tree()
    bad_tree["root"]["critical"] = True  # critical parent with a non-critical child
    records = [
        {"question": "ok", "rubric": small_tree()},
        {"question": "broken", "rubric": bad_tree},
        "not an object",
    ]
    content = "\n".join(json.dumps(r) for r in records).encode() + b"\n{oops\n"
    response = _upload(client, bearer(make_user("admin")), "mixed.jsonl", content)
    job = _run(response.json()["id"])
    assert job.status == JobStatus.REJECTED
    assert Task.objects.count() == 0 and RubricVersion.objects.count() == 0
    where = [r["record"] for r in job.rejected]
    assert where == ["line 2", "line 3", "line 4"]
    assert "critical" in job.rejected[0]["error"]
    assert "not valid JSON" in job.rejected[2]["error"]


def test_a_json_list_reports_items_by_index(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    content = json.dumps([{"question": "q", "rubric": small_tree()}, {"question": "q2"}]).encode()
    job = _run(_upload(client, bearer(make_user("admin")), "tasks.json", content).json()["id"])
    assert job.rejected == [
        {"record": "item 2", "error": "no rubric tree (expected one of: rubric, rubric_tree, tree)"}
    ]


def test_a_proposer_output_record_keeps_question_solution_and_metadata(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    record = {
        "proposed_question": "Which city is the capital of Australia?",
        "constraints": ["capital of Australia"],
        "solution": {
            "Canberra": {
                "description": "capital",
                "reference_urls": ["https://en.wikipedia.org/wiki/Canberra"],
            }
        },
        "category": "Travel & Transportation",
        "subcategory": "Travel & Accommodation",
        "provenance": {"generator": "test"},
    }
    leaf = {"node_name": "names_canberra", "description": "Names Canberra", "critical": True}
    record["rubric_tree"] = {
        "node_name": "root",
        "description": "capital",
        "critical": False,
        "aggregation_strategy": "parallel",
        "children": [leaf],
    }
    job = _run(
        _upload(client, bearer(make_user("admin")), "one.json", json.dumps(record).encode()).json()[
            "id"
        ]
    )
    assert job.status == JobStatus.DONE, job.rejected
    task = Task.objects.get()
    assert task.question == "Which city is the capital of Australia?"
    assert task.category == "Travel & Transportation"
    assert task.solution["Canberra"]["reference_urls"] == ["https://en.wikipedia.org/wiki/Canberra"]
    assert task.complexity == "C1"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [("empty.json", b"   ", "the file is empty")],
)
def test_an_unusable_upload_is_refused_before_any_work(
    client: Client, make_user: Callable[..., User], bearer, name: str, content: bytes, message: str
) -> None:
    response = _upload(client, bearer(make_user("admin")), name, content)
    assert response.status_code == 422
    assert response.json()["detail"] == message
    assert not TaskImport.objects.exists()


def test_a_deeply_nested_json_file_is_rejected_not_crashed(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    content = b"[" * 100_000 + b"]" * 100_000
    job = _run(_upload(client, bearer(make_user("admin")), "deep.json", content).json()["id"])
    assert job.status in (JobStatus.REJECTED, JobStatus.FAILED)
    assert not Task.objects.exists()


def test_only_admins_import(client: Client, make_user: Callable[..., User], bearer) -> None:
    response = _upload(client, bearer(make_user("annotator")), "x.json", b"{}")
    assert response.status_code == 403


def test_import_progress_is_readable_while_and_after_it_runs(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    admin = make_user("admin")
    headers = bearer(admin)
    content = "\n".join(
        json.dumps({"question": f"q{i}", "rubric": small_tree()}) for i in range(250)
    )
    job_id = _upload(client, headers, "many.jsonl", content.encode()).json()["id"]
    before = client.get(f"/api/imports/{job_id}", headers=headers).json()
    assert before["status"] == "queued"
    _run(job_id)
    after = client.get(f"/api/imports/{job_id}", headers=headers).json()
    assert (after["status"], after["processed"], after["imported"]) == ("done", 250, 250)


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_an_upload_is_imported_by_a_real_worker_on_the_cpu_queue(
    client: Client, make_user: Callable[..., User], bearer, start_worker
) -> None:
    import time

    headers = bearer(make_user("admin"))
    worker = start_worker("cpu")
    content = json.dumps({"question": "q", "rubric": small_tree()}).encode()
    job_id = _upload(client, headers, "one.json", content).json()["id"]
    deadline = time.monotonic() + 60
    status = "queued"
    while status in ("queued", "running") and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker died"
        time.sleep(0.3)
        status = client.get(f"/api/imports/{job_id}", headers=headers).json()["status"]
    assert status == "done"
    assert Task.objects.get().question == "q"


def test_the_import_page_uploads_and_shows_the_report(
    client: Client, make_user: Callable[..., User]
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(make_user("admin"))
    bad = json.dumps({"question": "q", "rubric": {"format": "questweb.rubric/1"}}).encode()
    response = client.post("/tasks/import/", {"file": SimpleUploadedFile("bad.json", bad)})
    assert response.status_code == 302
    job_id = int(response["Location"].rstrip("/").rsplit("/", 1)[1])
    queued = client.get(f"/tasks/import/{job_id}/", headers={"HX-Request": "true"}).content.decode()
    assert 'hx-trigger="every 1s"' in queued  # keeps polling while queued
    _run(job_id)
    done = client.get(f"/tasks/import/{job_id}/", headers={"HX-Request": "true"}).content.decode()
    assert "Nothing was imported" in done and "item 1" in done and "every 1s" not in done


def test_the_import_page_refuses_a_missing_file(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("admin"))
    response = client.post("/tasks/import/", {})
    assert response.status_code == 422
    assert "choose a file" in response.content.decode()


def test_a_viewer_cannot_open_the_import_page(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    response = client.get("/tasks/import/")
    assert response.status_code == 403
