from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.models import User
from apps.corpus.models import CorpusJob, JobKind
from apps.corpus.services import corpus_bootstrap, corpus_job_run
from apps.jobs.models import JobStatus

pytestmark = pytest.mark.django_db


def test_search_returns_ranked_documents_with_highlight_spans(
    client: Client, make_user: Callable[..., User], bearer, small_corpus: Path
) -> None:
    body = client.get("/api/search?q=capital of Australia&k=2", headers=bearer(make_user("viewer")))
    data = body.json()
    assert data["mode"] == "bm25" and data["modes"] == ["bm25"]
    assert [r["rank"] for r in data["results"]] == [1, 2]
    assert {r["url"] for r in data["results"]} <= {
        "https://en.wikipedia.org/wiki/Canberra",
        "https://www.geonames.org/2172517",
    }
    first = data["results"][0]
    spans = [first["snippet"][a:b].lower() for a, b in first["highlights"]]
    assert "capital" in spans


@pytest.mark.parametrize(
    ("query", "message"),
    [("q=&k=3", "empty"), ("q=x&mode=dense", "not available"), ("q=x&mode=magic", "unknown mode")],
)
def test_bad_searches_are_422_with_a_reason(
    client: Client,
    make_user: Callable[..., User],
    bearer,
    small_corpus: Path,
    query: str,
    message: str,
) -> None:
    response = client.get(f"/api/search?{query}", headers=bearer(make_user("viewer")))
    assert response.status_code == 422
    assert message in response.json()["detail"]


def test_searching_an_empty_corpus_says_so(
    client: Client, make_user: Callable[..., User], bearer, corpus_dir: Path
) -> None:
    response = client.get("/api/search?q=anything", headers=bearer(make_user("viewer")))
    assert response.status_code == 422
    assert "corpus is empty" in response.json()["detail"]


def test_a_document_comes_with_its_licence_and_attribution(
    client: Client, make_user: Callable[..., User], bearer, small_corpus: Path
) -> None:
    headers = bearer(make_user("viewer"))
    doc = client.get("/api/documents?url=https://www.geonames.org/2172517", headers=headers).json()
    assert doc["licence"] == "CC BY 4.0" and "GeoNames" in doc["attribution"]
    missing = client.get("/api/documents?url=https://example.org/none", headers=headers)
    assert missing.status_code == 404


def test_the_corpus_overview_counts_sources_and_licences(
    client: Client, make_user: Callable[..., User], bearer, small_corpus: Path
) -> None:
    data = client.get("/api/corpus", headers=bearer(make_user("viewer"))).json()
    assert data["documents"] == 3
    assert data["sources"]["wikipedia"] == {"documents": 2, "licences": ["CC BY-SA 4.0"]}
    assert data["index"]["bm25"] == "ready" and data["index"]["modes"] == ["bm25"]


def test_only_admins_start_jobs_and_unknown_kinds_are_refused(
    client: Client, make_user: Callable[..., User], bearer, corpus_dir: Path
) -> None:
    viewer = client.post(
        "/api/corpus/jobs",
        data={"kind": "load_wiki"},
        content_type="application/json",
        headers=bearer(make_user("viewer")),
    )
    assert viewer.status_code == 403
    headers = bearer(make_user("admin"))
    bad = client.post(
        "/api/corpus/jobs",
        data={"kind": "load_everything"},
        content_type="application/json",
        headers=headers,
    )
    assert bad.status_code == 422
    first = client.post(
        "/api/corpus/jobs",
        data={"kind": "load_geo"},
        content_type="application/json",
        headers=headers,
    )
    assert first.status_code == 202
    second = client.post(
        "/api/corpus/jobs",
        data={"kind": "load_wiki"},
        content_type="application/json",
        headers=headers,
    )
    assert second.status_code == 409


def test_a_jsonl_load_keeps_good_lines_reports_bad_ones_and_builds_bm25(
    client: Client, make_user: Callable[..., User], bearer, corpus_dir: Path
) -> None:
    lines = [
        json.dumps(
            {
                "url": "https://docs.example.org/a",
                "title": "Alpha",
                "text": "Alpha particles are helium nuclei.",
            }
        ),
        json.dumps({"url": "file:///etc/passwd", "title": "x", "text": "y"}),
        "{broken",
        json.dumps(
            {
                "url": "https://docs.example.org/b",
                "title": "Beta",
                "text": "Beta decay emits electrons.",
            }
        ),
    ]
    headers = bearer(make_user("admin"))
    upload = SimpleUploadedFile("mine.jsonl", "\n".join(lines).encode())
    response = client.post("/api/corpus/uploads", {"file": upload}, headers=headers)
    assert response.status_code == 202
    job = corpus_job_run(job_id=response.json()["id"])
    assert job.status == JobStatus.DONE, job.error
    assert job.report["added"] == 2 and job.report["rejected_lines"] == 2
    assert [e.split(":")[0] for e in job.report["line_errors"]] == ["line 2", "line 3"]
    hits = client.get("/api/search?q=helium nuclei", headers=headers).json()["results"]
    assert hits[0]["url"] == "https://docs.example.org/a"
    # The dense index is queued behind every load.
    assert CorpusJob.objects.filter(kind=JobKind.INDEX_DENSE, status=JobStatus.QUEUED).exists()


def test_bootstrap_queues_the_offline_corpus_once(corpus_dir: Path) -> None:
    jobs = corpus_bootstrap()
    assert [j.kind for j in jobs] == [JobKind.LOAD_WIKI, JobKind.LOAD_GEO, JobKind.LOAD_DOMAINS]
    assert corpus_bootstrap() == []


def test_the_waiting_loads_start_in_the_order_they_were_queued(
    corpus_dir: Path, sent_tasks: list[tuple[str, list[Any]]]
) -> None:
    from apps.corpus import services

    wiki, geo, domains = corpus_bootstrap()
    CorpusJob.objects.filter(pk=wiki.pk).update(status=JobStatus.DONE)
    services._after_load(wiki)
    CorpusJob.objects.filter(pk=geo.pk).update(status=JobStatus.DONE)
    services._after_load(geo)
    task = "apps.corpus.tasks.cpu_corpus_job"
    assert sent_tasks == [(task, [geo.pk]), (task, [domains.pk])]


def test_the_pages_show_sources_results_with_marks_and_documents(
    client: Client, make_user: Callable[..., User], small_corpus: Path
) -> None:
    client.force_login(make_user("viewer"))
    page = client.get("/corpus/").content.decode()
    assert "CC BY-SA 4.0" in page and 'data-testid="documents">3<' in page
    results = client.get("/corpus/search/?q=Kilimanjaro Tanzania").content.decode()
    assert "<mark>Kilimanjaro</mark>" in results
    doc = client.get("/corpus/doc/?url=https://en.wikipedia.org/wiki/Canberra").content.decode()
    assert "Lake Burley Griffin" in doc and "CC BY-SA" in doc


def test_a_snippet_cannot_inject_html(
    client: Client, make_user: Callable[..., User], corpus_dir: Path
) -> None:
    from quest.corpus import Document, corpus_write
    from quest.search.indexing import bm25_build

    evil = Document(
        url="https://x.example/e",
        title="Evil",
        text="<script>alert(1)</script> evil words",
        source="user",
        licence="none",
        topic="",
        fetched_at="2026",
    )
    corpus_write(corpus_dir, [evil])
    bm25_build(corpus_dir)
    client.force_login(make_user("viewer"))
    html = client.get("/corpus/search/?q=evil words").content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html


def test_the_tool_service_answers_quest_shaped_json_from_loopback_when_opened(
    client: Client, small_corpus: Path, settings: Any
) -> None:
    settings.TOOLS_OPEN = True
    response = client.post(
        "/tools/search",
        data={"query": ["capital of Australia", "Kilimanjaro"]},
        content_type="application/json",
        REMOTE_ADDR="127.0.0.1",
    )
    body = response.json()
    assert set(body) == {"text", "metrics", "sources"}
    assert body["text"].count("\n=======\n") == 1
    assert body["text"].startswith("A search for 'capital of Australia' found")
    assert body["metrics"]["queries"] == 2
    assert {
        "url": "https://en.wikipedia.org/wiki/Mount_Kilimanjaro",
        "title": "Mount Kilimanjaro",
    } in body["sources"]


def test_scholar_searches_only_the_scholarly_sources(
    client: Client, small_corpus: Path, settings: Any
) -> None:
    settings.TOOLS_OPEN = True
    body = client.post(
        "/tools/scholar",
        data={"query": "capital of Australia"},
        content_type="application/json",
        REMOTE_ADDR="127.0.0.1",
    ).json()
    assert body["sources"] and all("wikipedia.org" in s["url"] for s in body["sources"])
    assert "1. [Canberra](" in body["text"]


def test_without_a_token_the_tool_service_is_closed_even_to_loopback(
    client: Client, small_corpus: Path
) -> None:
    local = client.post(
        "/tools/search",
        data={"query": "x"},
        content_type="application/json",
        REMOTE_ADDR="127.0.0.1",
    )
    assert local.status_code == 403
    assert "set QUESTWEB_TOOLS_TOKEN" in local.json()["detail"]


def test_the_tool_service_refuses_strangers_wrong_tokens_and_bad_bodies(
    client: Client, small_corpus: Path, settings: Any
) -> None:
    settings.TOOLS_OPEN = True
    stranger = client.post(
        "/tools/search",
        data={"query": "x"},
        content_type="application/json",
        REMOTE_ADDR="203.0.113.9",
    )
    assert stranger.status_code == 403
    bad = client.post(
        "/tools/search", data=b"[1, 2]", content_type="application/json", REMOTE_ADDR="127.0.0.1"
    )
    assert bad.status_code == 400 and "query" in bad.json()["detail"]
    settings.TOOLS_TOKEN = "s3cret"
    for header in ("Bearer wrong", "Bearer s3cret2", "s3cret", ""):
        refused = client.post(
            "/tools/search",
            data={"query": "Canberra"},
            content_type="application/json",
            REMOTE_ADDR="127.0.0.1",
            headers={"Authorization": header},
        )
        assert refused.status_code == 403, header
    with_token = client.post(
        "/tools/search",
        data={"query": "Canberra"},
        content_type="application/json",
        REMOTE_ADDR="203.0.113.9",
        headers={"Authorization": "Bearer s3cret"},
    )
    assert with_token.status_code == 200
    assert client.get("/tools/health").json()["modes"] == ["bm25"]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_loads_a_jsonl_file_and_serves_it(
    client: Client, make_user: Callable[..., User], bearer, corpus_dir: Path, start_worker: Any
) -> None:
    headers = bearer(make_user("admin"))
    worker = start_worker("cpu", QUESTWEB_CORPUS_DIR=str(corpus_dir))
    line = json.dumps(
        {"url": "https://docs.example.org/g", "title": "Gamma", "text": "Gamma rays are photons."}
    )
    upload = SimpleUploadedFile("g.jsonl", line.encode())
    job_id = client.post("/api/corpus/uploads", {"file": upload}, headers=headers).json()["id"]
    deadline, status = time.monotonic() + 90, "queued"
    while status in ("queued", "running") and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker died"
        time.sleep(0.3)
        status = client.get(f"/api/corpus/jobs/{job_id}", headers=headers).json()["status"]
    assert status == "done"
    hits = client.get("/api/search?q=gamma photons", headers=headers).json()["results"]
    assert hits[0]["title"] == "Gamma"


def test_a_job_interrupted_by_a_stopped_worker_is_run_again(corpus_dir: Path) -> None:
    from apps.corpus.services import corpus_recover_interrupted

    stuck = CorpusJob.objects.create(kind=JobKind.INDEX_DENSE, status=JobStatus.RUNNING)
    [again] = corpus_recover_interrupted()
    stuck.refresh_from_db()
    assert stuck.status == JobStatus.FAILED and "interrupted" in stuck.error
    assert (again.kind, again.status) == (JobKind.INDEX_DENSE, JobStatus.QUEUED)


def test_the_domains_load_writes_their_pages_with_provenance_and_indexes_them(
    client: Client,
    make_user: Callable[..., User],
    corpus_dir: Path,
    sent_tasks: list[tuple[str, list[Any]]],  # the dense index after it is not built here
) -> None:
    job = CorpusJob.objects.create(kind=JobKind.LOAD_DOMAINS)
    job = corpus_job_run(job_id=job.pk)
    assert job.status == JobStatus.DONE, job.error
    assert job.report["added"] > 3000
    client.force_login(make_user("viewer"))
    results = client.get("/corpus/search/?q=oxygen discovered 1774").content.decode()
    assert "Oxygen" in results
    page = client.get("/corpus/doc/?url=" + _first_url(results, "Oxygen")).content.decode()
    assert "mendeleev" in page and "MIT" in page


def _first_url(results: str, title: str) -> str:
    import re

    return re.findall(r'href="/corpus/doc/\?url=([^"]+)"[^>]*>[^<]*' + title, results)[0]
