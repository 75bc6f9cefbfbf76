"""A benchmark run inside a worker: the engine (quest.bench.run_benchmark) with the run's
files, reporting each question as it starts and as it is saved (done of total), the tokens of
a model's turn as they are generated and each stage of reading and indexing the corpus, and
stopping within about BEAT_SECONDS of a cancel, also in the middle of a generation. The engine
keeps every finished question in the run's rows file, so a run queued again continues where it
stopped. At the end the database keeps results.json's setup and metrics."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, cast

from apps.benchmarks.models import BenchmarkRun
from apps.benchmarks.paths import shown
from apps.benchmarks.selectors import KIND
from apps.benchmarks.services import default_corpus
from apps.jobs.dispatch import JobStopped, failure, job_progress, job_run
from quest.bench import BenchConfig, BenchError, BenchRow, FormatError, run_benchmark
from quest.bench.results import RESULTS, ROWS, read_rows

# How often a question that runs for minutes tells the database its worker is alive.
BEAT_SECONDS = 10.0


class _Beat:
    """The run's reports to the job framework; `alive` turns False once it was cancelled."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.alive = True
        self.last = 0.0
        self.said = ""

    def report(self, **fields: Any) -> bool:
        self.last = time.monotonic()
        self.alive = self.alive and job_progress(KIND, self.run_id, **fields)
        return self.alive

    def row(self, done: int, total: int, row: BenchRow) -> None:
        self.report(done=done, total=total, stage=f"question {row.id}: {row.verdict}"[:200])

    def corpus(self, stage: str, done: int, total: int | None) -> None:
        if time.monotonic() - self.last < 1.0:
            return
        of = f" of {total:,}" if total else ""
        self.report(stage=f"corpus: {stage} {done:,}{of}"[:200])

    def line(self, text: str) -> None:
        self.report(stage=text[:200])
        self.said = text

    def tokens(self, count: int) -> None:
        if time.monotonic() - self.last >= 1.0:
            tokens = f"{count:,} token{'s' if count != 1 else ''}"
            self.report(stage=f"{self.said}: {tokens} of the model's turn"[:200])

    def stopped(self) -> bool:
        if time.monotonic() - self.last >= BEAT_SECONDS:
            self.report()
        return not self.alive


def benchmark_run(*, run_id: int) -> BenchmarkRun:
    # The kind's rows are of its model.
    return cast(BenchmarkRun, job_run(KIND, run_id, _work, failed=_failed))


def _config(run: BenchmarkRun) -> BenchConfig:
    def path(value: str) -> Path | None:
        return Path(value) if value else None

    return BenchConfig(
        benchmark=run.benchmark,
        data=Path(run.data),
        out=Path(run.directory),
        model=run.model or None,
        responses=path(run.responses),
        corpus=path(run.corpus),
        judge=run.judge or None,
        limit=run.limit,
        canary=run.canary or None,
        dataset=run.dataset or None,
        get_document=run.get_document,
        default_corpus=default_corpus(),
    )


def _work(run: BenchmarkRun) -> dict[str, Any]:
    beat = _Beat(run.pk)
    done = len(read_rows(Path(run.directory) / ROWS))
    beat.report(done=done, stage="loading the questions, the corpus and the model")
    results = run_benchmark(
        _config(run),
        on_progress=beat.line,
        on_corpus=beat.corpus,
        on_row=beat.row,
        should_stop=beat.stopped,
        on_tokens=beat.tokens,
    )
    kept = json.loads((Path(run.directory) / RESULTS).read_text(encoding="utf-8"))
    fields = {"setup": kept["setup"], "metrics": kept["metrics"], "stage": ""}
    if not beat.alive:  # cancelled: the questions it finished are kept, and their metrics
        BenchmarkRun.objects.filter(pk=run.pk).update(done=len(results.rows), **fields)
        raise JobStopped
    return fields


def _failed(exc: Exception) -> str:
    if isinstance(exc, FormatError | BenchError):
        return shown(str(exc))
    return shown(failure(exc, "the benchmark run"))
