"""Probes: a task's reference answer and answers written to beat its tree, scored with the real
reward against the real test corpus, through the services, the REST API, the pages and a real
Celery worker."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.common.errors import Forbidden, Invalid, NotFound
from apps.jobs.models import JobStatus
from apps.rubrics.models import ProbeRun, Task
from apps.rubrics.services import (
    probe_enqueue,
    probe_run,
    task_prepare,
    tasks_write,
    version_create,
)
from tests.rubrics.conftest import judged_tree, small_tree

pytestmark = pytest.mark.django_db

CANBERRA = "https://en.wikipedia.org/wiki/Canberra"
QUESTION = "Which city is the capital of Australia, and in which year was it officially named?"
REFERENCE = (
    "The capital of Australia is Canberra, officially named in 1913 [1].\n\n"
    f"References\n[1] {CANBERRA}"
)
JSON = "application/json"
NO_JUDGE = "No judge model is configured (QUESTWEB_JUDGE_MODEL)"


def sound_tree() -> dict[str, Any]:
    """Names the city (critical), the year, and a cited page that states the year."""
    tree = small_tree(QUESTION)
    tree["root"]["children"] = [
        {"id": "capital", "description": "Names Canberra", "critical": True,
         "check": {"kind": "mentions", "value": "Canberra"}},
        {"id": "named", "description": "Officially named in 1913", "critical": False,
         "check": {"kind": "date", "value": "1913"}},
        {"id": "sourced", "description": "A cited page states 1913", "critical": False,
         "check": {"kind": "source_supports", "value": "1913"}},
    ]  # fmt: skip
    return tree


def citation_only_tree() -> dict[str, Any]:
    """Rewards any answer that cites a URL: gibberish with a link earns it."""
    tree = small_tree(QUESTION)
    tree["root"]["children"] = [tree["root"]["children"][1]]
    return tree


def _task(tree: dict[str, Any] | None = None, **fields: Any) -> Task:
    record = {"question": QUESTION, "rubric": tree or sound_tree(), **fields}
    [task] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    return task


def _probed(user: User, task: Task, **options: Any) -> ProbeRun:
    return probe_run(run_id=probe_enqueue(user=user, task_id=task.pk).pk, **options)


def test_annotators_queue_a_probe_after_commit_and_viewers_cannot(
    make_user: Callable[..., User], django_capture_on_commit_callbacks: Any
) -> None:
    task = _task(reference_answer=REFERENCE)
    annotator = make_user("annotator")
    with pytest.raises(Forbidden, match="annotator"):
        probe_enqueue(user=make_user("viewer"), task_id=task.pk)
    with django_capture_on_commit_callbacks() as callbacks:
        run = probe_enqueue(user=annotator, task_id=task.pk)
    assert len(callbacks) == 1, "the worker is asked only after the run is committed"
    assert (run.status, run.verdict, run.version, run.created_by) == (
        JobStatus.QUEUED,
        "",
        task.current_version,
        annotator,
    )


def test_a_probe_needs_a_known_task_and_version_and_an_answer_to_probe_with(
    make_user: Callable[..., User],
) -> None:
    annotator = make_user("annotator")
    bare = _task()
    with pytest.raises(Invalid, match="no reference answer or solution to probe with"):
        probe_enqueue(user=annotator, task_id=bare.pk)
    with pytest.raises(NotFound, match="no task 999999"):
        probe_enqueue(user=annotator, task_id=999999)
    task = _task(reference_answer=REFERENCE)
    with pytest.raises(NotFound, match=f"task {task.pk} has no version 7"):
        probe_enqueue(user=annotator, task_id=task.pk, version=7)
    solution_only = _task(solution={"capital": {"description": "Canberra, named in 1913",
                                                "reference_urls": [CANBERRA]}})  # fmt: skip
    assert probe_enqueue(user=annotator, task_id=solution_only.pk).status == JobStatus.QUEUED


def test_a_reference_answer_longer_than_the_limit_is_refused(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    record = {"question": QUESTION, "rubric": sound_tree(), "reference_answer": "x" * 50_001}
    response = client.post(
        "/api/tasks", json.dumps(record), content_type=JSON,
        headers=bearer(make_user("admin")),
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json()["detail"] == "reference_answer is longer than 50,000 characters"
    with pytest.raises(Invalid, match="reference_answer must be a string"):
        task_prepare({**record, "reference_answer": ["not", "text"]})


def test_a_tree_whose_reference_answer_cites_a_corpus_page_is_sound(
    make_user: Callable[..., User], small_corpus: Path, settings: Any
) -> None:
    settings.LLM_JUDGE_MODEL = ""
    run = _probed(make_user("annotator"), _task(reference_answer=REFERENCE))
    assert (run.status, run.verdict, run.error, run.judge) == ("done", "sound", "", "")
    assert run.finished_at is not None
    assert run.report["reasons"] == [] and run.report["untested"] == []
    probes = {p["name"]: p for p in run.report["probes"]}
    assert probes["solution"]["reward"] == 1.0 and probes["solution"]["answer"] == REFERENCE
    adversarial = [p for p in probes.values() if p["role"] == "adversarial"]
    assert len(adversarial) == 11
    assert all(p["reward"] <= p["limit"] and not p["over_limit"] for p in adversarial)
    # The corpus supplies the distractors: the wrong answer names another page's subject.
    assert "Canberra" not in probes["wrong_entity"]["answer"].split("[1]")[0]


def test_a_tree_that_only_asks_for_a_citation_is_unsound(
    make_user: Callable[..., User], small_corpus: Path
) -> None:
    run = _probed(make_user("annotator"), _task(citation_only_tree(), reference_answer=REFERENCE))
    assert (run.status, run.verdict) == ("done", "unsound")
    gibberish = next(p for p in run.report["probes"] if p["name"] == "cited_gibberish")
    assert gibberish["over_limit"] is True and gibberish["reward"] > gibberish["limit"]
    assert any(reason.startswith("cited_gibberish earns") for reason in run.report["reasons"])


def test_a_quest_tree_of_judge_leaves_stays_undecided_without_a_judge(
    make_user: Callable[..., User], quest_task: Callable[[str], dict[str, Any]], settings: Any
) -> None:
    settings.LLM_JUDGE_MODEL = ""
    record = {**quest_task("yu_lineage"), "reference_answer": "Yu Su studied under [someone]."}
    [task] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    run = _probed(make_user("annotator"), task)
    assert (run.status, run.verdict, run.judge) == ("done", "undecided", "")
    assert run.report["reasons"][0].startswith("undecided leaves in solution")


def test_a_probe_that_cannot_run_fails_with_a_readable_error(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.LLM_JUDGE_MODEL = "no-such-model"  # configured, but no endpoint serves it
    settings.LLM_ENDPOINTS = ""
    run = _probed(make_user("annotator"), _task(reference_answer=REFERENCE))
    assert (run.status, run.verdict, run.report) == ("failed", "", {})
    assert run.error.startswith("the judge model 'no-such-model' cannot be used")
    assert run.finished_at is not None
    assert probe_run(run_id=run.pk).finished_at == run.finished_at  # a redelivery changes nothing


def test_an_older_version_can_be_probed_and_keeps_its_own_runs(
    make_user: Callable[..., User], small_corpus: Path
) -> None:
    annotator = make_user("annotator")
    task = _task(citation_only_tree(), reference_answer=REFERENCE)
    version_create(user=annotator, task_id=task.pk, tree=sound_tree(), note="checks the facts")
    old = probe_run(run_id=probe_enqueue(user=annotator, task_id=task.pk, version=1).pk)
    new = _probed(annotator, task)
    assert (old.version.number, old.verdict) == (1, "unsound")
    assert (new.version.number, new.verdict) == (2, "sound")


def test_the_probe_api_queues_lists_and_reports_runs(
    client: Client, make_user: Callable[..., User], bearer: Any, small_corpus: Path
) -> None:
    task, other = _task(reference_answer=REFERENCE), _task(reference_answer=REFERENCE)
    annotator, viewer = bearer(make_user("annotator")), bearer(make_user("viewer"))
    assert client.get(f"/api/tasks/{task.pk}", headers=viewer).json()["reference_answer"] == (
        REFERENCE
    )
    # No body at all: the current version.
    queued = client.generic("POST", f"/api/tasks/{task.pk}/probes", b"", headers=annotator)
    assert queued.status_code == 202, queued.content
    body = queued.json()
    assert (body["status"], body["verdict"], body["version"], body["task_id"]) == (
        "queued", "", 1, task.pk,
    )  # fmt: skip
    chosen = client.post(f"/api/tasks/{task.pk}/probes", {"version": 1},
                         content_type=JSON, headers=annotator)  # fmt: skip
    assert chosen.status_code == 202 and chosen.json()["version"] == 1
    missing_version = client.post(f"/api/tasks/{task.pk}/probes", {"version": 5},
                                  content_type=JSON, headers=annotator)  # fmt: skip
    assert missing_version.status_code == 404
    assert missing_version.json()["detail"] == f"task {task.pk} has no version 5"
    refused = client.post(f"/api/tasks/{task.pk}/probes", content_type=JSON, headers=viewer)
    assert refused.status_code == 403 and "annotator" in refused.json()["detail"]
    unknown = client.post("/api/tasks/999999/probes", content_type=JSON, headers=annotator)
    assert unknown.status_code == 404 and unknown.json()["detail"] == "no task 999999"

    probe_run(run_id=body["id"])
    done = client.get(f"/api/probes/{body['id']}", headers=viewer)
    assert done.status_code == 200
    assert (done.json()["status"], done.json()["verdict"]) == ("done", "sound")
    assert done.json()["report"]["limits"]["solution_min"] == 0.95
    listed = client.get(f"/api/tasks/{task.pk}/probes", headers=viewer).json()["results"]
    assert [r["id"] for r in listed] == [chosen.json()["id"], body["id"]]
    assert "report" not in listed[0]
    assert client.get(f"/api/tasks/{other.pk}/probes", headers=viewer).json()["count"] == 0
    gone = client.get("/api/probes/999999", headers=viewer)
    assert gone.status_code == 404 and gone.json()["detail"] == "no probe run 999999"
    assert client.get("/api/tasks/999999/probes", headers=viewer).status_code == 404


def test_the_task_page_shows_the_reference_answer_escaped_the_badge_and_the_probe_button(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.LLM_JUDGE_MODEL = ""
    task = _task(reference_answer="Canberra <script>alert(1)</script> [1]\n\n[1] " + CANBERRA)
    client.force_login(make_user("annotator"))
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert 'data-testid="reference-answer"' in page
    assert 'data-state="none"' in page and "not probed" in page
    assert 'data-testid="probe-button"' in page
    assert NO_JUDGE not in page  # every leaf is deterministic: no judge is needed
    judged = _task(judged_tree(), reference_answer=REFERENCE)
    judged_page = client.get(f"/tasks/{judged.pk}/").content.decode()
    assert judged_page.count(NO_JUDGE) == 2  # the probe panel and the try-an-answer area
    client.force_login(make_user("viewer"))
    seen = client.get(f"/tasks/{task.pk}/").content.decode()
    assert "not probed" in seen and 'data-testid="probe-button"' not in seen
    settings.LLM_JUDGE_MODEL = "some-judge"
    assert NO_JUDGE not in client.get(f"/tasks/{judged.pk}/").content.decode()


def test_pressing_probe_shows_probing_and_the_panel_polls_until_the_verdict(
    client: Client, make_user: Callable[..., User], small_corpus: Path
) -> None:
    task = _task(reference_answer=REFERENCE)
    htmx = {"HX-Request": "true"}
    client.force_login(make_user("viewer"))
    assert client.post(f"/tasks/{task.pk}/probe/", headers=htmx).status_code == 403
    client.force_login(make_user("annotator"))
    pressed = client.post(f"/tasks/{task.pk}/probe/", {"part": "panel"}, headers=htmx)
    fragment = pressed.content.decode()
    assert pressed.status_code == 200 and "<html" not in fragment
    assert "probing…" in fragment and 'hx-trigger="every 2s"' in fragment
    assert 'data-testid="probe-button" disabled' in fragment
    run = ProbeRun.objects.get()
    probe_run(run_id=run.pk)
    url = f"/tasks/{task.pk}/probes/{run.pk}/"
    done = client.get(url, headers=htmx).content.decode()
    assert 'data-state="sound"' in done and "every 2s" not in done
    assert 'data-probe="cited_gibberish"' in done and "<details><summary>negated" in done
    assert 'judge: <span data-testid="probe-judge">no judge</span>' in done
    other = _task(reference_answer=REFERENCE)
    assert client.get(f"/tasks/{other.pk}/probes/{run.pk}/", headers=htmx).status_code == 404
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    assert 'class="table-scroll"' in page and 'data-probe="solution"' in page


def test_an_unsound_panel_highlights_the_answer_over_its_limit(
    client: Client, make_user: Callable[..., User], small_corpus: Path
) -> None:
    user = make_user("annotator")
    task = _task(citation_only_tree(), reference_answer=REFERENCE)
    _probed(user, task)
    client.force_login(user)
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    assert 'data-state="unsound"' in page
    assert '<tr data-probe="cited_gibberish" class="over-limit">' in page
    assert "cited_gibberish earns" in page


def test_a_refused_probe_is_explained_in_the_panel(
    client: Client, make_user: Callable[..., User]
) -> None:
    task = _task()
    client.force_login(make_user("annotator"))
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    assert "Nothing to probe with" in page and 'data-testid="probe-button" disabled' in page
    refused = client.post(f"/tasks/{task.pk}/probe/", headers={"HX-Request": "true"})
    assert (
        refused.status_code == 200 and "no reference answer or solution" in refused.content.decode()
    )
    assert not ProbeRun.objects.exists()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_on_the_cpu_queue_runs_a_probe(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    small_corpus: Path,
    start_worker: Callable[..., Any],
) -> None:
    import time

    task = _task(reference_answer=REFERENCE)
    headers = bearer(make_user("annotator"))
    worker = start_worker("cpu", QUESTWEB_CORPUS_DIR=str(small_corpus), QUESTWEB_JUDGE_MODEL="")
    queued = client.post(f"/api/tasks/{task.pk}/probes", content_type=JSON, headers=headers)
    run_id = queued.json()["id"]
    deadline = time.monotonic() + 90
    body = {"status": "queued"}
    while body["status"] in ("queued", "running") and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker died"
        time.sleep(0.3)
        body = client.get(f"/api/probes/{run_id}", headers=headers).json()
    assert (body["status"], body["verdict"], body["error"]) == ("done", "sound", "")
    assert body["report"]["probes"][0]["name"] == "solution"
