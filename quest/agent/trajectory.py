"""A run as training data (QUEST-SPEC §5.1).

A segment is one session, the stretch between two condensations: the prompt the policy started
from (system + question + state), then every message appended after it, each marked `model`
when the policy wrote it (the tokens that carry loss). A tool response also keeps the tool's
structured result, `{"tool": {"name", "ok", "details"}}` (visit: one `{url, goal, rational,
evidence, summary}` per page, the page -> evidence pairs of mid-training). The messages the
policy saw at any turn are the prompt plus the turns before it, so nothing is stored twice.
Condensations are recorded as pairs (previous state + events -> next state) for mid-training.
`Trajectory.from_records` reads back what `segment_records` and `condensation_records` wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.agent.state import DRState, parse_state
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

    def add(self, item: Message, *, model: bool, tool: dict[str, Any] | None = None) -> None:
        turn: dict[str, Any] = {**item, "model": model}
        if tool is not None:
            turn["tool"] = tool
        self.segments[-1].turns.append(turn)

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

    @classmethod
    def from_records(cls, rollout_id: str, records: Iterable[Mapping[str, Any]]) -> Trajectory:
        """The trajectory that wrote `records` (its segment and condensation records, in any
        order; records of other kinds are ignored). Raises KeyError, TypeError or
        quest.agent.state.StateError on a malformed record."""
        trajectory = cls(rollout_id)
        items = list(records)
        segments = sorted((r for r in items if r["kind"] == "segment"), key=lambda r: r["segment"])
        for record in segments:
            trajectory.segments.append(_segment(record))
        pairs = sorted((r for r in items if r["kind"] == "condensation"), key=lambda r: r["index"])
        for record in pairs:
            trajectory.condensations.append(_condensation(record))
        return trajectory


def _state(state: DRState | None) -> dict[str, Any] | None:
    return state.to_json() if state is not None else None


def _read_state(data: Mapping[str, Any] | None) -> DRState | None:
    return parse_state(data) if data is not None else None


def _segment(record: Mapping[str, Any]) -> Segment:
    return Segment(
        index=int(record["segment"]),
        prompt_messages=[dict(m) for m in record["prompt_messages"]],
        state_before=_read_state(record["state_before"]),
        turns=[dict(t) for t in record["completion_turns"]],
        state_after=_read_state(record["state_after"]),
    )


def _condensation(record: Mapping[str, Any]) -> Condensation:
    return Condensation(
        index=int(record["index"]),
        question=str(record["question"]),
        state_before=_read_state(record["state_before"]),
        events=tuple(dict(e) for e in record["events"]),
        state_after=parse_state(record["state_after"]),
        recovered=bool(record["recovered"]),
    )


def _plain(turn: dict[str, Any]) -> dict[str, str]:
    return {"role": turn["role"], "content": turn["content"]}
