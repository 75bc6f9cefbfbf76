"""Signal in every GRPO step: dynamic sampling (DAPO) and a curriculum of informative tasks.

A group whose rollouts all earned the same reward has advantage 0 on every row: it costs its
rollouts and teaches nothing. Two things keep such groups out of the trained batch:

- **Curriculum.** `Curriculum` keeps, per task, what the current policy's last group on it
  earned (prior: the collection's estimate when the RL row carries `pass_rate`). Before a step
  rolls out, a prompt whose task was all-equal the last time it was seen is swapped for a task
  the policy sometimes solves (mixed rewards last time) or has not been seen yet; a swapped
  task comes back once the others have been tried (its estimate is refreshed by the next group).
- **Dynamic sampling.** After the rollouts, each all-equal group is dropped and replaced by a
  fresh group of another task, for at most `rounds` extra rounds of rollouts; groups still
  all-equal after that stay in the batch (their advantage is 0, so they add no gradient) and are
  counted.

Logged per step: `dynamic/dropped_groups` (all-equal groups among all groups rolled out),
`dynamic/zero_std_trained` (all-equal groups left in the trained batch), `dynamic/extra_groups`
(groups rolled out to replace dropped ones) and `dynamic/swapped` (prompts the curriculum
swapped before rolling out).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# A group's advantages are (reward - group mean) / (group std + 1e-4): all-equal rewards give
# advantages within rounding of 0, any two rewards apart by 0.001 or more give some above 0.1.
EQUAL = 1e-3
# Steps after which a task seen all-equal is worth another group (the policy has moved).
REVISIT_STEPS = 10


def all_equal(values: Sequence[float | None], tolerance: float = EQUAL) -> bool:
    """Whether a group's advantages (or rewards) leave nothing to learn."""
    scored = [v for v in values if v is not None]
    return len(scored) < 2 or max(scored) - min(scored) <= tolerance


@dataclass
class TaskRecord:
    groups: int = 0
    mixed: bool | None = None  # None: never rolled out by this run
    step: int = 0  # the step of its last group


@dataclass
class Curriculum:
    """What the policy's groups earned on each task, by the task's row index in the dataset."""

    size: int
    seed: int = 0
    revisit: int = REVISIT_STEPS
    step: int = 0  # the trainer's step, set before each
    records: dict[int, TaskRecord] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def prior(self, index: int, pass_rate: float | None) -> None:
        """An estimate from outside the run (collection): 0 or 1 counts as all-equal."""
        if pass_rate is None or not math.isfinite(pass_rate):
            return
        self.records[index] = TaskRecord(0, 0.0 < pass_rate < 1.0, self.step)

    def record(self, index: int, advantages: Sequence[float | None]) -> None:
        record = self.records.setdefault(index, TaskRecord())
        record.groups += 1
        record.mixed = not all_equal(advantages)
        record.step = self.step

    def informative(self, index: int) -> bool:
        """Worth a group: mixed last time, not seen yet, or seen all-equal long enough ago."""
        record = self.records.get(index)
        if record is None or record.mixed is None or record.mixed:
            return True
        return self.step - record.step >= self.revisit

    def pick(self, count: int, avoid: set[int]) -> list[int]:
        """Up to `count` distinct informative tasks not in `avoid`: mixed ones first (the
        policy sometimes solves them), then unseen ones, each kind in random order."""
        mixed, unseen = [], []
        for index in range(self.size):
            if index in avoid:
                continue
            record = self.records.get(index)
            if record is not None and record.mixed:
                mixed.append(index)
            elif self.informative(index):
                unseen.append(index)
        self.rng.shuffle(mixed)
        self.rng.shuffle(unseen)
        return (mixed + unseen)[:count]

    def summary(self) -> dict[str, int]:
        seen = [r for r in self.records.values() if r.mixed is not None]
        return {
            "tasks": self.size,
            "seen": len(seen),
            "mixed": sum(bool(r.mixed) for r in seen),
        }


@dataclass
class StepBooks:
    """What dynamic sampling did in one step."""

    groups: int = 0  # groups rolled out
    dropped: int = 0  # of those, all-equal ones replaced
    extra: int = 0  # groups rolled out as replacements
    swapped: int = 0  # prompts swapped by the curriculum before rolling out
    kept_equal: int = 0  # all-equal groups left in the trained batch
    trained_groups: int = 0

    def metrics(self) -> dict[str, float]:
        return {
            "dynamic/dropped_groups": self.dropped / max(self.groups, 1),
            "dynamic/zero_std_trained": self.kept_equal / max(self.trained_groups, 1),
            "dynamic/extra_groups": float(self.extra),
            "dynamic/swapped": float(self.swapped),
        }


def row_index(row: dict[str, Any], by_id: dict[str, int]) -> int | None:
    """A dataset row's index, found by its task id."""
    task = row.get("task_id")
    return by_id.get(str(task)) if task is not None else None


def groups_of(items: Sequence[Any], size: int) -> list[list[Any]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]
