"""Pages built around wide tables, at a phone's width (390 px) and a laptop's (1280 px): a task's
version history with its diff, and the corpus page with its jobs. The page never scrolls
sideways; a table too wide for the screen scrolls inside its own box or wraps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from apps.accounts.models import User
from apps.corpus.models import CorpusJob, JobKind
from apps.jobs.models import JobStatus
from apps.rubrics.services import task_create, version_create
from tests.browser.test_layout import WIDE
from tests.browser.test_task_pages import _kilimanjaro_corpus, _login
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db(transaction=True)

FITS = "document.documentElement.scrollWidth <= window.innerWidth"


def _task_with_versions(admin: User) -> int:
    """A task edited twice, with the long notes and values audit edits leave."""
    tree = small_tree()
    task = task_create(user=admin, record={"question": tree["task_description"], "rubric": tree})
    tree["root"]["children"][0]["description"] = (
        "The answer names Canberra as the capital of Australia and says it was chosen in 1908 "
        "as a compromise between Sydney and Melbourne, citing https://en.wikipedia.org/wiki/"
        "Canberra#History_of_the_Australian_Capital_Territory_selection"
    )
    version_create(
        user=admin,
        task_id=task.pk,
        tree=tree,
        note="audit edit: set_description capital; set_check capital; "
        "add_node root_child_names_the_year_it_became_the_capital_of_the_commonwealth",
    )
    tree["root"]["children"][1]["check"] = {
        "kind": "source_supports",
        "value": "Canberra",
        "context": ["capital", "seat_of_government", "parliament_house", "federal_territory"],
    }
    version_create(user=admin, task_id=task.pk, tree=tree, note="undo: back to version 2")
    return int(task.pk)


def _jobs(admin: User) -> None:
    now = timezone.now()
    errors = [
        f"line {n}: 'url' must be an http(s) URL, got 'ftp://mirror.example.org/dumps/"
        f"enwiki-20240601-pages-articles-multistream-index{n}.txt.bz2'"
        for n in range(3, 9)
    ]
    report = {"added": 1204, "replaced": 17, "kept": 40210, "duplicates": 3, "documents": 41431,
              "passages": 382204, "rejected_lines": 6, "line_errors": errors}  # fmt: skip
    CorpusJob.objects.create(
        kind=JobKind.LOAD_JSONL,
        status=JobStatus.DONE,
        filename="my-own-documents-exported-from-the-lab-wiki-2024-06-01-final-v2.jsonl",
        report=report,
        created_by=admin,
        started_at=now,
        finished_at=now,
    )
    CorpusJob.objects.create(
        kind=JobKind.INDEX_DENSE,
        status=JobStatus.FAILED,
        error="RuntimeError: the embedding model sentence-transformers/all-MiniLM-L6-v2 could "
        "not be loaded from /var/lib/questweb/models/all-MiniLM-L6-v2/snapshots/"
        "8b3219a92973c328a8e22fadcfa821b5dc75636a: no such file",
        created_by=admin,
        started_at=now,
        finished_at=now,
    )


def test_version_history_and_corpus_jobs_fit_a_phone_without_scrolling_sideways(
    live_server: Any,
    page: Any,
    make_user: Callable[..., User],
    settings: Any,
    tmp_path: Path,
) -> None:
    _kilimanjaro_corpus(settings, tmp_path)
    admin = make_user("admin")
    task_id = _task_with_versions(admin)
    _jobs(admin)
    _login(page, live_server.url, admin, "/corpus/")
    problems = []
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in (
            ("versions", f"/tasks/{task_id}/versions/?a=1&b=3"),
            ("corpus", "/corpus/"),
        ):
            page.goto(live_server.url + path)
            page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
            if not page.evaluate(FITS):
                problems.append(f"{path} at {width} px scrolls sideways: {page.evaluate(WIDE)}")
    assert not problems, "\n".join(problems)
    # Everything is still there to read: the diff's values and the jobs' reports.
    page.goto(f"{live_server.url}/tasks/{task_id}/versions/?a=1&b=3")
    assert "1908" in page.inner_text("#diff")
    page.goto(f"{live_server.url}/corpus/")
    assert "line 7" in page.inner_text("table.jobs")
