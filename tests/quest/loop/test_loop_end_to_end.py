"""The miniature recipe loop end to end through `python -m quest loop`: every stage runs, the
report holds what issues 15 and 27 ask for, and no training stage ever reads a held-out or an
out-of-family task."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from loop_helpers import ROOT, run_loop_cli, state, task_ids, write_config

from quest.loop.state import STAGES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory, loop_corpus: Path) -> Path:
    folder = tmp_path_factory.mktemp("loop")
    config = write_config(folder / "mini.yaml")
    out = folder / "run"
    done = run_loop_cli(out, loop_corpus, "--config", str(config))
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_every_stage_is_done_once(finished: Path) -> None:
    stages = state(finished)["stages"]
    assert list(stages) == list(STAGES)
    for name in STAGES[:-1]:
        assert stages[name]["status"] == "done", (name, stages[name]["note"])
        assert stages[name]["runs"] == 1


def test_the_report_has_each_model_and_the_difference(finished: Path) -> None:
    report = json.loads((finished / "report.json").read_text(encoding="utf-8"))
    assert set(report["models"]) == {"base", "sft", "grpo"}
    for model in report["models"].values():
        assert model["n"] == 3
        assert 0.0 <= model["mean"] <= 1.0
        low, high = model["ci95"]
        assert low <= model["mean"] <= high
        for key in ("answer_rate", "valid_turn_rate", "citation_validity"):
            assert key in model
    difference = report["difference"]
    assert difference["against"] == "base" and difference["model"] in {"sft", "grpo"}
    assert difference["n"] == 3 and len(difference["ci95"]) == 2
    assert report["bar_met"] == (difference["ci95"][0] > 0)
    assert report["config"]["model"] == "tiny"
    assert report["stages"]["gate"]["outputs"]["human_reviewed"] is False
    markdown = (finished / "report.md").read_text(encoding="utf-8")
    assert "| base (`tiny`) | 3 |" in markdown and "```yaml" in markdown
    assert "### heldout: entity-disjoint" in markdown and "### out_of_family" in markdown
    page = (finished / "report.html").read_text(encoding="utf-8")
    assert "Training curves" in page and "Held-out reward per task" in page
    # plotly is inlined, so the page opens offline: no script is loaded from anywhere
    assert not re.search(r"<script[^>]*\ssrc=", page) and "Plotly.newPlot" in page


def test_the_report_has_both_slices_with_paired_differences(finished: Path) -> None:
    report = json.loads((finished / "report.json").read_text(encoding="utf-8"))
    assert report["grpo_vs_sft"] == report["differences"]["grpo-sft"]
    assert report["grpo_vs_sft"]["n"] == 3 and len(report["grpo_vs_sft"]["ci95"]) == 2
    split = report["split"]
    assert split["out_of_family_slice"] == "chain" and split["out_of_family"] >= 1
    assert (
        split["train"] + split["heldout"] + split["dropped_mixed"] + split["out_of_family"]
        == (report["stages"]["synth"]["outputs"]["accepted"])
    )
    slices = report["slices"]
    assert set(slices) == {"heldout", "out_of_family", "practised"}
    assert slices["heldout"]["models"] == report["models"]
    assert slices["out_of_family"]["slice"] == "chain"
    for name, slice_ in slices.items():
        assert set(slice_["models"]) == {"base", "sft", "grpo"}, name
        for pair in ("grpo-sft", "sft-base"):
            difference = slice_["differences"][pair]
            assert difference["n"] == slice_["tasks"] and len(difference["ci95"]) == 2
    assert slices["out_of_family"]["tasks"] == min(2, split["out_of_family"])
    # The train tasks GRPO practised on, SFT and GRPO paired on them: does the update work?
    assert 1 <= slices["practised"]["tasks"] <= 2
    assert report["practised"]["grpo_vs_sft"] == slices["practised"]["differences"]["grpo-sft"]


def test_the_practised_slice_is_train_tasks_grpo_rolled_out_on(finished: Path) -> None:
    practised = json.loads((finished / "eval" / "grpo.practised.json").read_text())
    ids = {score["task_id"] for score in practised["scores"]}
    assert ids and ids <= task_ids(finished / "tasks" / "train.jsonl")
    rolled = {
        json.loads(line)["question"]
        for line in (finished / "runs" / "grpo" / "rollouts.jsonl").read_text().splitlines()
    }
    train = {
        r["task_id"]: r["question"]
        for r in map(json.loads, (finished / "tasks" / "train.jsonl").read_text().splitlines())
    }
    assert all(train[task_id] in rolled for task_id in ids)


def test_the_models_are_the_runs_outputs(finished: Path) -> None:
    stages = state(finished)["stages"]
    sft, grpo = stages["sft"]["outputs"], stages["grpo"]["outputs"]
    assert Path(sft["model"]) == finished / "runs" / "sft" / "final"
    assert Path(grpo["model"]) == finished / "runs" / "grpo" / "final"
    grpo_config = (finished / "runs" / "grpo" / "config.yaml").read_text(encoding="utf-8")
    assert f"model: {sft['model']}" in grpo_config  # GRPO starts from the SFT model
    evaluated = stages["evaluate"]["outputs"]["models"]
    assert {name: item["model"] for name, item in evaluated.items()} == {
        "base": "tiny",
        "sft": sft["model"],
        "grpo": grpo["model"],
    }


def test_no_training_stage_reads_a_held_out_task(finished: Path) -> None:
    held_out = task_ids(finished / "tasks" / "heldout.jsonl")
    train = task_ids(finished / "tasks" / "train.jsonl")
    assert held_out and train and not held_out & train
    for data in ("trajectories.jsonl", "sft.jsonl"):
        assert task_ids(finished / "data" / data) <= train
    rl_questions = [
        json.loads(line)["prompt"][-1]["content"]
        for line in (finished / "data" / "rl.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    questions = {
        json.loads(line)["question"]
        for line in (finished / "tasks" / "heldout.jsonl").read_text().splitlines()
    }
    assert not any(q in prompt for q in questions for prompt in rl_questions)
    evaluated = json.loads((finished / "eval" / "base.json").read_text(encoding="utf-8"))
    assert {score["task_id"] for score in evaluated["scores"]} <= held_out
    # The out-of-family slice: chains only, none of them trained on.
    family = task_ids(finished / "tasks" / "out_of_family.jsonl")
    accepted = [
        json.loads(line)
        for line in (finished / "tasks" / "accepted.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    chains = {r["task_id"] for r in accepted if r["oracle"]["family"] == "chain"}
    assert family == chains and not family & train
    evaluated = json.loads((finished / "eval" / "base.out_of_family.json").read_text())
    assert {score["task_id"] for score in evaluated["scores"]} <= family


def test_a_finished_loop_run_again_does_nothing_again(finished: Path, loop_corpus: Path) -> None:
    before = state(finished)["stages"]
    again = run_loop_cli(finished, loop_corpus)
    assert again.returncode == 0, again.stderr[-2000:]
    after = state(finished)["stages"]
    for name in STAGES[:-1]:
        assert after[name]["runs"] == before[name]["runs"] == 1


def test_the_control_benchmark_runs_both_grpo_runs_from_the_loops_sft_model(
    finished: Path, loop_corpus: Path, tmp_path: Path
) -> None:
    """benchmarks/rl_control.py on the miniature loop: the real and the shuffled-reward GRPO
    from the same SFT model, then the three models paired on tasks both runs practised."""
    out, summary = tmp_path / "control", tmp_path / "summary.json"
    command = [sys.executable, "benchmarks/rl_control.py", "--loop", str(finished)]
    command += ["--corpus", str(loop_corpus), "--out", str(out), "--steps", "2", "--tasks", "2"]
    command += ["--json", str(summary)]
    done = subprocess.run(
        command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(summary.read_text())
    assert 1 <= report["tasks"] <= 2
    assert set(report["differences"]) == {"real-sft", "control-sft", "real-control"}
    assert all(d["n"] == report["tasks"] for d in report["differences"].values())
    assert all(len(curve) == 2 for curve in report["curves"].values())
    rows = [json.loads(line) for line in (out / "control" / "rollouts.jsonl").open()]
    for step in {row["step"] for row in rows}:
        mine = [r for r in rows if r["step"] == step]
        assert sorted(r["trained_reward"] for r in mine) == sorted(r["reward"] for r in mine)
    assert "real - control interval above 0" in done.stdout
