"""Benchmark runs end to end inside this process: queued by the service on the right queue,
run by the Celery task function itself (as a worker calls it) over the engine, and stored with
the metrics the engine computes, equal to the values worked out by hand in
tests/quest/bench/test_bench_cli.py. A cancelled run keeps what it finished and continues when
queued again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.benchmarks import runner, services, tasks
from apps.benchmarks.models import BenchmarkRun
from apps.benchmarks.selectors import run_rows
from apps.benchmarks.services import CHECKED_DOCUMENTS
from apps.common.errors import Conflict, Forbidden, Invalid
from quest.bench.published import FROM_RESPONSES
from tests.benchmarks.conftest import BCP, NQ

pytestmark = pytest.mark.django_db(transaction=True)


def value(metrics: dict[str, Any], *path: str) -> float:
    found: Any = metrics
    for name in path:
        found = found[name]
    return float(found["value"])


def test_saved_responses_run_on_the_cpu_queue_and_store_the_hand_computed_metrics(
    started: Callable[..., Any], sent_tasks: list[tuple[str, list[Any]]]
) -> None:
    run = started(**BCP)
    assert (run.status, run.queue, run.total) == ("queued", "cpu", 4)
    assert sent_tasks == [("apps.benchmarks.tasks.cpu_benchmark_run", [run.pk])]
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.done, run.total, run.error) == ("done", 4, 4, "")
    m = run.metrics
    # q1 and q3 right, q2 and q4 wrong; no partial overlap, so F1 = EM.
    assert value(m, "exact_match") == 0.5 and value(m, "f1") == 0.5
    assert m["accuracy"] is None
    assert m["exact_match"]["label"] == "exact match, not comparable to judged accuracy"
    assert value(m, "evidence_recall", "cited") == pytest.approx(7 / 24, abs=1e-15)
    assert value(m, "evidence_recall", "retrieved") == pytest.approx(7 / 12, abs=1e-15)
    assert value(m, "search_calls") == 1.5
    # One bin of 4 (< beta 100): mean confidence (0.9 + 0.6 + 0.3 + 1.0) / 4 = 0.7 against
    # accuracy 0.5.
    assert value(m, "calibration_error") == pytest.approx(0.2, abs=1e-15)
    assert m["confidence_stated"] == 3
    low, high = m["exact_match"]["ci95"]
    assert low < 0.5 < high
    # Another system's responses: this run searched nothing, and says so.
    assert run.setup["corpus"] == run.setup["retriever"] == FROM_RESPONSES
    results = json.loads((Path(run.directory) / "results.json").read_text())
    assert results["metrics"] == m
    assert [r.id for r in run_rows(run)] == ["q1", "q2", "q3", "q4"]


def test_a_flashrag_set_scores_em_and_f1_over_its_alias_lists(
    started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    run = started(**NQ)
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert run.status == "done" and run.setup["dataset"] == "nq"
    assert value(run.metrics, "exact_match") == 0.25
    assert value(run.metrics, "f1") == pytest.approx((1 + 0.5 + 0 + 0.8) / 4, abs=1e-15)
    assert value(run.metrics, "calibration_error") == pytest.approx(0.7, abs=1e-15)


def test_the_scripted_policy_researches_the_benchmarks_own_corpus(
    started: Callable[..., Any], sent_tasks: list[Any]
) -> None:
    fields = {**BCP, "responses": "", "model": "scripted", "limit": 2, "get_document": True}
    run = started(**fields)
    assert (run.queue, run.total) == ("cpu", 2)
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.done) == ("done", 2), run.error
    rows = run_rows(run)
    assert all(row.search_calls > 0 for row in rows)
    assert {d for row in rows for d in row.retrieved_docs} <= {str(n) for n in range(101, 110)}
    assert run.metrics["n"] == 2 and run.setup["model"] == "scripted"


def test_a_model_that_loads_in_the_worker_goes_to_the_gpu_queue(
    started: Callable[..., Any], sent_tasks: list[tuple[str, list[Any]]]
) -> None:
    run = started(**{**BCP, "responses": "", "model": "smollm2"})
    assert (run.queue, run.model) == ("gpu", "transformers:smollm2")
    assert sent_tasks == [("apps.benchmarks.tasks.gpu_benchmark_run", [run.pk])]
    endpoint = started(**{**BCP, "responses": "", "model": "http://127.0.0.1:9/v1|qwen"})
    assert endpoint.queue == "cpu"


def test_a_cancelled_run_keeps_its_questions_and_continues_when_queued_again(
    started: Callable[..., Any],
    admin: User,
    sent_tasks: list[Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = started(**BCP)
    asked = []
    stopped = runner._Beat.stopped

    def cancel_at_the_third_question(beat: runner._Beat) -> bool:
        asked.append(1)
        if len(asked) == 3:
            services.run_cancel(user=admin, run_id=run.pk)
        return stopped(beat)

    monkeypatch.setattr(runner, "BEAT_SECONDS", 0.0)
    monkeypatch.setattr(runner._Beat, "stopped", cancel_at_the_third_question)
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.done, run.metrics["n"]) == ("cancelled", 2, 2)
    assert run.error == "cancelled by ada"
    assert [r.id for r in run_rows(run)] == ["q1", "q2"]
    with pytest.raises(Conflict):
        services.run_cancel(user=admin, run_id=run.pk)

    monkeypatch.setattr(runner._Beat, "stopped", stopped)
    resumed = services.run_resume(user=admin, run_id=run.pk)
    assert (resumed.status, resumed.error) == ("queued", "")
    assert sent_tasks[-1] == ("apps.benchmarks.tasks.cpu_benchmark_run", [run.pk])
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.done) == ("done", 4)
    assert [r.id for r in run_rows(run)] == ["q1", "q2", "q3", "q4"]
    assert value(run.metrics, "exact_match") == 0.5
    with pytest.raises(Conflict):
        services.run_resume(user=admin, run_id=run.pk)


def test_a_run_whose_corpus_breaks_its_format_fails_with_the_line_and_field(
    started: Callable[..., Any], bench_dir: Path, sent_tasks: list[Any]
) -> None:
    # The service reads only the first documents; a wrong one after them is the worker's to find.
    good = "".join(f'{{"docid": "{n}", "text": "a"}}\n' for n in range(CHECKED_DOCUMENTS))
    (bench_dir / "bad_corpus.jsonl").write_text(good + '{"text": "b"}\n')
    run = started(**{**BCP, "responses": "", "model": "scripted", "corpus": "bad_corpus.jsonl"})
    tasks.cpu_benchmark_run(run.pk)
    run.refresh_from_db()
    assert run.status == "failed"
    line = CHECKED_DOCUMENTS + 1
    assert f"<benchmarks>/bad_corpus.jsonl line {line}" in run.error and "docid" in run.error
    assert str(bench_dir) not in run.error


def test_only_admins_start_runs(started: Callable[..., Any], viewer: User) -> None:
    with pytest.raises(Forbidden):
        started(user=viewer, **BCP)


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"data": "../outside.jsonl"}, "data: '../outside.jsonl' is not a path inside"),
        ({"data": "/etc/passwd"}, "data: '/etc/passwd' is not a path inside"),
        ({"data": "missing.jsonl"}, "data: <benchmarks>/missing.jsonl does not exist"),
        # A name longer than the file system allows (schemathesis found it a 500).
        ({"data": "0" * 500}, "data: '00000000"),
        ({"corpus": "x/" * 3000}, "corpus: 'x/x/"),
        ({"data": "nq"}, "data: <benchmarks>/nq is not a file"),
        ({"corpus": "../../x"}, "corpus: '../../x' is not a path inside"),
        ({"model": "scripted"}, "model, responses: choose only one of a model, an endpoint"),
        ({"responses": ""}, "model: choose one of a model, an endpoint, or saved responses"),
        ({"responses": "", "model": "transformers:/tmp/x"}, "model: 'transformers:/tmp/x' is not"),
        ({"responses": "", "model": "http://h/v1"}, "model: "),
        ({"judge": "not a url"}, "judge: "),
        ({"limit": 0}, "limit: a whole number from 1"),
        ({"benchmark": "hle"}, "benchmark: one of browsecomp-plus, flashrag, frames"),
        ({"responses": "frames.tsv"}, "responses: <benchmarks>/frames.tsv line 1"),
    ],
)
def test_a_request_the_run_could_not_use_is_refused_naming_the_field(
    started: Callable[..., Any], fields: dict[str, Any], said: str
) -> None:
    with pytest.raises(Invalid) as refused:
        started(**{**BCP, **fields})
    assert refused.value.message.startswith(said), refused.value.message
    assert not BenchmarkRun.objects.exists()


def test_responses_that_answer_none_of_the_questions_are_refused_before_a_run_exists(
    started: Callable[..., Any], bench_dir: Path
) -> None:
    (bench_dir / "other.jsonl").write_text('{"id": "zzz", "response": "Paris"}\n')
    with pytest.raises(Invalid) as refused:
        started(**{**BCP, "responses": "other.jsonl"})
    message = refused.value.message
    assert message.startswith("responses: ") and "none of its 1 response ids" in message
    assert "'zzz'" in message and "'q1'" in message
    assert not BenchmarkRun.objects.exists()


def test_a_bad_question_file_is_refused_with_its_line_and_field(
    started: Callable[..., Any], bench_dir: Path
) -> None:
    good = (bench_dir / "browsecomp_plus_queries.jsonl").read_text().splitlines()
    broken = json.loads(good[1])
    del broken["answer"]
    (bench_dir / "bad.jsonl").write_text("\n".join([good[0], json.dumps(broken)]) + "\n")
    with pytest.raises(Invalid) as refused:
        started(**{**BCP, "data": "bad.jsonl"})
    assert (
        refused.value.message == "data: <benchmarks>/bad.jsonl line 2, field 'answer': is missing"
    )


def test_flashrag_without_a_corpus_anywhere_cannot_run_a_model(
    started: Callable[..., Any],
) -> None:
    with pytest.raises(Invalid) as refused:
        started(**{**NQ, "responses": "", "model": "scripted"})
    assert refused.value.message.startswith("corpus: flashrag needs a corpus to search")


def test_an_empty_request_names_the_missing_question_file_before_the_model(
    started: Callable[..., Any],
) -> None:
    with pytest.raises(Invalid) as refused:
        started(benchmark="browsecomp-plus", data="")
    assert refused.value.message.startswith("data: ''"), refused.value.message


def test_a_model_and_an_endpoint_together_are_refused_naming_both(
    started: Callable[..., Any],
) -> None:
    fields = {**BCP, "responses": "", "model": "scripted", "endpoint": "http://127.0.0.1:9/v1|q"}
    with pytest.raises(Invalid) as refused:
        started(**fields)
    assert refused.value.message == (
        "model, endpoint: choose only one of a model, an endpoint, or saved responses"
    )
    run = started(**{**fields, "model": ""})
    assert (run.model, run.queue) == ("http://127.0.0.1:9/v1|q", "cpu")


def test_a_flashrag_file_whose_name_says_no_set_needs_the_dataset_named(
    started: Callable[..., Any], bench_dir: Path, sent_tasks: list[Any]
) -> None:
    uploads = bench_dir / "uploads"
    uploads.mkdir()
    questions = (bench_dir / "nq" / "test.jsonl").read_text()
    (uploads / "20261129-132908-test.jsonl").write_text(questions)
    unnamed = {**NQ, "data": "uploads/20261129-132908-test.jsonl"}
    with pytest.raises(Invalid) as refused:
        started(**unnamed)
    assert refused.value.message == (
        "dataset: name the set (nq, triviaqa, popqa, hotpotqa, 2wikimultihopqa, musique, "
        "bamboogle): the file's name <benchmarks>/uploads/20261129-132908-test.jsonl does not "
        "say which it is"
    )
    assert started(**unnamed, dataset="nq").dataset == "nq"
    # An upload's own name counts, without the time file_store put before it.
    (uploads / "20261129-132908-2-triviaqa_dev.jsonl").write_text(questions)
    named = started(**{**NQ, "data": "uploads/20261129-132908-2-triviaqa_dev.jsonl"})
    assert named.dataset == "triviaqa"
    assert started(**NQ).dataset == "nq"  # the folder FlashRAG's layout names it by


def test_a_corpus_in_the_wrong_format_is_refused_when_the_run_is_asked_for(
    started: Callable[..., Any], bench_dir: Path
) -> None:
    scripted = {**BCP, "responses": "", "model": "scripted"}
    with pytest.raises(Invalid) as refused:
        started(**{**scripted, "corpus": BCP["data"]})
    assert refused.value.message.startswith(
        "corpus: <benchmarks>/browsecomp_plus_queries.jsonl line 1, field 'docid': is missing"
    ), refused.value.message
    (bench_dir / "not_json.jsonl").write_text('{"docid": "1", "text": "a"}\nnot json\n')
    with pytest.raises(Invalid) as refused:
        started(**{**scripted, "corpus": "not_json.jsonl"})
    assert refused.value.message == "corpus: <benchmarks>/not_json.jsonl line 2: not valid JSON"
    (bench_dir / "empty").mkdir()
    with pytest.raises(Invalid) as refused:
        started(**{**scripted, "corpus": "empty"})
    assert refused.value.message == "corpus: <benchmarks>/empty holds no document"
    assert not BenchmarkRun.objects.exists()


def test_a_big_corpus_is_not_read_whole_when_the_run_is_asked_for(
    started: Callable[..., Any], bench_dir: Path, sent_tasks: list[Any]
) -> None:
    # Only the first documents are read: what follows them is never opened as JSON here.
    good = "".join(f'{{"docid": "{n}", "text": "a"}}\n' for n in range(CHECKED_DOCUMENTS))
    (bench_dir / "big.jsonl").write_text(good + "not json\n" * 10_000)
    run = started(**{**BCP, "responses": "", "model": "scripted", "corpus": "big.jsonl"})
    assert run.corpus == str(bench_dir / "big.jsonl")
