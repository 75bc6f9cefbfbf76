"""The loop's command line and config: bad input is one clear error, a resumed loop keeps its
settings, the human gate waits for decisions, and the state file survives what it should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from loop_helpers import run_loop_cli, state, write_config

from quest.loop.config import LoopConfig, LoopError, changed_fields, parse_loop_config
from quest.loop.data_stages import GateWaiting, StageFailed, gate_stage, paths
from quest.loop.state import LoopState, StageState
from quest.training.records import write_jsonl


def test_the_defaults_are_the_cpu_hour() -> None:
    config = LoopConfig()
    assert config.minutes == 140 and config.synth.tasks == 220 and config.eval.tasks == 60
    assert config.synth.split == "worlds" and config.synth.heldout_tasks == 100
    assert config.model == "smollm2" and config.gate == "human"
    assert config.budgets().max_turns == config.rollout.max_turns


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"minutes": 0}, "minutes: Input should be greater than 0"),
        ({"synth": {"tasks": 1}}, "synth.tasks"),
        ({"gate": "nobody"}, "gate:"),
        ({"bogus": 1}, "bogus: unknown field"),
        ({"sft": {"share": 0.7}, "grpo": {"share": 0.5}}, "grpo.share must be above sft.share"),
        ({"grpo": {"params": {"num_generations": 1}}}, "grpo.params.num_generations"),
        ([1, 2], "mapping"),
    ],
)
def test_a_bad_config_names_its_field(data: object, message: str) -> None:
    with pytest.raises(LoopError, match=message.replace(".", r"\.")):
        parse_loop_config(data)


def test_a_section_given_in_part_keeps_the_loops_other_defaults() -> None:
    config = parse_loop_config(
        {"sft": {"params": {"max_length": 1024}}, "rollout": {"max_turns": 2}}
    )
    defaults = LoopConfig()
    assert config.sft.params.max_length == 1024
    assert config.sft.params.learning_rate == defaults.sft.params.learning_rate
    assert config.sft.max_steps == defaults.sft.max_steps
    assert config.rollout.max_turns == 2
    assert config.rollout.max_tool_chars == defaults.rollout.max_tool_chars
    with pytest.raises(LoopError, match=r"sft\.params\.bogus: unknown field"):
        parse_loop_config({"sft": {"params": {"bogus": 1}}})


def test_only_the_budget_may_change_on_resume() -> None:
    saved = parse_loop_config({"seed": 1})
    assert changed_fields(saved, parse_loop_config({"seed": 1, "minutes": 240})) == []
    changed = changed_fields(saved, parse_loop_config({"seed": 2, "synth": {"tasks": 9}}))
    assert changed == ["seed", "synth.tasks"]


def test_the_cli_refuses_other_settings_for_a_started_loop(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "loop.yaml").write_text("seed: 1\ngate: auto-accept-sound\n")
    refused = run_loop_cli(out, tmp_path, "--seed", "2")
    assert refused.returncode == 1
    assert "holds a loop started with other settings (seed)" in refused.stderr
    printed = run_loop_cli(out, tmp_path, "--minutes", "90", "--print-config")
    assert printed.returncode == 0, printed.stderr
    assert "minutes: 90.0" in printed.stdout and "seed: 1" in printed.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--tasks", "1"), "synth.tasks: Input should be greater than or equal to 2"),
        (("--minutes", "-5"), "minutes: Input should be greater than 0"),
        (("--config", "/nonexistent/loop.yaml"), "/nonexistent/loop.yaml"),
    ],
)
def test_bad_options_are_one_line_errors(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    done = run_loop_cli(tmp_path / "run", tmp_path, *args)
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_corpus_without_an_index_is_refused_before_any_work(tmp_path: Path) -> None:
    done = run_loop_cli(tmp_path / "run", tmp_path, "--auto-accept-sound")
    assert done.returncode == 1 and "no BM25 index" in done.stderr
    assert not (tmp_path / "run" / "state.json").exists()


def test_an_out_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    done = run_loop_cli(tmp_path / "file", tmp_path)
    assert done.returncode == 1 and "not a directory" in done.stderr


def _synthesized(directory: Path) -> None:
    """What the synth stage leaves: three accepted tasks, one held out."""
    where = paths(directory)
    for folder in ("tasks", "gate"):
        (directory / folder).mkdir(parents=True, exist_ok=True)
    tree = {
        "root": {"id": "r", "description": "Paris", "check": {"kind": "mentions", "value": "Paris"}}
    }
    records = [{"task_id": f"t{i}", "question": f"Q{i}?", "rubric": tree} for i in range(3)]
    write_jsonl(where["accepted"], records)
    split = {"t0": "train", "t1": "train", "t2": "heldout"}
    where["split"].write_text(json.dumps({"split": split, "classes": {}}))


def test_the_human_gate_waits_then_takes_the_audited_tasks(tmp_path: Path) -> None:
    _synthesized(tmp_path)
    config = parse_loop_config({"gate": "human"})
    with pytest.raises(GateWaiting, match=r"accepted\.txt"):
        gate_stage(tmp_path, config, print)
    decisions = paths(tmp_path)["decisions"]
    decisions.write_text("t0\n\nt2\n")
    outputs = gate_stage(tmp_path, config, print)
    assert outputs["human_reviewed"] is True and outputs["rejected"] == 1
    train = paths(tmp_path)["train"].read_text()
    assert '"t0"' in train and '"t1"' not in train  # t1 was not accepted by the audit
    decisions.write_text("t0\nsomeone-elses-task\n")
    with pytest.raises(StageFailed, match="not tasks of this loop: someone-elses-task"):
        gate_stage(tmp_path, config, print)


def test_the_auto_gate_records_that_no_human_looked(tmp_path: Path) -> None:
    _synthesized(tmp_path)
    outputs = gate_stage(tmp_path, parse_loop_config({"gate": "auto-accept-sound"}), print)
    assert outputs["mode"] == "auto-accept-sound" and outputs["human_reviewed"] is False
    recorded = json.loads(paths(tmp_path)["gate"].read_text())
    assert recorded["human_reviewed"] is False and "no human looked" in recorded["note"]
    assert (outputs["train"], outputs["heldout"]) == (2, 1)


def test_the_cli_exits_3_while_the_human_gate_waits(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _synthesized(out)
    write_config(tmp_path / "c.yaml", gate="human")
    loop = LoopState.load(out)
    loop.stages["synth"] = StageState(status="done")
    loop.save()
    corpus = tmp_path / "corpus"
    (corpus / "index" / "bm25").mkdir(parents=True)
    done = run_loop_cli(out, corpus, "--config", str(tmp_path / "c.yaml"))
    assert done.returncode == 3, done.stderr
    assert state(out)["stages"]["gate"]["status"] == "waiting"
    assert "auto-accept-sound" in done.stderr


def test_a_broken_state_file_is_an_error_not_a_fresh_start(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a loop state"):
        LoopState.load(tmp_path)


def test_reentering_a_stage_resets_the_later_ones(tmp_path: Path) -> None:
    loop = LoopState.load(tmp_path)
    for name in loop.stages:
        loop.stages[name] = StageState(status="done", runs=1)
    loop.reset_after("sft")
    assert [s.status for s in loop.stages.values()] == ["done"] * 4 + ["pending"] * 3
