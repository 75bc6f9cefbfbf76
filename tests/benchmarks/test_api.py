"""Benchmark runs over REST: admins start and cancel, every role reads (training's rule), a
file the run could not use is a 422 naming the field (and a bad line of it its line and
field), rows page in the list envelope, and two runs compare only on one benchmark's same
questions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.models import User
from apps.benchmarks import tasks
from apps.training.models import TrainingJob
from tests.benchmarks.conftest import BCP, NQ

pytestmark = pytest.mark.django_db(transaction=True)


def post(client: Client, path: str, body: Any, headers: dict[str, str]) -> Any:
    return client.post(
        f"/api/benchmarks/{path}", json.dumps(body), content_type="application/json",
        headers=headers,
    )  # fmt: skip


def finished(client: Client, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    made = post(client, "runs", body, headers)
    assert made.status_code == 202, made.content
    tasks.cpu_benchmark_run(made.json()["id"])
    read: dict[str, Any] = client.get(
        f"/api/benchmarks/runs/{made.json()['id']}", headers=headers
    ).json()
    return read


def test_an_admin_starts_a_run_and_a_viewer_reads_it_but_cannot_start_or_cancel(
    client: Client,
    admin: User,
    viewer: User,
    bearer: Callable[[User], dict[str, str]],
    sent_tasks: list[Any],
) -> None:
    as_viewer, as_admin = bearer(viewer), bearer(admin)
    assert post(client, "runs", BCP, as_viewer).status_code == 403
    made = post(client, "runs", BCP, as_admin)
    assert made.status_code == 202, made.content
    run = made.json()
    assert run["status"] == "queued" and run["queue"] == "cpu" and run["total"] == 4
    assert run["data"] == "<benchmarks>/browsecomp_plus_queries.jsonl"
    assert run["url"] == f"/benchmarks/{run['id']}/"
    read = client.get(f"/api/benchmarks/runs/{run['id']}", headers=as_viewer)
    assert read.status_code == 200 and read.json()["status"] == "queued"
    listed = client.get("/api/benchmarks/runs", headers=as_viewer).json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == run["id"]
    assert post(client, f"runs/{run['id']}/cancel", {}, as_viewer).status_code == 403
    cancelled = post(client, f"runs/{run['id']}/cancel", {}, as_admin)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert post(client, f"runs/{run['id']}/cancel", {}, as_admin).status_code == 409
    assert client.get("/api/benchmarks/runs/999999", headers=as_viewer).status_code == 404
    assert client.get("/api/jobs?kind=benchmark", headers=as_viewer).json()["count"] == 1


def test_a_finished_run_reads_with_intervals_published_numbers_and_paged_rows(
    client: Client, admin: User, viewer: User, bearer: Callable[[User], dict[str, str]],
    sent_tasks: list[Any], bench_dir: Path,
) -> None:  # fmt: skip
    run = finished(client, bearer(admin), BCP)
    assert run["status"] == "done" and run["done"] == 4
    assert run["headline"]["value"] == 0.5
    assert run["headline"]["label"] == "exact match, not comparable to judged accuracy"
    low, high = run["metrics"]["f1"]["ci95"]
    assert low <= 0.5 <= high
    published = run["published"]["results"]
    assert [p["value"] for p in published] == ["3.86 %", "70.1 %"]
    assert all(p["source"].startswith("Chen et al., BrowseComp-Plus") for p in published)
    assert any(
        note.startswith("judge: this run used none") for note in published[0]["setup_differs"]
    )
    assert str(bench_dir) not in json.dumps(run)
    rows = client.get(f"/api/benchmarks/runs/{run['id']}/rows?page_size=3", headers=bearer(viewer))
    page = rows.json()
    assert (page["count"], page["pages"], len(page["results"])) == (4, 2, 3)
    first = page["results"][0]
    assert (first["id"], first["answer"], first["gold"], first["verdict"]) == (
        "q1", "Marie Curie", ["Marie Curie"], "correct",
    )  # fmt: skip
    assert first["search_calls"] == 3 and first["cited_docs"] == ["101", "103"]
    assert page["next"].endswith("page=2") and page["previous"] is None
    after = client.get(f"/api/benchmarks/runs/{run['id']}/rows?page=3", headers=bearer(viewer))
    assert after.status_code == 404


def test_a_bad_file_is_a_422_naming_its_line_and_field_and_a_path_outside_is_refused(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]], bench_dir: Path,
) -> None:  # fmt: skip
    (bench_dir / "bad.jsonl").write_text('{"query_id": "1"}\n')
    refused = post(client, "runs", {**BCP, "data": "bad.jsonl"}, bearer(admin))
    assert refused.status_code == 422
    assert refused.json()["detail"] == (
        "data: <benchmarks>/bad.jsonl line 1, field 'query': is missing"
    )
    outside = post(client, "runs", {**BCP, "data": "/etc/hostname"}, bearer(admin))
    assert outside.status_code == 422 and outside.json()["detail"].startswith("data: ")
    unknown = post(client, "runs", {**BCP, "benchmark": "hle"}, bearer(admin))
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["loc"][-1] == "benchmark"
    assert client.get("/api/benchmarks/runs", headers=bearer(admin)).json()["count"] == 0


def test_an_uploaded_file_is_kept_in_the_benchmarks_directory_and_runs(
    client: Client, admin: User, viewer: User, bearer: Callable[[User], dict[str, str]],
    bench_dir: Path, sent_tasks: list[Any],
) -> None:  # fmt: skip
    def upload(user: User, name: str) -> Any:
        with (bench_dir / name).open("rb") as handle:
            return client.post("/api/benchmarks/files", {"file": handle}, headers=bearer(user))

    assert upload(viewer, "nq_responses.jsonl").status_code == 403
    stored = upload(admin, "nq_responses.jsonl")
    assert stored.status_code == 201, stored.content
    path = stored.json()["path"]
    assert path.startswith("<benchmarks>/uploads/") and path.endswith("-nq_responses.jsonl")
    run = finished(client, bearer(admin), {**NQ, "responses": path})
    assert run["status"] == "done" and run["metrics"]["exact_match"]["value"] == 0.25
    # A name longer than the file system allows is cut, keeping its extension.
    long = SimpleUploadedFile("n" * 300 + ".jsonl", b'{"id": "test_0", "response": "x"}\n')
    kept = client.post("/api/benchmarks/files", {"file": long}, headers=bearer(admin))
    assert kept.status_code == 201, kept.content
    assert kept.json()["path"].endswith("-" + "n" * 114 + ".jsonl")


def test_two_runs_compare_by_the_paired_difference_and_only_on_the_same_questions(
    client: Client, admin: User, viewer: User, bearer: Callable[[User], dict[str, str]],
    bench_dir: Path, sent_tasks: list[Any],
) -> None:  # fmt: skip
    answers = ["Shakespeare", "Pacific Ocean", "yes", "Paris"]
    (bench_dir / "better.jsonl").write_text("".join(
        json.dumps({"id": f"test_{i}", "response": answer}) + "\n"
        for i, answer in enumerate(answers)
    ))  # fmt: skip
    a = finished(client, bearer(admin), {**NQ, "responses": "better.jsonl"})
    b = finished(client, bearer(admin), NQ)
    fewer = finished(client, bearer(admin), {**NQ, "limit": 3})
    other = finished(client, bearer(admin), BCP)
    as_viewer = bearer(viewer)
    compared = client.get(f"/api/benchmarks/compare?a={a['id']}&b={b['id']}", headers=as_viewer)
    assert compared.status_code == 200, compared.content
    difference = compared.json()["difference"]
    # EM a: 1, 1, 1, 0; b: 1, 0, 0, 0: mean 0.5, two wins, two ties.
    assert difference["value"] == 0.5 and difference["n"] == 4
    assert (difference["wins"], difference["losses"], difference["ties"]) == (2, 0, 2)
    assert difference["metric"] == "exact match (the metric Search-R1 reports)"  # NQ
    across = client.get(f"/api/benchmarks/compare?a={a['id']}&b={other['id']}", headers=as_viewer)
    assert across.status_code == 422 and "only runs of one benchmark" in across.json()["detail"]
    partial = client.get(f"/api/benchmarks/compare?a={a['id']}&b={fewer['id']}", headers=as_viewer)
    assert partial.status_code == 422
    assert partial.json()["detail"].startswith("b: the runs answered different questions (1 only")


def test_a_checkpoint_of_an_ended_training_job_runs_on_the_gpu_and_shows_no_server_path(
    client: Client, admin: User, viewer: User, bearer: Callable[[User], dict[str, str]],
    settings: Any, tmp_path: Path, sent_tasks: list[Any],
) -> None:  # fmt: skip
    settings.TRAINING_DIR = tmp_path / "training"
    output = settings.TRAINING_DIR / "runs" / "7"
    (output / "final").mkdir(parents=True)
    (output / "final" / "config.json").write_text("{}")
    TrainingJob.objects.create(
        name="grpo", kind="grpo", config={"output_dir": str(output)}, status="done",
        created_by=admin,
    )  # fmt: skip
    made = post(client, "runs", {**BCP, "responses": "", "model": "runs/7/final"}, bearer(admin))
    assert made.status_code == 202, made.content
    run = made.json()
    assert (run["queue"], run["model"]) == ("gpu", "runs/7/final")
    assert sent_tasks == [("apps.benchmarks.tasks.gpu_benchmark_run", [run["id"]])]
    client.force_login(viewer)
    page = client.get("/benchmarks/")
    assert "runs/7/final" in page.text and str(tmp_path) not in page.text


def test_rest_refuses_a_model_with_saved_responses_and_a_run_compared_with_itself(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]], sent_tasks: list[Any]
) -> None:
    as_admin = bearer(admin)
    both = post(client, "runs", {**BCP, "model": "scripted"}, as_admin)
    assert both.status_code == 422
    assert both.json()["detail"] == (
        "model, responses: choose only one of a model, an endpoint, or saved responses"
    )
    endpoint = {**BCP, "responses": "", "endpoint": "http://127.0.0.1:9/v1|qwen"}
    made = post(client, "runs", endpoint, as_admin)
    assert made.status_code == 202 and made.json()["model"] == "http://127.0.0.1:9/v1|qwen"
    run_id = made.json()["id"]
    itself = client.get(f"/api/benchmarks/compare?a={run_id}&b={run_id}", headers=as_admin)
    assert itself.status_code == 422
    assert itself.json()["detail"] == f"b: choose two different runs: run {run_id} is both a and b"


def test_a_compared_difference_says_why_it_compares_exact_match(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]], sent_tasks: list[Any]
) -> None:
    a, b = finished(client, bearer(admin), NQ), finished(client, bearer(admin), NQ)
    compared = client.get(f"/api/benchmarks/compare?a={a['id']}&b={b['id']}", headers=bearer(admin))
    difference = compared.json()["difference"]
    assert difference["metric"] == "exact match (the metric Search-R1 reports)"  # NQ
    assert difference["metric_reason"] == "no judge graded either run"
