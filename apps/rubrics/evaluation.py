"""Scoring answers against a task's tree: verdict maps, and free-text answers with rewards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apps.accounts.models import User
from apps.rubrics import selectors

MAX_ANSWER_CHARS = 200_000


@dataclass(frozen=True)
class TryResult:
    tree: dict[str, Any]
    node_results: dict[str, dict[str, Any]]
    reward: dict[str, Any]
    complete: bool
    errored: list[str]


def task_try_answer(*, user: User, task_id: int, answer: str) -> TryResult:
    task = selectors.task_get(user=user, task_id=task_id)
    raise NotImplementedError(task)
