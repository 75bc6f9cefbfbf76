"""Every import ends (issue 11, item 4): done, rejected with the records and why, or failed with a
reason, including records PostgreSQL cannot store, a crash, a cancel and a time-out."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.jobs.models import JobStatus
from apps.jobs.tasks import jobs_watchdog
from apps.rubrics import imports
from apps.rubrics.imports import task_import_cancel, task_import_run
from apps.rubrics.models import RubricVersion, Task, TaskImport
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db


def _record(**fields: Any) -> dict[str, Any]:
    return {"question": "Which city is the capital of Australia?", "rubric": small_tree(), **fields}


def _jsonl(*records: dict[str, Any]) -> bytes:
    # json.dumps writes NaN and Infinity as such, and a lone surrogate as a \ud800 escape:
    # exactly what a careless exporter or an attacker sends.
    return "\n".join(json.dumps(r) for r in records).encode()


def _upload(client: Client, headers: dict[str, str], content: bytes, name: str = "t.jsonl") -> int:
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/api/imports", {"file": SimpleUploadedFile(name, content)}, headers=headers
    )
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin", username="ada")


def _tree_with_description(text: str) -> dict[str, Any]:
    tree = small_tree()
    tree["root"]["children"][0]["description"] = text
    return tree


@pytest.mark.parametrize(
    ("record", "error"),
    [
        (_record(provenance={"score": float("nan")}), "provenance.score is NaN"),
        (_record(provenance={"score": float("inf")}), "provenance.score is Infinity"),
        (
            _record(solution={"Canberra": {"weight": float("-inf")}}),
            "solution.Canberra.weight is -Infinity",
        ),
        (_record(question="Which city\ud800?"), "question holds a lone surrogate (\\ud800)"),
        (
            _record(reference_answer="Canberra \udfff"),
            "reference_answer holds a lone surrogate (\\udfff)",
        ),
        (
            _record(rubric=_tree_with_description("Names \ud83d Canberra")),
            "rubric.root.children[0].description holds a lone surrogate (\\ud83d)",
        ),
        (_record(provenance={"src\ud800": 1}), "provenance has a key that holds a lone surrogate"),
        (_record(category="Travel\x00"), "category holds a NUL character"),
    ],
)
def test_a_record_postgresql_cannot_store_is_rejected_naming_the_field_and_nothing_goes_in(
    client: Client, admin: User, bearer: Any, record: dict[str, Any], error: str
) -> None:
    job_id = _upload(client, bearer(admin), _jsonl(_record(), record))
    job = task_import_run(import_id=job_id)
    assert job.status == JobStatus.REJECTED
    assert [r["record"] for r in job.rejected] == ["line 2"]
    assert job.rejected[0]["error"].startswith(error)
    assert not Task.objects.exists() and not RubricVersion.objects.exists()
    page = client.get(f"/api/imports/{job_id}", headers=bearer(admin))
    assert page.status_code == 200 and page.json()["rejected"][0]["error"].startswith(error)


def test_nan_written_as_a_bare_literal_in_a_json_list_is_rejected_by_item(
    client: Client, admin: User, bearer: Any
) -> None:
    body = json.dumps([_record(), _record()]).replace('"critical": false', '"weight": NaN', 1)
    job = task_import_run(import_id=_upload(client, bearer(admin), body.encode(), "t.json"))
    assert job.status == JobStatus.REJECTED
    assert job.rejected == [
        {"record": "item 1", "error": "rubric.root.weight is NaN: numbers must be finite"}
    ]


def test_a_crash_while_writing_ends_the_job_failed_with_the_reason(
    client: Client, admin: User, bearer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_write(**kwargs: Any) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(imports, "tasks_write", broken_write)  # an injected fault
    job = task_import_run(import_id=_upload(client, bearer(admin), _jsonl(_record())))
    assert job.status == JobStatus.FAILED
    assert job.error == "the import failed: RuntimeError: the disk is full"
    assert job.finished_at is not None


def test_a_queued_import_cancelled_over_rest_ends_failed_and_writes_nothing(
    client: Client, admin: User, bearer: Any
) -> None:
    headers = bearer(admin)
    job_id = _upload(client, headers, _jsonl(_record()))
    response = client.post(f"/api/imports/{job_id}/cancel", headers=headers)
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["error"]) == ("failed", "cancelled by ada")
    assert task_import_run(import_id=job_id).status == JobStatus.FAILED  # the worker's turn
    assert not Task.objects.exists()
    again = client.post(f"/api/imports/{job_id}/cancel", headers=headers)
    assert again.status_code == 409
    assert again.json()["detail"] == (
        f"import {job_id} has already ended (failed): there is nothing to cancel"
    )


def test_only_admins_cancel_imports(
    client: Client, admin: User, bearer: Any, make_user: Callable[..., User]
) -> None:
    job_id = _upload(client, bearer(admin), _jsonl(_record()))
    response = client.post(f"/api/imports/{job_id}/cancel", headers=bearer(make_user("reviewer")))
    assert response.status_code == 403
    assert TaskImport.objects.get(pk=job_id).status == JobStatus.QUEUED
    assert client.post("/api/imports/999999/cancel", headers=bearer(admin)).status_code == 404


@pytest.mark.parametrize(("cancel_at", "last_report"), [(50, 0), (250, 200)])
def test_a_running_import_cancelled_meanwhile_stops_and_writes_nothing(
    client: Client,
    admin: User,
    bearer: Any,
    monkeypatch: pytest.MonkeyPatch,
    cancel_at: int,
    last_report: int,
) -> None:
    """Another admin presses cancel while the worker checks record `cancel_at` of 250: it stops
    at its next progress report, or, after the last one, finds the job ended before writing."""
    job_id = _upload(client, bearer(admin), _jsonl(*[_record() for _ in range(250)]))
    checked = 0
    prepare = imports.task_prepare

    def prepare_and_cancel(record: Any) -> Any:
        nonlocal checked
        checked += 1
        if checked == cancel_at:
            task_import_cancel(user=admin, import_id=job_id)
        return prepare(record)

    monkeypatch.setattr(imports, "task_prepare", prepare_and_cancel)
    job = task_import_run(import_id=job_id)
    assert (job.status, job.error) == (JobStatus.FAILED, "cancelled by ada")
    assert checked == max(cancel_at, 100) and job.processed == last_report
    assert not Task.objects.exists()


def test_the_import_page_has_a_cancel_button_while_the_job_is_queued(
    client: Client, admin: User, bearer: Any
) -> None:
    job_id = _upload(client, bearer(admin), _jsonl(_record()))
    client.force_login(admin)
    page = client.get(f"/tasks/import/{job_id}/").content.decode()
    assert f'action="/tasks/import/{job_id}/cancel/"' in page and "Cancel import" in page
    swapped = client.post(f"/tasks/import/{job_id}/cancel/", headers={"HX-Request": "true"})
    body = swapped.content.decode()
    assert swapped.status_code == 200
    assert "The import failed: cancelled by ada" in body and "Cancel import" not in body
    assert "every 1s" not in body  # polling stops
    late = client.post(f"/tasks/import/{job_id}/cancel/", headers={"HX-Request": "true"})
    assert late.status_code == 200 and "has already ended (failed)" in late.content.decode()
    plain = client.post(f"/tasks/import/{job_id}/cancel/")
    assert plain.status_code == 409


def test_the_watchdog_fails_an_import_running_past_its_time(
    client: Client, admin: User, bearer: Any, settings: Any
) -> None:
    settings.IMPORT_TIMEOUT_MINUTES = 30
    stuck = _upload(client, bearer(admin), _jsonl(_record()))
    fresh = _upload(client, bearer(admin), _jsonl(_record()))
    now = timezone.now()
    TaskImport.objects.filter(pk=stuck).update(
        status=JobStatus.RUNNING, started_at=now - timedelta(minutes=31)
    )
    TaskImport.objects.filter(pk=fresh).update(
        status=JobStatus.RUNNING, started_at=now - timedelta(minutes=29)
    )
    assert jobs_watchdog.apply().get() == 1
    job = TaskImport.objects.get(pk=stuck)
    assert job.status == JobStatus.FAILED and job.finished_at is not None
    assert job.error == (
        "timed out: still running after 30 minutes (the worker may have died); nothing was imported"
    )
    assert TaskImport.objects.get(pk=fresh).status == JobStatus.RUNNING
    assert task_import_run(import_id=stuck).status == JobStatus.FAILED  # a late redelivery


def test_reading_an_import_runs_the_watchdog_so_no_beat_is_needed(
    client: Client, admin: User, bearer: Any
) -> None:
    job_id = _upload(client, bearer(admin), _jsonl(_record()))
    TaskImport.objects.filter(pk=job_id).update(
        status=JobStatus.RUNNING, started_at=timezone.now() - timedelta(hours=5)
    )
    body = client.get(f"/api/imports/{job_id}", headers=bearer(admin)).json()
    assert body["status"] == "failed" and body["error"].startswith("timed out")
    client.force_login(admin)
    listing = client.get("/tasks/import/").content.decode()
    assert "Failed" in listing


def test_a_worker_past_its_deadline_stops_at_its_next_progress_report(
    client: Client, admin: User, bearer: Any, settings: Any
) -> None:
    settings.IMPORT_TIMEOUT_MINUTES = 0  # every moment is past the deadline
    job_id = _upload(client, bearer(admin), _jsonl(*[_record() for _ in range(150)]))
    job = task_import_run(import_id=job_id)
    assert job.status == JobStatus.FAILED and job.error.startswith("timed out")
    assert not Task.objects.exists()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_file_of_nan_and_lone_surrogates_ends_rejected_on_a_real_worker(
    client: Client, make_user: Callable[..., User], bearer: Any, start_worker: Any
) -> None:
    import time

    headers = bearer(make_user("admin"))
    worker = start_worker("cpu")
    content = _jsonl(_record(provenance={"p": float("nan")}), _record(question="\ud800?"))
    job_id = _upload(client, headers, content)
    deadline = time.monotonic() + 60
    body = {"status": "queued"}
    while body["status"] in ("queued", "running") and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker died"
        time.sleep(0.3)
        body = client.get(f"/api/imports/{job_id}", headers=headers).json()
    assert body["status"] == "rejected"
    assert [r["error"] for r in body["rejected"]] == [
        "provenance.p is NaN: numbers must be finite",
        "question holds a lone surrogate (\\ud800): text must be valid Unicode",
    ]


@pytest.mark.django_db(transaction=True)
def test_a_cancel_while_the_worker_writes_the_tasks_is_refused_at_once(
    client: Client, admin: User, bearer: Any
) -> None:
    """The worker holds the job's row while it writes; a cancel then answers 409 straight away
    instead of waiting for the write, and the job is left to the worker."""
    import threading

    from django.db import connection, transaction

    headers = bearer(admin)
    job_id = _upload(client, headers, _jsonl(_record()))
    TaskImport.objects.filter(pk=job_id).update(status=JobStatus.RUNNING)
    locked, release = threading.Event(), threading.Event()

    def writer() -> None:
        try:
            with transaction.atomic():
                TaskImport.objects.select_for_update().filter(pk=job_id).exists()
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert locked.wait(10)
        response = client.post(f"/api/imports/{job_id}/cancel", headers=headers)
    finally:
        release.set()
        thread.join(10)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"import {job_id} is writing its tasks now and can no longer be cancelled"
    )
    assert TaskImport.objects.get(pk=job_id).status == JobStatus.RUNNING
