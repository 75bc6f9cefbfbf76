"""/api/synthesis: every operation's status codes, what other people may do, unknown ids, and the
export read back by the task import."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign
from apps.rubrics.imports import task_import_run
from apps.rubrics.models import Task
from apps.synthesis.models import SynthesisBatch, SynthesisCandidate
from tests.factories import SynthesisBatchFactory

pytestmark = pytest.mark.django_db


def _post(client: Client, path: str, body: Any, headers: dict[str, str]) -> Any:
    data = "" if body is None else json.dumps(body)
    return client.post(path, data, content_type="application/json", headers=headers)


def test_an_admin_queues_a_batch_and_anyone_with_a_role_can_follow_it(
    client: Client, admin: User, make_user: Callable[..., User], bearer: Any
) -> None:
    spec = {"count": 12, "seed": 9, "categories": {"General Info.": 2, "Shopping": 1},
            "classes": {"C1": 1}, "baseline": False}  # fmt: skip
    created = _post(client, "/api/synthesis/batches", spec, bearer(admin))
    assert created.status_code == 202, created.content
    body = created.json()
    assert body["status"] == "queued" and body["created_by"] == "ada"
    defaults = {"generator": "kg", "open_ended": False, "proposer_turns": 30}
    defaults["until_accepted"] = False
    assert body["spec"] == {**defaults, **spec}
    assert (body["total"], body["proposed"], body["accepted"]) == (12, 0, 0)
    assert body["url"] == f"/synthesis/{body['id']}/"

    viewer = bearer(make_user("viewer"))
    listed = client.get("/api/synthesis/batches?page_size=1", headers=viewer)
    assert listed.status_code == 200
    assert (listed.json()["count"], listed.json()["results"][0]["id"]) == (1, body["id"])
    one = client.get(f"/api/synthesis/batches/{body['id']}", headers=viewer)
    assert one.status_code == 200 and one.json() == body


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        ({"count": 0}, 422, "request is not valid"),
        ({"count": 20_001}, 422, "request is not valid"),
        ({"seed": 2**31}, 422, "request is not valid"),
        ({"classes": {"C1": -1}}, 422, "request is not valid"),
        ({"generator": "gpt"}, 422, "request is not valid"),
        ({"categories": {"Knitting": 1}}, 422, "categories: unknown Knitting"),
        (
            {"categories": {"Music": 1, "General Info.": 1}},
            422,
            "categories: the kg generator writes no tasks for Music (it writes General Info., "
            "Legal & Government Services, Technology & Science, Research & Academia, Travel & "
            "Accommodation, Shopping, Books & Reading, Education & Learning)",
        ),
        ({"classes": {"C1": 0}}, 422, "classes: at least one weight must be above 0"),
    ],
)
def test_a_bad_spec_is_a_422_that_says_why_and_queues_nothing(
    client: Client, admin: User, bearer: Any, body: dict[str, Any], status: int, detail: str
) -> None:
    response = _post(client, "/api/synthesis/batches", body, bearer(admin))
    assert response.status_code == status
    assert response.json()["detail"] == detail
    assert not SynthesisBatch.objects.exists()


def test_people_without_the_admin_role_cannot_start_cancel_or_decide(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    bearer: Any,
    rejected_candidate: SynthesisCandidate,
) -> None:
    batch = SynthesisBatchFactory(status="running", created_by=admin)
    for role in ("viewer", "annotator", "reviewer"):
        headers = bearer(make_user(role))
        for path, body in (
            ("/api/synthesis/batches", {"count": 1}),
            (f"/api/synthesis/batches/{batch.pk}/cancel", None),
            (f"/api/synthesis/candidates/{rejected_candidate.pk}/accept", None),
            (f"/api/synthesis/batches/{rejected_candidate.batch_id}/campaign", None),
        ):
            response = _post(client, path, body, headers)
            assert response.status_code == 403, (role, path)
            assert response.json()["detail"] == "this needs the admin role"
    assert client.get("/api/synthesis/batches").status_code == 401
    assert SynthesisBatch.objects.get(pk=batch.pk).status == "running"


def test_another_admin_may_cancel_a_batch_once(
    client: Client, admin: User, make_user: Callable[..., User], bearer: Any
) -> None:
    batch = SynthesisBatchFactory(status="queued", created_by=admin)
    other = make_user("admin", username="grace")
    cancelled = _post(client, f"/api/synthesis/batches/{batch.pk}/cancel", None, bearer(other))
    assert cancelled.status_code == 200
    assert (cancelled.json()["status"], cancelled.json()["error"]) == (
        "cancelled",
        "cancelled by grace",
    )
    again = _post(client, f"/api/synthesis/batches/{batch.pk}/cancel", None, bearer(admin))
    assert again.status_code == 409
    assert "has already ended (cancelled)" in again.json()["detail"]


def test_unknown_batches_and_candidates_are_404s(client: Client, admin: User, bearer: Any) -> None:
    headers = bearer(admin)
    for path in (
        "/api/synthesis/batches/999999",
        "/api/synthesis/batches/999999/candidates",
        "/api/synthesis/batches/999999/export",
        "/api/synthesis/candidates/999999",
    ):
        response = client.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.json()["detail"].startswith("no synthesis")
    for path in (
        "/api/synthesis/batches/999999/cancel",
        "/api/synthesis/batches/999999/campaign",
        "/api/synthesis/candidates/999999/accept",
        "/api/synthesis/candidates/999999/reject",
    ):
        assert _post(client, path, None, headers).status_code == 404, path
    assert client.get("/api/synthesis/batches/0", headers=headers).status_code == 422


def test_a_finished_batchs_candidates_are_listed_filtered_and_read_in_full(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    bearer: Any,
    run_batch: Callable[..., SynthesisBatch],
) -> None:
    batch = run_batch(admin, count=4, seed=3)
    headers = bearer(make_user("viewer"))
    url = f"/api/synthesis/batches/{batch.pk}/candidates"
    page = client.get(f"{url}?page_size=3", headers=headers).json()
    assert (page["count"], page["pages"], len(page["results"])) == (4, 2, 3)
    assert [c["index"] for c in page["results"]] == [0, 1, 2]
    assert "record" not in page["results"][0]
    accepted = client.get(f"{url}?accepted=true", headers=headers).json()
    assert accepted["count"] == batch.accepted
    assert all(c["accepted"] and c["task_id"] for c in accepted["results"])
    rejected = client.get(f"{url}?accepted=false", headers=headers).json()
    assert rejected["count"] == 4 - batch.accepted
    for stage in {c["rejected_at"] for c in rejected["results"]}:
        at = client.get(f"{url}?rejected_at={stage}", headers=headers).json()
        assert at["count"] and all(c["rejected_at"] == stage for c in at["results"])
    assert client.get(f"{url}?rejected_at=typing", headers=headers).status_code == 422

    first = accepted["results"][0]
    full = client.get(f"/api/synthesis/candidates/{first['id']}", headers=headers).json()
    assert full["question"] == first["question"] and full["decision"] == "auto"
    assert [s["name"] for s in full["stages"]][:2] == ["schema", "complexity"]
    assert full["record"]["rubric"]["root"]["id"] == "root"
    assert full["url"] == f"/synthesis/candidates/{first['id']}/"


def test_hand_decisions_over_rest(
    client: Client, admin: User, bearer: Any, rejected_candidate: SynthesisCandidate
) -> None:
    headers = bearer(admin)
    url = f"/api/synthesis/candidates/{rejected_candidate.pk}"
    accepted = _post(client, f"{url}/accept", {"note": "worth auditing"}, headers)
    assert accepted.status_code == 200, accepted.content
    body = accepted.json()
    assert (body["accepted"], body["decision"], body["decided_by"]) == (
        True,
        "accepted_by_hand",
        "ada",
    )
    assert body["decision_note"] == "worth auditing" and body["task_id"]
    assert _post(client, f"{url}/accept", None, headers).status_code == 409
    rejected = _post(client, f"{url}/reject", None, headers)
    assert rejected.status_code == 200
    assert (rejected.json()["decision"], rejected.json()["task_id"]) == ("rejected_by_hand", None)
    assert not Task.objects.exists()
    assert _post(client, f"{url}/reject", None, headers).status_code == 409
    too_long = _post(client, f"{url}/accept", {"note": "x" * 501}, headers)
    assert too_long.status_code == 422


def test_a_campaign_and_an_export_from_a_finished_batch(
    client: Client, admin: User, bearer: Any, run_batch: Callable[..., SynthesisBatch]
) -> None:
    batch = run_batch(admin, count=3, seed=5)
    headers = bearer(admin)
    created = _post(
        client,
        f"/api/synthesis/batches/{batch.pk}/campaign",
        {"name": "Geography round", "annotators_per_task": 1},
        headers,
    )
    assert created.status_code == 201, created.content
    assert (created.json()["name"], created.json()["total"]) == ("Geography round", batch.accepted)
    assert Campaign.objects.get().filters == {
        "batch": f"synthesis-{batch.pk}",
        "audit_state": "unaudited",
    }

    export = client.get(f"/api/synthesis/batches/{batch.pk}/export", headers=headers)
    assert export.status_code == 200
    assert export["Content-Type"] == "application/x-ndjson"
    assert export["Content-Disposition"].endswith(f'filename="synthesis-batch-{batch.pk}.jsonl"')
    payload = b"".join(export.streaming_content)
    lines = [json.loads(line) for line in payload.splitlines()]
    accepted = list(batch.candidates.filter(accepted=True).order_by("index"))
    assert [line["question"] for line in lines] == [c.question for c in accepted]
    assert all(line["provenance"]["batch"] == f"synthesis-{batch.pk}" for line in lines)

    # The export is an import file: read back, it makes the same tasks again.
    upload = _upload(client, headers, payload)
    job = task_import_run(import_id=upload)
    assert (job.status, job.imported) == ("done", len(accepted))
    copies = Task.objects.filter(provenance__batch=f"synthesis-{batch.pk}").exclude(
        pk__in=[c.task_id for c in accepted]
    )
    assert sorted(t.question for t in copies) == sorted(c.question for c in accepted)


def _upload(client: Client, headers: dict[str, str], payload: bytes) -> int:
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/api/imports", {"file": SimpleUploadedFile("batch.jsonl", payload)}, headers=headers
    )
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


def test_a_campaign_from_a_running_batch_is_a_409(client: Client, admin: User, bearer: Any) -> None:
    batch = SynthesisBatchFactory(status="running", created_by=admin)
    response = _post(client, f"/api/synthesis/batches/{batch.pk}/campaign", None, bearer(admin))
    assert response.status_code == 409
    assert "is still running" in response.json()["detail"]
