"""A run as training data (QUEST-SPEC §5.1).

A segment is one session, the stretch between two condensations: the prompt the policy started
from (system + question + state), then every message appended after it, each marked `model`
when the policy wrote it (the tokens that carry loss). The messages the policy saw at any turn
are the prompt plus the turns before it, so nothing is stored twice. Condensations are recorded
as pairs (previous state + events -> next state) for mid-training.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.agent.state import DRState
from quest.llm.types import Message


@dataclass
class Segment:
    index: int
    prompt_messages: list[dict[str, str]]
    state_before: DRState | None
    turns: list[dict[str, Any]] = field(default_factory=list)
    state_after: DRState | None = None

    def model_outputs(self) -> list[str]:
        """The policy's raw outputs in this segment, in order."""
        return [turn["content"] for turn in self.turns if turn["model"]]

    def messages_at(self, turn: int) -> list[dict[str, str]]:
        """The exact messages the policy saw when it wrote its `turn`-th output (from 0)."""
        seen = 0
        for position, item in enumerate(self.turns):
            if item["model"]:
                if seen == turn:
                    return self.prompt_messages + [_plain(t) for t in self.turns[:position]]
                seen += 1
        raise IndexError(f"segment {self.index} has {seen} model turns")


@dataclass(frozen=True)
class Condensation:
    index: int
    question: str
    state_before: DRState | None
    events: tuple[dict[str, str], ...]
    state_after: DRState
    recovered: bool


class Trajectory:
    def __init__(self, rollout_id: str) -> None:
        self.rollout_id = rollout_id
        self.segments: list[Segment] = []
        self.condensations: list[Condensation] = []

    def open_segment(self, prompt: list[Message], state_before: DRState | None) -> None:
        messages = [dict(item) for item in prompt]
        self.segments.append(Segment(len(self.segments), messages, state_before))

    def add(self, item: Message, *, model: bool) -> None:
        self.segments[-1].turns.append({**item, "model": model})

    def close_segment(self, state_after: DRState) -> None:
        self.segments[-1].state_after = state_after

    def add_condensation(
        self, question: str, events: list[Message], before: DRState | None, after: DRState
    ) -> None:
        self.condensations.append(
            Condensation(
                index=len(self.condensations),
                question=question,
                state_before=before,
                events=tuple(dict(item) for item in events),
                state_after=after,
                recovered=after.recovered,
            )
        )

    def segment_records(self) -> list[dict[str, Any]]:
        return [
            {
                "kind": "segment",
                "rollout_id": self.rollout_id,
                "segment": s.index,
                "prompt_messages": s.prompt_messages,
                "completion_turns": s.turns,
                "state_before": _state(s.state_before),
                "state_after": _state(s.state_after),
            }
            for s in self.segments
        ]

    def condensation_records(self) -> list[dict[str, Any]]:
        return [
            {
                "kind": "condensation",
                "rollout_id": self.rollout_id,
                "index": c.index,
                "question": c.question,
                "state_before": _state(c.state_before),
                "events": list(c.events),
                "state_after": c.state_after.to_json(),
                "recovered": c.recovered,
            }
            for c in self.condensations
        ]

    def to_jsonl(self) -> str:
        records = self.segment_records() + self.condensation_records()
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)

    def write_jsonl(self, path: str | Path) -> None:
        Path(path).write_text(self.to_jsonl(), encoding="utf-8")


def _state(state: DRState | None) -> dict[str, Any] | None:
    return state.to_json() if state is not None else None


def _plain(turn: dict[str, Any]) -> dict[str, str]:
    return {"role": turn["role"], "content": turn["content"]}
