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
    run = finished(
        started, benchmark="flashrag", data="many/test.jsonl", dataset="nq", responses="many.jsonl"
    )
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


def shown_value(text: str, name: str) -> str:
    """The value the form shows in its text input `name`, unescaped as a browser sends it."""
    value = text.split(f'name="{name}"')[1].split('value="')[1].split('"', maxsplit=1)[0]
    return value.replace("&lt;", "<").replace("&gt;", ">")


def test_an_uploaded_file_stays_in_the_form_after_an_error_and_is_sent_again(
    client: Client, admin: User, bench_dir: Path, sent_tasks: list[Any]
) -> None:
    with (
        (bench_dir / "nq" / "test.jsonl").open("rb") as data,
        (bench_dir / "nq_responses.jsonl").open("rb") as responses,
    ):
        form = {"benchmark": "flashrag", "data_file": data, "responses_file": responses,
                "model": "", "data": ""}  # fmt: skip
        refused = logged_in(client, admin).post("/benchmarks/", form)
    assert refused.status_code == 422
    assert "dataset: name the set (nq, triviaqa" in refused.text
    kept = {name: shown_value(refused.text, name) for name in ("data", "responses")}
    assert kept["data"].startswith("<benchmarks>/uploads/") and kept["data"].endswith("-test.jsonl")
    assert kept["responses"].endswith("-nq_responses.jsonl")
    again = client.post("/benchmarks/", {"benchmark": "flashrag", "dataset": "nq", **kept})
    run = BenchmarkRun.objects.get()
    assert again.status_code == 302 and (run.dataset, run.queue) == ("nq", "cpu")
    assert run.responses.startswith(str(bench_dir / "uploads"))


def test_the_form_uploads_the_corpus_and_checks_it(
    client: Client, admin: User, bench_dir: Path, sent_tasks: list[Any]
) -> None:
    form = {**BCP, "responses": "", "model": "scripted", "corpus": ""}
    with (bench_dir / BCP["data"]).open("rb") as queries:
        refused = logged_in(client, admin).post("/benchmarks/", {**form, "corpus_file": queries})
    assert refused.status_code == 422
    assert "corpus: &lt;benchmarks&gt;/uploads/" in refused.text
    assert "line 1, field &#x27;docid&#x27;: is missing" in refused.text
    with (bench_dir / BCP["corpus"]).open("rb") as corpus:
        made = client.post("/benchmarks/", {**form, "corpus_file": corpus})
    run = BenchmarkRun.objects.get()
    assert made.status_code == 302 and run.corpus.startswith(str(bench_dir / "uploads"))
    assert run.corpus.endswith("-browsecomp_plus_corpus.jsonl")


def test_the_form_refuses_a_model_with_saved_responses_and_asks_for_the_file_first(
    client: Client, admin: User, sent_tasks: list[Any]
) -> None:
    both = logged_in(client, admin).post("/benchmarks/", {**BCP, "model": "scripted"})
    assert both.status_code == 422 and not BenchmarkRun.objects.exists()
    assert "model, responses: choose only one of a model, an endpoint, or saved responses" in (
        both.text
    )
    empty = client.post("/benchmarks/", {"benchmark": "browsecomp-plus"})
    assert empty.status_code == 422
    error = empty.text.split('data-testid="form-error">')[1]
    assert error.startswith("data: &#x27;&#x27; is not a path inside the benchmarks directory")


def judged(run: BenchmarkRun) -> None:
    """Mark every row of a run as graded by a judge, as a judged run's rows are."""
    rows = Path(run.directory) / "rows.jsonl"
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    rows.write_text("".join(json.dumps({**row, "judged": True}) + "\n" for row in lines))


def test_the_compare_page_refuses_a_run_with_itself_and_says_what_is_missing(
    client: Client, viewer: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    a, b = finished(started, **NQ), finished(started, **NQ)
    logged_in(client, viewer)
    cases = [
        (f"a={a.pk}&b={a.pk}", 422, f"b: choose two different runs: run {a.pk} is both a and b"),
        (f"a={a.pk}", 422, "choose two runs: run A and run B"),
        (f"b={b.pk}&a=", 422, "choose two runs: run A and run B"),
        (f"a=x&b={b.pk}", 422, "a: &#x27;x&#x27; is not a run&#x27;s number: choose a run"),
        (f"a=999999&b={b.pk}", 404, "999999"),
    ]
    for query, status, said in cases:
        page = client.get(f"/benchmarks/compare/?{query}")
        assert page.status_code == status, query
        assert 'data-testid="compare-form"' in page.text
        error = page.text.split('data-testid="compare-error">')[1].split("</p>")[0]
        assert said in error, (query, error)
    assert "compare-error" not in client.get("/benchmarks/compare/").text


def test_the_compare_page_says_which_metric_it_compares_and_why(
    client: Client, viewer: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    a, b = finished(started, **NQ), finished(started, **NQ)
    logged_in(client, viewer)

    def said() -> str:
        page = client.get(f"/benchmarks/compare/?a={a.pk}&b={b.pk}")
        assert page.status_code == 200
        return page.text.split('data-testid="compared-metric">')[1].split("</p>")[0]

    # NQ's published metric is exact match (Search-R1).
    assert "exact match (the metric Search-R1 reports)" in said()
    assert "because no judge graded either run" in said()
    judged(a)
    assert "exact match (the metric Search-R1 reports)" in said()
    assert f"because run {b.pk} was not judged on every question, and judged accuracy" in said()
    judged(b)
    assert "<strong>judged accuracy</strong>, because a judge graded every question" in said()


def test_what_saved_responses_do_not_say_is_shown_as_unknown(
    client: Client, viewer: User, started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    frames = {"benchmark": "frames", "data": "frames.tsv", "responses": "frames_responses.jsonl"}
    run = finished(started, **frames)
    assert run.status == "done", run.error
    page = logged_in(client, viewer).get(f"/benchmarks/{run.pk}/").text
    # FRAMES' responses give no search calls: no histogram, and "—" in every row, not 0.
    assert 'data-testid="no-search-calls"' in page and 'data-figure="search_calls"' not in page
    rows = page.split('data-testid="rows"')[1]
    assert rows.count('title="the responses do not say">—</span>') == 3
    # Unstated confidence counts as 100 %, and the page says how many stated one.
    assert "counts as 100 % (BrowseComp's convention)" in page
    assert '<span data-testid="confidence-stated">3 of 3</span>' in page
