"""The benchmark pages: the runs with the form (a bad file is refused on the page with its line
and field), a finished run with its metric and interval, plots, rows and the published numbers
beside, a running run's polled progress, and two runs compared."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.benchmarks import tasks
from apps.benchmarks.models import BenchmarkRun
from tests.benchmarks.conftest import BCP, NQ

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def finished(started: Callable[..., Any], **fields: Any) -> BenchmarkRun:
    run: BenchmarkRun = started(**fields)
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    return run


def test_a_viewer_reads_the_runs_and_only_an_admin_gets_the_form(
    client: Client, admin: User, viewer: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    run = started(**BCP)
    page = logged_in(client, viewer).get("/benchmarks/")
    assert page.status_code == 200
    assert f'data-run="{run.pk}"' in page.text and 'data-testid="run-form"' not in page.text
    assert client.post("/benchmarks/", {**BCP}).status_code == 403
    page = logged_in(client, admin).get("/benchmarks/")
    assert 'data-testid="run-form"' in page.text
    assert '<option value="browsecomp_plus_queries.jsonl"' not in page.text
    assert "&lt;benchmarks&gt;/browsecomp_plus_queries.jsonl" in page.text


def test_an_uploaded_bad_file_is_refused_on_the_page_with_its_line_and_field(
    client: Client, admin: User, sent_tasks: list[Any]
) -> None:
    bad = io.BytesIO(b'{"id": "1", "question": "Who?", "golden_answers": "Ada"}\n')
    bad.name = "test.jsonl"
    form = {
        "benchmark": "flashrag",
        "data_file": bad,
        "model": "",
        "responses": "nq_responses.jsonl",
    }
    page = logged_in(client, admin).post("/benchmarks/", form)
    assert page.status_code == 422
    assert "line 1, field &#x27;golden_answers&#x27;" in page.text
    assert 'data-testid="form-error"' in page.text and not BenchmarkRun.objects.exists()
    outside = client.post("/benchmarks/", {**NQ, "data": "../../etc/passwd"})
    assert outside.status_code == 422 and "is not a path inside the benchmarks" in outside.text


def test_the_form_starts_a_run_from_uploaded_files(
    client: Client, admin: User, bench_dir: Path, sent_tasks: list[Any]
) -> None:
    with (
        (bench_dir / "nq" / "test.jsonl").open("rb") as data,
        (bench_dir / "nq_responses.jsonl").open("rb") as responses,
    ):
        form = {"benchmark": "flashrag", "data_file": data, "responses_file": responses,
                "dataset": "nq", "model": "", "data": ""}  # fmt: skip
        made = logged_in(client, admin).post("/benchmarks/", form)
    run = BenchmarkRun.objects.get()
    assert made.status_code == 302 and made["Location"] == f"/benchmarks/{run.pk}/"
    assert run.data.startswith(str(bench_dir / "uploads")) and run.queue == "cpu"
    assert sent_tasks == [("apps.benchmarks.tasks.cpu_benchmark_run", [run.pk])]


def test_a_finished_run_shows_its_metric_plots_rows_and_the_published_numbers(
    client: Client, viewer: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    run = finished(started, **BCP)
    page = logged_in(client, viewer).get(f"/benchmarks/{run.pk}/")
    assert page.status_code == 200
    text = page.text
    assert 'data-testid="no-judge"' in text and "not comparable to judged accuracy" in text
    assert 'data-metric="exact_match" class="headline"' in text
    assert "<strong>50.0 %</strong>" in text and "Calibration error (RMS)" in text
    assert "Search-R1-32B" in text and "3.86 %" in text and "arXiv:2508.06600" in text
    assert "judge: this run used none" in text
    figures = json.loads(text.split('id="benchmark-figures" type="application/json">')[1]
                         .split("</script>")[0])  # fmt: skip
    assert set(figures) == {"calibration", "search_calls"}
    assert "vendor/plotly/plotly-4.1.1.min.js" in text and "cdn" not in text.lower()
    assert text.count('<tr data-row="') == 4 and "Marie Curie" in text
    assert 'data-testid="cancel-run"' not in text


def test_the_rows_page_fifty_at_a_time(
    client: Client, viewer: User, started: Callable[..., Any], bench_dir: Path,
    sent_tasks: list[Any],
) -> None:  # fmt: skip
    rows = [{"id": f"n{i}", "question": f"What is {i}?", "golden_answers": [str(i)]}
            for i in range(60)]  # fmt: skip
    (bench_dir / "many").mkdir()
    (bench_dir / "many" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = "".join(json.dumps({"id": f"n{i}", "response": str(i % 2)}) + "\n" for i in range(60))
    (bench_dir / "many.jsonl").write_text(answers)
    run = finished(started, benchmark="flashrag", data="many/test.jsonl", responses="many.jsonl")
    page = logged_in(client, viewer).get(f"/benchmarks/{run.pk}/")
    assert page.text.count('<tr data-row="') == 50 and 'data-testid="next-rows"' in page.text
    second = client.get(f"/benchmarks/{run.pk}/?page=2")
    assert second.text.count('<tr data-row="') == 10 and "page 2 of 2" in second.text


def test_a_queued_run_polls_its_progress_and_reloads_once_it_ends(
    client: Client, admin: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    run = started(**BCP)
    page = logged_in(client, admin).get(f"/benchmarks/{run.pk}/")
    assert f'hx-get="/benchmarks/{run.pk}/progress/"' in page.text
    assert 'data-testid="cancel-run"' in page.text
    polled = client.get(f"/benchmarks/{run.pk}/progress/", headers={"HX-Request": "true"})
    assert "HX-Refresh" not in polled and "0</strong> of 4 questions" in polled.text
    tasks.cpu_benchmark_run(run.pk)
    polled = client.get(f"/benchmarks/{run.pk}/progress/", headers={"HX-Request": "true"})
    assert polled["HX-Refresh"] == "true"


def test_the_compare_page_gives_the_difference_or_says_why_not(
    client: Client, viewer: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    a, b = finished(started, **NQ), finished(started, **NQ)
    other = finished(started, **BCP)
    page = logged_in(client, viewer).get(f"/benchmarks/compare/?a={a.pk}&b={b.pk}")
    assert page.status_code == 200 and 'data-testid="difference"' in page.text
    assert "4 ties" in page.text
    refused = client.get(f"/benchmarks/compare/?a={a.pk}&b={other.pk}")
    assert refused.status_code == 422 and "only runs of one benchmark compare" in refused.text


def test_the_training_overview_links_to_the_benchmarks(client: Client, viewer: User) -> None:
    page = logged_in(client, viewer).get("/training/")
    assert page.status_code == 200 and 'href="/benchmarks/"' in page.text
