"""The job framework over HTTP: one list of every kind, one get, progress and cancel per job,
each behind the kind's role and its own object access."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db.models import QuerySet
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.roles import Role
from apps.corpus.models import CorpusJob, JobKind
from apps.jobs import registry
from apps.jobs.dispatch import job_end, job_progress, job_start, jobs_expire
from apps.jobs.models import JobStatus
from workers.queues import Queue

pytestmark = pytest.mark.django_db

Bearer = Callable[[User], dict[str, str]]


def _own(kind: registry.JobKind, user: Any) -> QuerySet[Any]:
    return kind.model.objects.filter(created_by=user)


@pytest.fixture
def private_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A kind whose rows only their owner reads, on the corpus table: how a kind with per-user
    jobs declares its object access."""
    spec = registry.JobKind(
        name="private",
        label="private job",
        model=CorpusJob,
        tasks={Queue.CPU: "apps.corpus.tasks.cpu_corpus_job"},
        out=lambda job: {"stage": job.stage},
        view_role=Role.VIEWER,
        cancel_role=Role.VIEWER,
        visible=_own,
        stall=lambda: timedelta(minutes=5),
    )
    monkeypatch.setitem(registry._KINDS, spec.name, spec)
    yield spec.name


def _get(client: Client, url: str, headers: dict[str, str]) -> Any:
    return client.get(url, headers=headers)


def test_a_job_reads_the_same_through_the_framework_and_its_app(
    client: Client, make_user: Callable[..., User], bearer: Bearer
) -> None:
    job = CorpusJob.objects.create(kind=JobKind.INDEX_BM25, total=40)
    job_start("corpus", job.pk)
    job_progress("corpus", job.pk, done=10)
    headers = bearer(make_user("viewer"))
    found = _get(client, f"/api/jobs/corpus/{job.pk}", headers).json()
    app = _get(client, f"/api/corpus/jobs/{job.pk}", headers).json()
    assert found["progress"] == {
        "status": "running",
        "label": "Running",
        "done": 10,
        "total": 40,
        "percent": 25,
    }
    assert found["detail"] == app and found["cancellable"] is True
    progress = _get(client, f"/api/jobs/corpus/{job.pk}/progress", headers).json()
    assert progress["percent"] == 25


def test_the_list_holds_every_kind_the_user_may_read_newest_first(
    client: Client, make_user: Callable[..., User], bearer: Bearer, private_kind: str
) -> None:
    alice, bob = make_user("viewer"), make_user("viewer")
    older = CorpusJob.objects.create(kind=JobKind.LOAD_GEO, created_by=bob)
    newer = CorpusJob.objects.create(kind=JobKind.LOAD_WIKI, created_by=alice)
    listed = _get(client, "/api/jobs?page_size=10", bearer(alice)).json()
    refs = [(r["kind"], r["id"]) for r in listed["results"]]
    # corpus jobs are everyone's; of the private kind, only alice's own.
    assert refs == [
        ("corpus", newer.pk),
        ("private", newer.pk),
        ("corpus", older.pk),
    ]
    assert listed["count"] == 3 and listed["next"] is None
    one_kind = _get(client, "/api/jobs?kind=private", bearer(bob)).json()
    assert [r["id"] for r in one_kind["results"]] == [older.pk]


def test_another_users_job_is_not_found_whatever_is_asked_of_it(
    client: Client, make_user: Callable[..., User], bearer: Bearer, private_kind: str
) -> None:
    owner, stranger = make_user("viewer"), make_user("admin")
    job = CorpusJob.objects.create(kind=JobKind.LOAD_GEO, created_by=owner)
    headers = bearer(stranger)
    for url in (f"/api/jobs/private/{job.pk}", f"/api/jobs/private/{job.pk}/progress"):
        answer = _get(client, url, headers)
        assert answer.status_code == 404 and "no private job" in answer.json()["detail"]
    cancel = client.post(f"/api/jobs/private/{job.pk}/cancel", headers=headers)
    assert cancel.status_code == 404
    assert CorpusJob.objects.get(pk=job.pk).status == JobStatus.QUEUED
    listed = _get(client, "/api/jobs?kind=private", headers).json()
    assert listed["count"] == 0
    # The owner still can.
    mine = client.post(f"/api/jobs/private/{job.pk}/cancel", headers=bearer(owner))
    assert mine.status_code == 200 and mine.json()["progress"]["status"] == "cancelled"


def test_roles_guard_reading_and_cancelling(
    client: Client, make_user: Callable[..., User], bearer: Bearer
) -> None:
    job = CorpusJob.objects.create(kind=JobKind.LOAD_JSONL, payload=b'{"url": "x"}')
    assert client.get(f"/api/jobs/corpus/{job.pk}").status_code == 401
    assert _get(client, "/api/jobs", bearer(make_user())).status_code == 403
    viewer = bearer(make_user("viewer"))
    assert client.post(f"/api/jobs/corpus/{job.pk}/cancel", headers=viewer).status_code == 403
    assert CorpusJob.objects.get(pk=job.pk).status == JobStatus.QUEUED
    admin = bearer(make_user("admin"))
    cancelled = client.post(f"/api/jobs/corpus/{job.pk}/cancel", headers=admin)
    assert cancelled.status_code == 200
    assert cancelled.json()["error"].startswith("cancelled by ")
    assert bytes(CorpusJob.objects.get(pk=job.pk).payload) == b"", "an ended upload is dropped"
    again = client.post(f"/api/jobs/corpus/{job.pk}/cancel", headers=admin)
    assert again.status_code == 409 and "already ended (cancelled)" in again.json()["detail"]


def test_unknown_kinds_and_ids_of_another_kind_are_not_found(
    client: Client, make_user: Callable[..., User], bearer: Bearer, private_kind: str
) -> None:
    owner = make_user("admin")
    headers = bearer(owner)
    job = CorpusJob.objects.create(kind=JobKind.LOAD_GEO)  # no owner: not in the private kind
    assert _get(client, f"/api/jobs/nope/{job.pk}", headers).status_code == 404
    assert _get(client, f"/api/jobs/private/{job.pk}", headers).status_code == 404
    assert _get(client, "/api/jobs?kind=../corpus", headers).status_code == 404
    assert _get(client, f"/api/jobs/corpus/{2**63}", headers).status_code == 422


def test_a_running_corpus_job_cannot_be_cancelled_part_way(
    client: Client, make_user: Callable[..., User], bearer: Bearer
) -> None:
    job = CorpusJob.objects.create(kind=JobKind.INDEX_DENSE)
    job_start("corpus", job.pk)
    answer = client.post(f"/api/jobs/corpus/{job.pk}/cancel", headers=bearer(make_user("admin")))
    assert answer.status_code == 409 and "cannot stop part-way" in answer.json()["detail"]


def test_a_cancelled_job_refuses_its_workers_progress_and_end(private_kind: str) -> None:
    job = CorpusJob.objects.create(kind=JobKind.LOAD_GEO)
    assert job_start(private_kind, job.pk) and not job_start(private_kind, job.pk)
    assert job_end(private_kind, job.pk, JobStatus.CANCELLED)
    assert not job_progress(private_kind, job.pk, done=3)
    assert not job_end(private_kind, job.pk, JobStatus.DONE)
    assert CorpusJob.objects.get(pk=job.pk).status == JobStatus.CANCELLED


def test_the_watchdog_ends_only_jobs_silent_for_longer_than_their_kind_allows(
    private_kind: str,
) -> None:
    now = timezone.now()
    silent, busy = (CorpusJob.objects.create(kind=JobKind.LOAD_GEO) for _ in range(2))
    for job in (silent, busy):
        job_start(private_kind, job.pk)
    CorpusJob.objects.filter(pk=silent.pk).update(active_at=now - timedelta(minutes=6))
    assert jobs_expire(kind=private_kind, now=now) == 1
    silent.refresh_from_db()
    busy.refresh_from_db()
    assert silent.status == JobStatus.FAILED and "stopped reporting" in silent.error
    assert busy.status == JobStatus.RUNNING
    # The corpus kind sets no limit: its own rows are never expired.
    assert jobs_expire(kind="corpus", now=now + timedelta(days=1)) == 0
