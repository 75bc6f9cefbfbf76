from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from training_helpers import AUSTRALIA, SMALL, TASKS, SlipsOnce, rollout_file, write_jsonl

from quest.agent import RunResult, Trajectory, run_agent
from quest.agent.state import BLOCK_TITLE
from quest.corpus.store import CorpusStore
from quest.rubric import Reward
from quest.tools import Toolbox
from quest.training import (
    DatasetError,
    Rollout,
    SFTBuilder,
    read_jsonl,
    read_rollouts,
    read_tasks,
    task_from_record,
)


def rollouts(path: Path) -> list[Rollout]:
    return list(read_rollouts(read_jsonl(path)))


def build(path: Path, tasks: Path | None, corpus: Path | None, **options: Any) -> SFTBuilder:
    return SFTBuilder(
        tasks=read_tasks(tasks) if tasks else None,
        store=CorpusStore(corpus) if corpus else None,
        **options,
    )


def sft_rows(builder: SFTBuilder, path: Path) -> list[dict[str, Any]]:
    return list(builder.rows(rollouts(path)))


def test_a_trajectory_reads_back_as_it_was_recorded(runs: dict[str, RunResult]) -> None:
    trajectory = runs["aus-1"].trajectory
    records = json.loads("[" + ",".join(trajectory.to_jsonl().splitlines()) + "]")
    again = Trajectory.from_records("aus-1", records)
    assert again.to_jsonl() == trajectory.to_jsonl()


def test_every_session_is_one_row_starting_from_the_prompt_the_policy_saw(
    runs: dict[str, RunResult], rollouts_file: Path, tasks_file: Path, corpus: Path
) -> None:
    builder = build(rollouts_file, tasks_file, corpus)
    rows = [r for r in sft_rows(builder, rollouts_file) if r["rollout_id"] == "aus-1"]
    segments = runs["aus-1"].trajectory.segments
    assert len(segments) >= 3 and len(rows) == len(segments)
    assert [r["session"] for r in rows] == list(range(len(segments)))
    for row, segment in zip(rows, segments, strict=True):
        messages = [{"role": m["role"], "content": m["content"]} for m in row["messages"]]
        model_turns = [i for i, m in enumerate(row["messages"]) if m["role"] == "assistant"]
        # the messages before each model turn are exactly what the policy was given
        for k, position in enumerate(model_turns):
            assert messages[:position] == segment.messages_at(k)
        assert row["sessions"] == len(segments)
    assert BLOCK_TITLE not in rows[0]["messages"][1]["content"]
    assert all(BLOCK_TITLE in row["messages"][1]["content"] for row in rows[1:])


def test_only_the_models_turns_carry_loss(rollouts_file: Path, tasks_file: Path) -> None:
    rows = sft_rows(build(rollouts_file, tasks_file, None), rollouts_file)
    assert rows
    for row in rows:
        assert [m["loss"] for m in row["messages"]] == [
            m["role"] == "assistant" for m in row["messages"]
        ]
        assert row["messages"][0]["role"] == "system" and not row["messages"][1]["loss"]


def test_a_turn_that_broke_the_protocol_stays_in_context_without_loss(
    toolbox: Toolbox, tmp_path: Path, tasks_file: Path
) -> None:
    result = run_agent(
        AUSTRALIA, policy=SlipsOnce(), toolbox=toolbox, budgets=SMALL, rollout_id="slip"
    )
    path = rollout_file(tmp_path / "slip.jsonl", [(result, {"task_id": "australia"})])
    first = sft_rows(build(path, tasks_file, None), path)[0]
    slip, reminder, call = first["messages"][2:5]
    assert (slip["role"], slip["loss"]) == ("assistant", False)
    assert reminder["content"].startswith("[reminder]") and not reminder["loss"]
    assert (call["role"], call["loss"]) == ("assistant", True)


def test_rollouts_below_the_threshold_are_rejected(
    rollouts_file: Path, tasks_file: Path, corpus: Path
) -> None:
    builder = build(rollouts_file, tasks_file, corpus, min_reward=0.5)
    kept = {row["task_id"] for row in sft_rows(builder, rollouts_file)}
    assert kept == {"australia", "france"}
    report = builder.report.to_json()
    assert report == {
        "rollouts": 5,
        "kept": 3,
        "rows": report["rows"],
        "below_threshold": 1,  # the tree that wants Melbourne
        "dropped": 1,  # the tree only a judge decides: its verifier cannot run
        "not_gated": 0,
    }
    best = max(
        row["reward"] for row in sft_rows(build(rollouts_file, tasks_file, corpus), rollouts_file)
    )
    strict = build(rollouts_file, tasks_file, corpus, min_reward=best + 0.01)
    assert not sft_rows(strict, rollouts_file)
    assert strict.report.below_threshold == 4


def test_every_row_carries_its_ids_the_reward_and_its_components(
    rollouts_file: Path, tasks_file: Path, corpus: Path
) -> None:
    rows = sft_rows(build(rollouts_file, tasks_file, corpus), rollouts_file)
    first = rows[0]
    assert (first["rollout_id"], first["task_id"], first["group_id"]) == (
        "aus-1",
        "australia",
        "g-australia",
    )
    parts = first["reward_components"]
    assert (parts["base"], parts["reason"]) == (1.0, "")
    assert parts["citation"] == pytest.approx(0.25 * parts["valid_rate"])
    assert first["reward"] == pytest.approx(0.75 + parts["citation"])
    france = next(row for row in rows if row["task_id"] == "france")
    assert france["group_id"] == "france"  # no group recorded: the task's rollouts are one


def test_only_rollouts_of_gated_tasks_are_kept(
    rollouts_file: Path, tmp_path: Path, corpus: Path
) -> None:
    gated = write_jsonl(tmp_path / "gated.jsonl", [TASKS[1]])
    builder = build(rollouts_file, gated, corpus)
    assert {row["task_id"] for row in sft_rows(builder, rollouts_file)} == {"france"}
    assert builder.report.not_gated == 4


def test_a_rollout_without_a_header_is_matched_to_its_task_by_question(
    runs: dict[str, RunResult], tmp_path: Path, corpus: Path
) -> None:
    path = tmp_path / "trajectory.jsonl"
    runs["fra-1"].trajectory.write_jsonl(path)  # as `python -m quest agent run --trajectory`
    rows = sft_rows(build(path, None, corpus), path)
    assert rows == []  # no tasks, no recorded reward: nothing to judge it by
    gated = write_jsonl(tmp_path / "tasks.jsonl", TASKS[:2])
    rows = sft_rows(build(path, gated, corpus), path)
    assert {(r["task_id"], r["group_id"]) for r in rows} == {("france", "france")}


def test_a_question_two_tasks_share_matches_neither(
    runs: dict[str, RunResult], tmp_path: Path, tasks_file: Path
) -> None:
    path = tmp_path / "trajectory.jsonl"
    runs["aus-1"].trajectory.write_jsonl(path)
    builder = build(path, tasks_file, None)
    assert sft_rows(builder, path) == []
    assert builder.report.not_gated == 1


def test_a_recorded_reward_is_used_as_it_was_given(
    runs: dict[str, RunResult], tmp_path: Path
) -> None:
    recorded = Reward(0.9, 1.0, 0.6, (), "")
    path = rollout_file(
        tmp_path / "scored.jsonl",
        [
            (runs["fra-1"], {"task_id": "france", "reward": recorded}),
            (runs["aus-1"], {"task_id": "australia", "reward": Reward(None, None, 0.0, (), "x")}),
        ],
    )
    builder = build(path, None, None)
    rows = sft_rows(builder, path)
    assert {r["task_id"] for r in rows} == {"france"}
    assert rows[0]["reward"] == 0.9
    assert rows[0]["reward_components"]["citation"] == pytest.approx(0.15)
    assert builder.report.dropped == 1


def test_two_runs_sharing_a_rollout_id_are_read_as_two_rollouts(
    runs: dict[str, RunResult], tmp_path: Path
) -> None:
    path = tmp_path / "twice.jsonl"
    path.write_text(runs["aus-1"].trajectory.to_jsonl() * 2, encoding="utf-8")
    read = rollouts(path)
    assert [r.rollout_id for r in read] == ["aus-1", "aus-1"]
    assert len(read[1].segments) == len(runs["aus-1"].trajectory.segments)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"kind": "step", "rollout_id": "r"}, "input:1: kind must be one of"),
        ({"kind": "segment"}, "input:1: rollout_id"),
        ({"kind": "segment", "rollout_id": "r", "segment": 0}, "input:1: rollout r: malformed"),
        ({"kind": "rollout", "rollout_id": "r"}, "input:1: rollout r: no segment records"),
    ],
)
def test_a_record_that_cannot_be_read_is_refused_with_its_line(
    record: dict[str, Any], message: str
) -> None:
    with pytest.raises(DatasetError, match=message):
        list(read_rollouts([(1, record)]))


def test_the_reward_threshold_can_keep_everything_that_was_not_dropped(
    rollouts_file: Path, tasks_file: Path, corpus: Path
) -> None:
    builder = build(rollouts_file, tasks_file, corpus, min_reward=0.0)
    assert {r["task_id"] for r in sft_rows(builder, rollouts_file)} == {
        "australia",
        "france",
        "australia-melbourne",
    }
    assert task_from_record(TASKS[3]).needs_judge()
