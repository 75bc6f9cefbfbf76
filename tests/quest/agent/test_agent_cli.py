from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import CANBERRA, QUESTION

from quest.cli import main


def test_a_cli_run_prints_a_trace_and_writes_events_and_trajectory(
    agent_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events, trajectory = tmp_path / "events.jsonl", tmp_path / "trajectory.jsonl"
    code = main(
        ["agent", "run", QUESTION, "--corpus", str(agent_corpus),
         "--events", str(events), "--trajectory", str(trajectory)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "[1] search: ['capital city Australia'" in out
    assert "=== answer ===\n**Answer:** Canberra. Canberra is the capital city of Australia" in out
    records = [json.loads(line) for line in events.read_text().splitlines()]
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert records[0]["type"] == "started" and records[-1]["type"] == "finished"
    assert records[-1]["payload"]["status"] == "answered"
    answer = next(r for r in records if r["type"] == "answer")
    assert answer["payload"]["citations"][0]["url"] == CANBERRA
    segments = [json.loads(line) for line in trajectory.read_text().splitlines()]
    assert (
        segments[0]["kind"] == "segment"
        and segments[0]["prompt_messages"][1]["content"] == QUESTION
    )


def test_quiet_prints_only_the_answer_and_the_corpus_may_come_from_the_environment(
    agent_corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUESTWEB_CORPUS_DIR", str(agent_corpus))
    assert main(["agent", "run", QUESTION, "--quiet", "--max-turns", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("**Answer:** Canberra. Canberra is the capital city of Australia")
    assert "[1]" in out and "think:" not in out


def test_a_run_without_a_corpus_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QUESTWEB_CORPUS_DIR", raising=False)
    assert main(["agent", "run", QUESTION]) == 1
    assert capsys.readouterr().err == "error: give --corpus DIR or set QUESTWEB_CORPUS_DIR\n"


def test_the_llm_policy_needs_a_model(
    agent_corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agent", "run", QUESTION, "--corpus", str(agent_corpus), "--policy", "llm"]) == 1
    assert "--policy llm needs --model SPEC" in capsys.readouterr().err
