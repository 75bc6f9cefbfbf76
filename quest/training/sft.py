"""The SFT set (QUEST-SPEC §5.1, §6): recorded rollouts kept when their reward passes a
threshold (rejection sampling), each split into its sessions.

A rollout's reward is the one recorded in its header, else the rubric reward of its last output
against its task's tree (quest.rewards.score_with_tree; citations checked against the corpus
when one is given). Given tasks are the training gate: a rollout whose task is not among them
is left out, whatever its reward. A rollout whose verifier cannot run is dropped, never kept.

One row per session (a Segment: the stretch between two condensations): `messages` is the
session's prompt (system + question + the research state at its start) followed by its turns,
each message with a `loss` flag. Only the model's turns carry loss, and of those only the
valid ones: an invalid turn stays in the conversation (the reminder after it refers to it) but
is not imitated. Every row carries the rollout id, task id, group id (the header's, else the
task id: the rollouts of one prompt form a GRPO group), the reward and its components, and
which session of how many it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from quest.protocol.turns import parse_turn
from quest.rewards import score_with_tree
from quest.rubric.documents import DocumentStore
from quest.rubric.reward import BASE_SHARE, Reward
from quest.training.rollouts import Rollout, RolloutTally
from quest.training.tasks import TrainingTask

DEFAULT_MIN_REWARD = 0.5


@dataclass
class SFTReport(RolloutTally):
    kept: int = 0
    rows: int = 0
    below_threshold: int = 0
    dropped: int = 0  # the verifier could not run
    not_gated: int = 0  # no gated task (or, without tasks, no recorded reward) to judge it by


class SFTBuilder:
    def __init__(
        self,
        *,
        tasks: Iterable[TrainingTask] | None = None,
        store: DocumentStore | None = None,
        min_reward: float = DEFAULT_MIN_REWARD,
    ) -> None:
        self.gated = tasks is not None
        self.by_id = {task.task_id: task for task in tasks or ()}
        self.by_question: dict[str, TrainingTask | None] = {}
        for task in self.by_id.values():  # a question asked by two tasks names neither
            self.by_question[task.question] = None if task.question in self.by_question else task
        self.store = store
        self.min_reward = min_reward
        self.report = SFTReport()

    def rows(self, rollouts: Iterable[Rollout]) -> Iterator[dict[str, Any]]:
        for rollout in rollouts:
            self.report.rollouts += 1
            rows = self._rows(rollout)
            self.report.rows += len(rows)
            yield from rows

    def _rows(self, rollout: Rollout) -> list[dict[str, Any]]:
        task = self._task(rollout)
        if self.gated and task is None:
            self.report.not_gated += 1
            return []
        reward = rollout.reward
        if reward is None and task is not None:
            reward = score_with_tree(task.compiled, rollout.final_output(), self.store)
        if reward is None:
            self.report.not_gated += 1
            return []
        if reward.value is None:
            self.report.dropped += 1
            return []
        if reward.value < self.min_reward:
            self.report.below_threshold += 1
            return []
        self.report.kept += 1
        task_id = task.task_id if task is not None else rollout.task_id
        return session_rows(rollout, reward, task_id=task_id, group_id=rollout.group_id or task_id)

    def _task(self, rollout: Rollout) -> TrainingTask | None:
        if rollout.task_id is not None:
            return self.by_id.get(rollout.task_id)
        return self.by_question.get(rollout.question())


def session_rows(
    rollout: Rollout, reward: Reward, *, task_id: str | None, group_id: str | None
) -> list[dict[str, Any]]:
    """One row per session of `rollout` that has a turn to learn from."""
    shared = {
        "rollout_id": rollout.rollout_id,
        "task_id": task_id,
        "group_id": group_id,
        "reward": reward.value,
        "reward_components": components(reward),
        "sessions": len(rollout.segments),
    }
    rows = []
    for segment in rollout.segments:
        messages = [_message(m, loss=False) for m in segment.prompt_messages]
        messages += [_message(turn, loss=carries_loss(turn)) for turn in segment.turns]
        if any(m["loss"] for m in messages):
            rows.append({**shared, "session": segment.index, "messages": messages})
    return rows


def carries_loss(turn: dict[str, Any]) -> bool:
    """A model turn that the protocol accepts (a tool call or an answer)."""
    return bool(turn.get("model")) and parse_turn(turn["content"]).kind != "invalid"


def components(reward: Reward) -> dict[str, Any]:
    """base, valid_rate, the citation term (R - 0.75·base) and the reason; base and citation
    are None when only the reward's value was recorded."""
    citation = None
    if reward.base is not None and reward.value is not None:
        citation = reward.value - BASE_SHARE * reward.base
    return {
        "base": reward.base,
        "valid_rate": reward.valid_rate,
        "citation": citation,
        "reason": reward.reason,
    }


def _message(item: dict[str, Any], *, loss: bool) -> dict[str, Any]:
    return {"role": item["role"], "content": item["content"], "loss": loss}
