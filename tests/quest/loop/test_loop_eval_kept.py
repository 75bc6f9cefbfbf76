"""An evaluation written by a loop killed before it saved its state is kept on the resume, not
run again; one of another model or other tasks is run again."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from quest.loop import runs
from quest.loop.config import LoopConfig


def _evaluation(tmp_path: Path) -> tuple[runs.Evaluation, list[str]]:
    said: list[str] = []
    (tmp_path / "eval").mkdir()
    run = runs.Evaluation(tmp_path, LoopConfig(), toolbox=None, store=None, say=said.append)
    return run, said


def _tasks(*ids: str) -> list[Any]:
    return [SimpleNamespace(task_id=task_id) for task_id in ids]


def _write(path: Path, model: str, ids: list[str]) -> None:
    scores = [{"task_id": task_id, "reward": 0.5} for task_id in ids]
    report = {"model": model, "mean": 0.5, "n": len(ids), "scores": scores}
    path.write_text(json.dumps(report), encoding="utf-8")


def test_an_evaluation_on_disk_of_the_same_model_and_tasks_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, said = _evaluation(tmp_path)
    _write(tmp_path / "eval" / "base.json", "tiny", ["t2", "t1"])

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the kept evaluation ran again")

    monkeypatch.setattr(runs, "evaluate_model", refuse)
    entry = run("base", "tiny", _tasks("t1", "t2"), "")

    assert entry == {
        "model": "tiny",
        "file": str(tmp_path / "eval" / "base.json"),
        "mean": 0.5,
        "n": 2,
    }
    assert said == ["eval base (held-out): kept from an earlier run (base.json)"]


@pytest.mark.parametrize(
    ("model", "ids", "why"),
    [
        ("smollm2", ["t1", "t2"], "another model"),
        ("tiny", ["t1"], "other tasks"),
        ("tiny", None, "a file cut short"),
    ],
)
def test_an_evaluation_of_another_model_or_tasks_runs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, ids: list[str] | None, why: str
) -> None:
    run, said = _evaluation(tmp_path)
    file = tmp_path / "eval" / "base.json"
    if ids is None:
        file.write_text('{"model": "tiny", "scores": [', encoding="utf-8")
    else:
        _write(file, model, ids)
    monkeypatch.setattr(runs, "evaluate_model", lambda *a, **k: [])
    monkeypatch.setattr(runs, "summarize", lambda scores: {"mean": 0.0, "n": 0})

    entry = run("base", "tiny", _tasks("t1", "t2"), "")

    assert entry["mean"] == 0.0, why
    assert said == ["eval base (held-out): tiny on 2 tasks"], why
    assert json.loads(file.read_text(encoding="utf-8"))["n"] == 0  # rewritten whole
    assert not list((tmp_path / "eval").glob(".*.partial"))
