"""Judged accuracy through a real OpenAI-compatible server, `quest serve-llm` with the built-in
SmolLM2-135M, with every verdict cached: a second run asks the server nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_servers import ServedModel

from quest.bench.results import BenchResults
from quest.cli import main

pytestmark = pytest.mark.integration


def test_a_judged_run_asks_the_server_once_per_response_and_then_reads_its_cache(
    data: Path,
    tmp_path: Path,
    smollm2_server: ServedModel,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = smollm2_server.output[-1].split(" on ")[0].removeprefix("serving ").strip()
    cache = tmp_path / "judge-cache.jsonl"
    argv = [
        "eval", "bench", "--benchmark", "browsecomp-plus",
        "--data", str(data / "browsecomp_plus_queries.jsonl"),
        "--responses", str(data / "browsecomp_plus_responses.jsonl"),
        "--judge", f"{smollm2_server.url}|{model}", "--judge-cache", str(cache),
        "--judge-max-tokens", "24", "--limit", "2",
    ]  # fmt: skip
    assert main([*argv, "--out", str(tmp_path / "first")]) == 0, capsys.readouterr().err
    first = json.loads(capsys.readouterr().out)
    assert first["metrics"]["accuracy"]["label"] == "judged accuracy"
    assert first["setup"]["judge_model"] == model and first["setup"]["prompt_hash"]
    entries = [json.loads(line) for line in cache.read_text().splitlines()]
    assert len(entries) == 2  # one request per response
    rows = BenchResults.load(tmp_path / "first").rows
    assert all(row.judged and row.judge is not None for row in rows)
    # Verdicts are asked concurrently: the cache holds them in the order they came back.
    assert sorted(row.judge["reply"] for row in rows if row.judge) == sorted(
        e["reply"] for e in entries
    )

    smollm2_server.stop()  # from here on, any request to the judge would fail
    assert main([*argv, "--out", str(tmp_path / "second")]) == 0, capsys.readouterr().err
    second = json.loads(capsys.readouterr().out)
    assert second["metrics"]["accuracy"] == first["metrics"]["accuracy"]
    assert len(cache.read_text().splitlines()) == 2
    assert [r.verdict for r in BenchResults.load(tmp_path / "second").rows] == [
        r.verdict for r in rows
    ]
