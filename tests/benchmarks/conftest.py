"""Benchmark fixtures: a benchmarks directory of its own for each test, holding the engine's
small files in each published format (tests/quest/data/bench), and the users of each role."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User

DATA = Path(__file__).resolve().parents[1] / "quest" / "data" / "bench"
BCP = {
    "benchmark": "browsecomp-plus",
    "data": "browsecomp_plus_queries.jsonl",
    "responses": "browsecomp_plus_responses.jsonl",
    "corpus": "browsecomp_plus_corpus.jsonl",
}
NQ = {"benchmark": "flashrag", "data": "nq/test.jsonl", "responses": "nq_responses.jsonl"}


@pytest.fixture(autouse=True)
def bench_dir(settings: Any, tmp_path: Path) -> Path:
    """settings.BENCHMARKS_DIR with a copy of the engine's test files in it."""
    folder = tmp_path / "benchmarks"
    shutil.copytree(DATA, folder)
    settings.BENCHMARKS_DIR = folder
    settings.CORPUS_DIR = tmp_path / "no-corpus"
    return folder


@pytest.fixture
def started(admin: User) -> Callable[..., Any]:
    """started(**fields): a run queued through the service, as the form and REST queue it."""
    from apps.benchmarks.services import RunRequest, run_create

    def start(**fields: Any) -> Any:
        return run_create(user=fields.pop("user", admin), request=RunRequest(**fields))

    return start
