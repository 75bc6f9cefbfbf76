from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign
from apps.audit.services import export_run
from tests.audit.conftest import all_nodes

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> Campaign:
    campaign = campaign_of(
        tasks=3,
        annotators_per_task=1,
        task_fields={"provenance": {"generator": "kg", "batch": "b7"}},
    )
    annotator = make_user("annotator", username="ann")
    audit(annotator, campaign, "accept")
    audit(
        annotator,
        campaign,
        "reject",
        all_nodes(capital={"verdict": "wrong", "comment": "answer in the claim"}),
    )
    return campaign


def _lines(response: Any) -> list[dict[str, Any]]:
    body = b"".join(response.streaming_content).decode()
    return [json.loads(line) for line in body.splitlines()]


def test_the_jsonl_export_streams_decided_tasks_with_their_final_trees_and_records(
    client: Client, make_user: Callable[..., User], bearer: Any, decided: Campaign
) -> None:
    response = client.get(
        f"/api/audit/export.jsonl?campaign_id={decided.pk}", headers=bearer(make_user("reviewer"))
    )
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="audit.jsonl"'
    records = _lines(response)
    assert [r["decision"] for r in records] == ["accept", "reject"], "the open task is left out"
    first = records[0]
    assert (first["generator"], first["batch"], first["final_version"]) == ("kg", "b7", 1)
    assert first["tree"]["root"]["id"] == "root"
    [annotation] = records[1]["annotations"]
    assert annotation["annotator"] == "ann"
    assert annotation["verdicts"]["capital"] == {
        "verdict": "wrong",
        "comment": "answer in the claim",
    }
    assert (
        client.get("/api/audit/export.jsonl", headers=bearer(make_user("annotator"))).status_code
        == 403
    )


def test_a_parquet_export_is_built_by_a_job_and_downloaded(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    decided: Campaign,
    django_capture_on_commit_callbacks: Any,
    tmp_path: Path,
) -> None:
    import pyarrow.parquet as pq

    headers = bearer(make_user("reviewer"))
    with django_capture_on_commit_callbacks() as callbacks:
        queued = client.post(
            "/api/audit/exports",
            data={"format": "parquet"},
            content_type="application/json",
            headers=headers,
        )
    assert queued.status_code == 202 and queued.json()["download_url"] is None
    assert len(callbacks) == 1, "the job is enqueued after commit"
    job = export_run(job_id=queued.json()["id"])
    assert (job.status, job.rows) == ("done", 2)
    status = client.get(f"/api/audit/exports/{job.pk}", headers=headers).json()
    download = client.get(status["download_url"], headers=headers)
    assert download.status_code == 200 and download["Content-Disposition"].endswith('.parquet"')
    saved = tmp_path / "download.parquet"
    saved.write_bytes(b"".join(download.streaming_content))
    table = pq.read_table(saved)
    assert table.num_rows == 2
    assert json.loads(table.column("tree")[0].as_py())["root"]["id"] == "root"
    bad = client.post(
        "/api/audit/exports",
        data={"format": "xlsx"},
        content_type="application/json",
        headers=headers,
    )
    assert bad.status_code == 422


def _export_dir() -> Path:
    from apps.audit.services.exports import export_dir

    return export_dir()


def test_a_datasets_export_is_a_zipped_save_to_disk_directory_that_loads_back(
    make_user: Callable[..., User], decided: Campaign, tmp_path: Path
) -> None:
    import datasets

    from apps.audit.services import export_enqueue

    job = export_enqueue(user=make_user("reviewer"), format="hf", campaign_id=decided.pk)
    job = export_run(job_id=job.pk)
    assert job.status == "done", job.error
    with zipfile.ZipFile(_export_dir() / job.filename) as archive:
        archive.extractall(tmp_path / "ds")
    loaded = datasets.load_from_disk(str(tmp_path / "ds"))
    assert loaded.num_rows == 2
    assert sorted(loaded["decision"]) == ["accept", "reject"]
