"""Task records, the input of every dataset builder: the tasks that passed the training gate.

A record is a JSON object with `task_id` (string or integer), `question`, `rubric` (the tree:
questweb's canonical JSON, quest.rubric.export_canonical, or any shape quest.rubric imports)
and optionally `type` (default "objective") and `category`. The gate itself (accepted by an
audit, probed sound) is decided where the tasks are stored; a builder trusts its input to be
gated and only refuses records it cannot use.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quest.rubric.errors import RubricError
from quest.rubric.importers import export_canonical, import_tree
from quest.rubric.model import RubricTree
from quest.rubric.score import CompiledTree, compile_tree
from quest.training.records import DatasetError, read_jsonl

HOLDOUT_SHARE = 0.2


def held_out(task_id: int | str, share: float = HOLDOUT_SHARE) -> bool:
    """A fixed split by task id, the same in every process and every run: adding tasks never
    moves an old one across it. The app's datasets and the recipe loop both split this way."""
    digest = hashlib.sha256(f"questweb-holdout:{task_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < share


@dataclass(frozen=True)
class TrainingTask:
    task_id: str
    question: str
    compiled: CompiledTree
    type: str = "objective"
    category: str = ""

    @property
    def tree(self) -> RubricTree:
        return self.compiled.tree

    def ground_truth(self) -> str:
        """The tree as canonical JSON text: what the reward functions parse."""
        return json.dumps(export_canonical(self.tree), ensure_ascii=False)

    def needs_judge(self) -> bool:
        """Whether a leaf can only be decided by an LLM judge."""
        return any(
            node.check is not None and node.check.kind == "judge" for node in self.tree.nodes()
        )


def task_from_record(record: Mapping[str, Any]) -> TrainingTask:
    """A TrainingTask, or DatasetError saying what the record lacks."""
    task_id = record.get("task_id")
    if isinstance(task_id, bool) or not isinstance(task_id, str | int) or str(task_id) == "":
        raise DatasetError("task_id must be a non-empty string or an integer")
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DatasetError(f"task {task_id}: question must be a non-empty string")
    if "rubric" not in record:
        raise DatasetError(f"task {task_id}: no rubric")
    try:
        compiled = compile_tree(import_tree(record["rubric"]).tree)
    except RubricError as error:
        raise DatasetError(f"task {task_id}: rubric: {error.summary()}") from None
    return TrainingTask(
        task_id=str(task_id),
        question=question.strip(),
        compiled=compiled,
        type=_text(record, "type", "objective", task_id),
        category=_text(record, "category", "", task_id),
    )


def _text(record: Mapping[str, Any], key: str, default: str, task_id: object) -> str:
    value = record.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise DatasetError(f"task {task_id}: {key} must be a string")
    return value


def read_tasks(path: str | Path) -> list[TrainingTask]:
    """Every task of a JSONL file, in order; DatasetError names the line of the first bad
    record or repeated task id."""
    return list(_tasks(read_jsonl(path), str(path)))


def _tasks(lines: Iterable[tuple[int, dict[str, Any]]], name: str) -> Iterator[TrainingTask]:
    seen: dict[str, int] = {}
    for number, record in lines:
        try:
            task = task_from_record(record)
        except DatasetError as error:
            raise DatasetError(f"{name}:{number}: {error}") from None
        if task.task_id in seen:
            first = seen[task.task_id]
            raise DatasetError(f"{name}:{number}: task_id {task.task_id} repeats line {first}")
        seen[task.task_id] = number
        yield task
