"""Recorded rollouts: trajectory records (quest.agent.trajectory) read back, one rollout at a
time, with what a dataset needs beside them.

A rollout file is JSON lines. Each rollout is its `segment` and `condensation` records, as
`python -m quest agent run --trajectory` and the live sessions' export write them, optionally
preceded by a header that `rollout_records` writes:

    {"kind": "rollout", "rollout_id", "task_id", "group_id", "question", "status", "answer",
     "reward": Reward.to_dict() | number | null}

A rollout starts at a header, at a record with another rollout id, or at a second segment 0
(default rollout ids are a hash of the question, so two runs of one question share an id).
Without a header a rollout has no task id: builders match its question to a task instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from quest.agent.loop import RunResult
from quest.agent.prompts import split_user_prompt
from quest.agent.trajectory import Segment, Trajectory
from quest.rubric.reward import Reward
from quest.training.records import DatasetError

KINDS = ("rollout", "segment", "condensation")


@dataclass
class RolloutTally:
    """What a dataset builder counted over the rollouts it read (`rollouts`, all of them); its
    subclasses add their own counts."""

    rollouts: int = 0

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Rollout:
    trajectory: Trajectory
    line: int  # where its records start, for messages
    task_id: str | None = None
    group_id: str | None = None
    reward: Reward | None = None  # recorded with the rollout; None: to be computed

    @property
    def rollout_id(self) -> str:
        return self.trajectory.rollout_id

    @property
    def segments(self) -> list[Segment]:
        return self.trajectory.segments

    def question(self) -> str:
        prompt = self.segments[0].prompt_messages
        return split_user_prompt(prompt[1]["content"])[0] if len(prompt) > 1 else ""

    def final_output(self) -> str:
        """The policy's last output: where a finished run's answer is."""
        outputs = self.segments[-1].model_outputs() if self.segments else []
        return outputs[-1] if outputs else ""


def rollout_records(
    result: RunResult,
    *,
    task_id: str | None = None,
    group_id: str | None = None,
    reward: Reward | None = None,
) -> list[dict[str, Any]]:
    """A run as the records of a rollout file: the header, then its trajectory."""
    trajectory = result.trajectory
    header = {
        "kind": "rollout",
        "rollout_id": trajectory.rollout_id,
        "task_id": task_id,
        "group_id": group_id,
        "question": result.question,
        "status": result.status,
        "answer": result.answer,
        "reward": reward.to_dict() if reward is not None else None,
    }
    return [header, *trajectory.segment_records(), *trajectory.condensation_records()]


def read_rollouts(
    lines: Iterable[tuple[int, dict[str, Any]]], *, source: str = "input"
) -> Iterator[Rollout]:
    """Rollouts from (line number, record) pairs, one at a time; DatasetError names the
    `source` and line of a record that cannot be read."""
    group = _Group(source)
    for number, record in lines:
        kind = record.get("kind")
        if kind not in KINDS:
            raise DatasetError(f"{source}:{number}: kind must be one of {', '.join(KINDS)}")
        rollout_id = record.get("rollout_id")
        if not isinstance(rollout_id, str) or not rollout_id:
            raise DatasetError(f"{source}:{number}: rollout_id must be a non-empty string")
        if group.starts_new(kind, rollout_id, record):
            if group.records:
                yield group.rollout()
            group = _Group(source, number, rollout_id)
        group.records.append(record)
    if group.records:
        yield group.rollout()


class _Group:
    def __init__(self, source: str, line: int = 0, rollout_id: str = "") -> None:
        self.source, self.line, self.rollout_id = source, line, rollout_id
        self.records: list[dict[str, Any]] = []

    def starts_new(self, kind: str, rollout_id: str, record: Mapping[str, Any]) -> bool:
        if kind == "rollout" or rollout_id != self.rollout_id:
            return True
        return kind == "segment" and record.get("segment") == 0 and self._has_segments()

    def _has_segments(self) -> bool:
        return any(r["kind"] == "segment" for r in self.records)

    def rollout(self) -> Rollout:
        where = f"{self.source}:{self.line}: rollout {self.rollout_id}"
        header = self.records[0] if self.records[0]["kind"] == "rollout" else {}
        try:
            trajectory = Trajectory.from_records(self.rollout_id, self.records)
        except (KeyError, TypeError, ValueError) as error:  # StateError is a ValueError
            raise DatasetError(f"{where}: malformed record: {error!r}") from None
        if not trajectory.segments:
            raise DatasetError(f"{where}: no segment records")
        return Rollout(
            trajectory=trajectory,
            line=self.line,
            task_id=_optional_id(header.get("task_id"), where, "task_id"),
            group_id=_optional_id(header.get("group_id"), where, "group_id"),
            reward=_reward(header.get("reward"), where),
        )


def _optional_id(value: object, where: str, key: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise DatasetError(f"{where}: {key} must be a string or an integer")
    return str(value)


def _reward(value: object, where: str) -> Reward | None:
    """A recorded reward: Reward.to_dict()'s shape or a bare number."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Reward(float(value), None, 0.0, (), "recorded")
    if not isinstance(value, Mapping):
        raise DatasetError(f"{where}: reward must be a number, an object or null")
    number = value.get("reward")
    if number is not None and (isinstance(number, bool) or not isinstance(number, int | float)):
        raise DatasetError(f"{where}: reward.reward must be a number or null")
    base, rate = value.get("base"), value.get("valid_rate") or 0.0
    return Reward(
        None if number is None else float(number),
        float(base) if isinstance(base, int | float) else None,
        float(rate) if isinstance(rate, int | float) else 0.0,
        (),
        str(value.get("reason") or "recorded"),
    )
