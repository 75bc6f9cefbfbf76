from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from training_helpers import AUSTRALIA, TASKS, capital_tree, task, write_jsonl

from quest.agent import RunResult
from quest.rewards import compute_score
from quest.rubric import loads_tree
from quest.tools import Toolbox
from quest.training import (
    CORPUS_TOOLS,
    DatasetError,
    build_rl,
    read_tasks,
    task_from_record,
    write_rl,
)

CORRECT = (
    "<answer>Canberra is the capital city of Australia [1].\n\n"
    "[1] https://en.wikipedia.org/wiki/Canberra</answer>"
)


def test_each_prompt_is_the_one_the_agent_loop_starts_a_rollout_with(
    runs: dict[str, RunResult], toolbox: Toolbox
) -> None:
    assert toolbox.names() == CORPUS_TOOLS
    row = build_rl([task_from_record(TASKS[0])]).rows[0]
    assert row["prompt"] == runs["aus-1"].trajectory.segments[0].prompt_messages


def test_a_row_carries_its_task_and_the_tree_as_ground_truth(tasks_file: Path) -> None:
    tasks = read_tasks(tasks_file)
    row = build_rl(tasks).rows[0]
    assert (row["task_id"], row["question"], row["category"]) == ("australia", AUSTRALIA, "Travel")
    assert loads_tree(row["ground_truth"]).tree == tasks[0].tree
    assert row["ground_truth"] == tasks[0].ground_truth()


def test_tasks_only_a_judge_could_score_are_left_out_and_said_why(tasks_file: Path) -> None:
    built = build_rl(read_tasks(tasks_file))
    assert [row["task_id"] for row in built.rows] == ["australia", "france", "australia-melbourne"]
    assert [task_id for task_id, _ in built.skipped] == ["judged"]
    assert "judge" in built.skipped[0][1]


def test_the_verl_parquet_reads_back_and_scores_with_compute_score(
    tasks_file: Path, tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_rl(read_tasks(tasks_file))
    out = tmp_path / "rl.parquet"
    assert write_rl(out, built.rows) == 3
    table = pq.read_table(out)
    assert table.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    rows = table.to_pylist()
    assert rows[0]["prompt"] == built.rows[0]["prompt"]
    assert rows[0]["reward_model"] == {
        "style": "rule",
        "ground_truth": built.rows[0]["ground_truth"],
    }
    assert [(r["extra_info"]["task_id"], r["extra_info"]["index"]) for r in rows] == [
        ("australia", 0),
        ("france", 1),
        ("australia-melbourne", 2),
    ]
    monkeypatch.setenv("QUESTWEB_CORPUS_DIR", str(corpus))
    scores = [
        compute_score(r["data_source"], CORRECT, r["reward_model"]["ground_truth"], r["extra_info"])
        for r in rows
    ]
    assert [s["score"] for s in scores] == [1.0, 0.0, 0.0]


def test_the_trl_jsonl_loads_as_a_dataset_with_the_ground_truth_column(
    tasks_file: Path, tmp_path: Path
) -> None:
    import datasets

    out = tmp_path / "rl.jsonl"
    built = build_rl(read_tasks(tasks_file))
    write_rl(out, built.rows)
    loaded = datasets.load_dataset(
        "json", data_files=str(out), split="train", cache_dir=str(tmp_path)
    )
    assert loaded.num_rows == 3
    assert loaded[1]["prompt"] == built.rows[1]["prompt"]
    assert loaded[1]["ground_truth"] == built.rows[1]["ground_truth"]


def test_an_empty_task_list_writes_an_empty_parquet_with_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "rl.parquet"
    assert write_rl(out, []) == 0
    assert pq.read_table(out).num_rows == 0


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"question": AUSTRALIA, "rubric": capital_tree(AUSTRALIA, "Canberra")}, "task_id"),
        ({"task_id": True, "question": AUSTRALIA, "rubric": {}}, "task_id"),
        (task("t", " ", capital_tree(AUSTRALIA, "Canberra")), "question"),
        ({"task_id": "t", "question": AUSTRALIA}, "no rubric"),
        (task("t", AUSTRALIA, {"format": "questweb.rubric/1", "root": {}}), "rubric"),
        (task("t", AUSTRALIA, capital_tree(AUSTRALIA, "Canberra"), type=3), "type"),  # type: ignore[arg-type]
    ],
)
def test_a_task_record_that_cannot_be_used_is_refused_with_its_line(
    record: dict[str, object], message: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "tasks.jsonl", [TASKS[0], record])
    with pytest.raises(DatasetError, match=f"tasks.jsonl:2: .*{message}"):
        read_tasks(path)


def test_a_repeated_task_id_is_refused(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tasks.jsonl", [TASKS[0], TASKS[1], TASKS[0]])
    with pytest.raises(DatasetError, match=r"tasks\.jsonl:3: task_id australia repeats line 1"):
        read_tasks(path)


def test_an_integer_task_id_becomes_text(tmp_path: Path) -> None:
    record = {**TASKS[0], "task_id": 17}
    assert task_from_record(json.loads(json.dumps(record))).task_id == "17"
