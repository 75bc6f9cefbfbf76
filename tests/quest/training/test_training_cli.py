from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from training_helpers import TASKS, write_jsonl

from quest.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["dataset", *argv])
    captured = capsys.readouterr()
    summary = json.loads(captured.out) if code == 0 else None
    return code, summary, captured.err


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_rl_writes_verl_parquet_or_trl_jsonl_by_the_outputs_suffix(
    tasks_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary, err = run(["rl", str(tasks_file), "--out", str(tmp_path / "rl.parquet")], capsys)
    assert code == 0
    assert (summary["layout"], summary["tasks"], summary["rows"]) == ("verl", 4, 3)
    assert summary["skipped"][0]["task_id"] == "judged" and "judged" in err
    assert pq.read_table(tmp_path / "rl.parquet").num_rows == 3
    code, summary, _ = run(
        ["rl", str(tasks_file), "--out", str(tmp_path / "rl.jsonl"), "--data-source", "mine"],
        capsys,
    )
    assert (code, summary["layout"]) == (0, "trl")
    assert {row["data_source"] for row in lines(tmp_path / "rl.jsonl")} == {"mine"}


def test_sft_keeps_the_sessions_of_rollouts_that_pass_the_threshold(
    rollouts_file: Path,
    tasks_file: Path,
    corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "sft.jsonl"
    argv = ["sft", str(rollouts_file), "--tasks", str(tasks_file), "--corpus", str(corpus)]
    code, summary, err = run([*argv, "--min-reward", "0.5", "--out", str(out)], capsys)
    assert code == 0
    assert (summary["rollouts"], summary["kept"], summary["dropped"]) == (5, 3, 1)
    assert summary["below_threshold"] == 1 and summary["rows"] == len(lines(out))
    assert {row["task_id"] for row in lines(out)} == {"australia", "france"}
    assert "sft: 5 rollouts read" in err


def test_sft_without_a_corpus_says_what_cannot_be_checked(
    rollouts_file: Path,
    tasks_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("QUESTWEB_CORPUS_DIR", raising=False)
    argv = ["sft", str(rollouts_file), "--tasks", str(tasks_file), "--out", str(tmp_path / "s")]
    code, summary, err = run(argv, capsys)
    assert code == 0 and summary["kept"] == 3
    assert "no corpus: citations were not checked" in err


def test_mid_writes_condenser_and_page_pairs_with_the_corpus_from_the_environment(
    rollouts_file: Path,
    corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUESTWEB_CORPUS_DIR", str(corpus))
    out = tmp_path / "mid.jsonl"
    code, summary, _ = run(["mid", str(rollouts_file), "--out", str(out)], capsys)
    assert code == 0 and summary["page"] > 0 and summary["condenser"] > 0
    assert {row["kind"] for row in lines(out)} == {"condenser", "page"}


def bad_lines(tmp_path: Path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(TASKS[0]) + "\n{not json\n", encoding="utf-8")
    return path


def latin1_lines(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'\n{"question": "Qu\xe9bec"}\n')
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rl", "{missing}", "--out", "{tmp}/rl.jsonl"], "missing.jsonl: No such file"),
        (["rl", "{tasks}", "--out", "{tmp}/rl.csv"], "--out must end in .parquet"),
        (["rl", "{bad}", "--out", "{tmp}/rl.jsonl"], "bad.jsonl:2: not JSON"),
        (["rl", "{tasks}", "--out", "{tmp}/no/such/rl.jsonl"], "no such directory"),
        (["sft", "{tasks}", "--out", "{tmp}/sft.jsonl"], "tasks.jsonl:1: kind must be one of"),
        (["sft", "{rollouts}", "--tasks", "{bad}", "--out", "{tmp}/s.jsonl"], "bad.jsonl:2"),
        (["sft", "{rollouts}", "--corpus", "{tmp}", "--out", "{tmp}/s.jsonl"], "not a corpus"),
        (["sft", "{rollouts}", "--min-reward", "nan", "--out", "{tmp}/s.jsonl"], "a number"),
        (["mid", "{tasks}", "--out", "{tmp}/mid.jsonl"], "kind must be one of"),
        (["mid", "{missing}", "--out", "{tmp}/mid.jsonl"], "missing.jsonl: No such file"),
        (["mid", "{latin1}", "--out", "{tmp}/mid.jsonl"], "latin1.jsonl:2: not UTF-8 text"),
    ],
)
def test_bad_input_exits_1_with_one_error_line_and_writes_nothing(
    argv: list[str],
    message: str,
    tasks_file: Path,
    rollouts_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = {
        "tasks": tasks_file,
        "rollouts": rollouts_file,
        "bad": bad_lines(tmp_path),
        "missing": tmp_path / "missing.jsonl",
        "latin1": latin1_lines(tmp_path),
        "tmp": tmp_path,
    }
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run([arg.format(**paths) for arg in argv], capsys)
    assert code == 1
    assert err.startswith("error: ") and err.count("\n") == 1
    assert message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_failed_build_leaves_the_previous_output_in_place(
    tasks_file: Path, rollouts_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sft.jsonl"
    out.write_text("previous\n", encoding="utf-8")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(rollouts_file.read_text() + '{"kind": "segment"}\n', encoding="utf-8")
    code, _, _ = run(["sft", str(broken), "--tasks", str(tasks_file), "--out", str(out)], capsys)
    assert code == 1 and out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.jsonl", "sft.jsonl"]


def test_the_dataset_area_is_a_quest_subcommand() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "quest", "dataset", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert all(kind in result.stdout for kind in ("rl", "sft", "mid"))


def test_an_empty_task_file_writes_an_empty_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = write_jsonl(tmp_path / "none.jsonl", [])
    code, summary, _ = run(["rl", str(empty), "--out", str(tmp_path / "rl.parquet")], capsys)
    assert (code, summary["rows"]) == (0, 0)
