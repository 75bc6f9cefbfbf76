from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from training_helpers import (
    AUSTRALIA,
    SMALL,
    TASKS,
    RecordingScriptedPolicy,
    RejectingJudgeStandIn,
    write_jsonl,
)

from quest.agent import ScriptedPolicy
from quest.cli import main
from quest.corpus import CorpusStore
from quest.tools import Toolbox
from quest.training import (
    CollectReport,
    SFTBuilder,
    TrainingTask,
    collect,
    read_jsonl,
    read_rollouts,
    task_from_record,
)
from quest.training.collect import HINT_HEAD

MELBOURNE_LEAF = "The answer names Melbourne as the capital"


@pytest.fixture(scope="module")
def tasks() -> dict[str, TrainingTask]:
    return {record["task_id"]: task_from_record(record) for record in TASKS}


@pytest.fixture(scope="module")
def store(corpus: Path) -> CorpusStore:
    return CorpusStore(corpus)


class Collected:
    """What collect hands its caller: each rollout's records, in order."""

    def __init__(self) -> None:
        self.rollouts: list[list[dict[str, Any]]] = []

    def __call__(self, records: list[dict[str, Any]], kept: bool) -> None:
        assert records[0]["kept"] is kept
        self.rollouts.append(records)

    @property
    def headers(self) -> list[dict[str, Any]]:
        return [records[0] for records in self.rollouts]

    def records(self) -> list[dict[str, Any]]:
        return [record for records in self.rollouts for record in records]


@pytest.fixture(scope="module")
def hinted_run(
    tasks: dict[str, TrainingTask], toolbox: Toolbox, store: CorpusStore
) -> tuple[CollectReport, Collected, set[str]]:
    """Two attempts at a task the agent solves and at one whose tree wants another city, with
    budgets that condense after most turns (so the records hold condenser pairs)."""
    collected, seen = Collected(), set[str]()
    report = collect(
        [tasks["australia"], tasks["australia-melbourne"]],
        policy_factory=lambda: RecordingScriptedPolicy(seen),
        toolbox=toolbox,
        attempts=2,
        budgets=SMALL,
        store=store,
        group_prefix="g/",
        on_rollout=collected,
    )
    return report, collected, seen


def test_collect_keeps_only_the_rollouts_that_reach_the_threshold(
    tasks: dict[str, TrainingTask], toolbox: Toolbox, store: CorpusStore
) -> None:
    collected = Collected()
    report = collect(
        tasks.values(),
        policy_factory=ScriptedPolicy,
        toolbox=toolbox,
        store=store,
        hint_retry=False,
        on_rollout=collected,
    )
    kept = {h["task_id"]: h["kept"] for h in collected.headers}
    assert kept == {
        "australia": True,
        "france": True,
        "australia-melbourne": False,
        "judged": False,
    }
    summary = report.to_json()
    assert (summary["rollouts"], summary["kept"], summary["below_threshold"]) == (4, 2, 1)
    assert (summary["dropped"], summary["hinted"], summary["tasks_with_a_kept_rollout"]) == (
        1,
        0,
        2,
    )
    rewards = [h["reward"]["reward"] for h in collected.headers if not h["reward"]["dropped"]]
    assert summary["mean_reward"] == pytest.approx(sum(rewards) / 3)


def test_a_tasks_attempts_share_a_group_and_each_has_its_own_rollout_id(
    hinted_run: tuple[CollectReport, Collected, set[str]],
) -> None:
    _, collected, _ = hinted_run
    headers = [h for h in collected.headers if h["task_id"] == "australia"]
    assert [h["rollout_id"] for h in headers] == ["australia-a1", "australia-a2"]
    assert {h["group_id"] for h in headers} == {"g/australia"}
    assert all(h["kind"] == "rollout" and h["hinted"] is False for h in headers)
    assert all(h["question"] == AUSTRALIA and h["status"] == "answered" for h in headers)


def test_a_task_with_no_kept_attempt_is_retried_once_with_the_leaves_it_failed_as_a_hint(
    hinted_run: tuple[CollectReport, Collected, set[str]],
) -> None:
    report, collected, seen = hinted_run
    hinted = [h for h in collected.headers if h["hinted"]]
    assert [h["rollout_id"] for h in hinted] == ["australia-melbourne-hint"]
    assert hinted[0]["group_id"] == "g/australia-melbourne" and hinted[0]["kept"] is False
    assert (report.rollouts, report.hinted, report.hinted_kept) == (5, 1, 0)
    assert f"{AUSTRALIA}\n\n{HINT_HEAD}\n- {MELBOURNE_LEAF}" in seen
    # The citation leaf was skipped once the critical one failed: not a failure to name.
    assert not any("The answer cites its sources" in m for m in seen)


def test_the_recorded_hinted_rollout_asks_the_original_question(
    hinted_run: tuple[CollectReport, Collected, set[str]],
) -> None:
    _, collected, _ = hinted_run
    [records] = [r for r in collected.rollouts if r[0]["hinted"]]
    segments = [r for r in records if r["kind"] == "segment"]
    condensations = [r for r in records if r["kind"] == "condensation"]
    assert len(segments) > 1 and condensations
    assert records[0]["question"] == AUSTRALIA
    assert all(r["question"] == AUSTRALIA for r in condensations)
    prompts = [m["content"] for r in segments for m in r["prompt_messages"]]
    assert not any(HINT_HEAD in text or MELBOURNE_LEAF in text for text in prompts)
    assert all(r["prompt_messages"][1]["content"].startswith(AUSTRALIA) for r in segments)


def test_no_hint_retry_when_it_is_turned_off_or_the_tree_could_not_be_checked(
    tasks: dict[str, TrainingTask], toolbox: Toolbox, store: CorpusStore
) -> None:
    off = collect(
        [tasks["australia-melbourne"]],
        policy_factory=ScriptedPolicy,
        toolbox=toolbox,
        hint_retry=False,
    )
    # Without a judge no leaf of the judged tree is decided, so no leaf can be named in a hint.
    undecided = collect([tasks["judged"]], policy_factory=ScriptedPolicy, toolbox=toolbox)
    assert (off.rollouts, off.hinted, undecided.rollouts, undecided.dropped) == (1, 0, 1, 1)


def test_with_a_judge_a_judge_leaf_that_failed_becomes_the_hint(
    tasks: dict[str, TrainingTask], toolbox: Toolbox
) -> None:
    seen: set[str] = set()
    report = collect(
        [tasks["judged"]],
        policy_factory=lambda: RecordingScriptedPolicy(seen),
        toolbox=toolbox,
        judge=RejectingJudgeStandIn(),
    )
    assert (report.rollouts, report.dropped, report.hinted) == (2, 0, 1)
    leaf = "The answer explains why the capital was chosen"
    assert f"{AUSTRALIA}\n\n{HINT_HEAD}\n- {leaf}" in seen


def test_the_sft_builder_uses_collects_output_with_its_recorded_rewards(
    hinted_run: tuple[CollectReport, Collected, set[str]],
    tasks: dict[str, TrainingTask],
    tmp_path: Path,
) -> None:
    report, collected, _ = hinted_run
    path = write_jsonl(tmp_path / "trajectories.jsonl", collected.records())
    builder = SFTBuilder(tasks=tasks.values(), min_reward=0.5)
    rows = list(builder.rows(read_rollouts(read_jsonl(path))))
    assert (builder.report.rollouts, builder.report.kept) == (report.rollouts, report.kept)
    kept = {h["rollout_id"]: h["reward"]["reward"] for h in collected.headers if h["kept"]}
    assert {row["rollout_id"] for row in rows} == set(kept)
    assert all(row["reward"] == kept[row["rollout_id"]] for row in rows)
    everything = SFTBuilder(tasks=tasks.values(), min_reward=0.0)
    hinted = [
        r for r in everything.rows(read_rollouts(read_jsonl(path))) if "hint" in r["rollout_id"]
    ]
    assert hinted and all(row["messages"][1]["content"].startswith(AUSTRALIA) for row in hinted)


def test_a_stop_ends_collect_after_the_rollout_it_was_in(
    tasks: dict[str, TrainingTask], toolbox: Toolbox
) -> None:
    collected = Collected()
    report = collect(
        tasks.values(),
        policy_factory=ScriptedPolicy,
        toolbox=toolbox,
        attempts=2,
        on_rollout=collected,
        should_stop=lambda: bool(collected.rollouts),
    )
    assert (report.rollouts, report.tasks, len(collected.rollouts)) == (1, 0, 1)
    with pytest.raises(ValueError, match="attempts"):
        collect([], policy_factory=ScriptedPolicy, toolbox=toolbox, attempts=0)


def run_collect(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["dataset", "collect", *argv])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else None, captured.err


def test_collect_writes_every_rollout_for_the_sft_builder(
    tasks_file: Path, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "trajectories.jsonl"
    argv = [str(tasks_file), "--out", str(out), "--corpus", str(corpus), "--attempts", "2"]
    code, summary, err = run_collect(argv, capsys)
    assert code == 0
    assert (summary["tasks"], summary["rollouts"], summary["kept"], summary["hinted"]) == (
        4,
        9,
        4,
        1,
    )
    headers = [r for r in map(json.loads, out.read_text().splitlines()) if r["kind"] == "rollout"]
    assert len(headers) == 9 and sum(h["kept"] for h in headers) == 4
    assert "collect: task australia australia-a1: reward" in err
    sft = tmp_path / "sft.jsonl"
    code = main(["dataset", "sft", str(out), "--tasks", str(tasks_file), "--out", str(sft)])
    assert code == 0 and json.loads(capsys.readouterr().out)["kept"] == 4


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["missing.jsonl"], "missing.jsonl"),
        (["{tasks}", "--attempts", "0"], "--attempts must be at least 1"),
        (["{tasks}", "--policy", "nonsense"], "policy 'nonsense': unknown LLM backend"),
        (["{tasks}", "--policy", "http://"], "policy 'http://'"),
    ],
)
def test_collect_refuses_bad_input_with_one_line_and_writes_nothing(
    argv: list[str],
    problem: str,
    tasks_file: Path,
    corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "trajectories.jsonl"
    filled = [arg.replace("{tasks}", str(tasks_file)) for arg in argv]
    code, _, err = run_collect([*filled, "--out", str(out), "--corpus", str(corpus)], capsys)
    assert code == 1 and not out.exists()
    assert err.startswith("error: ") and problem in err and err.count("\n") == 1
