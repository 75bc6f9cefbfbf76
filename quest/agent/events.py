"""Where a run's events go. The loop emits exactly the types in EVENT_TYPES with JSON-ready,
small payloads (DESIGN "Agent event"); persistence, sequence numbers and broadcasting belong
to the sink, so the web app can put its own behind this protocol."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Protocol

EVENT_TYPES = (
    "started",
    "thought",
    "tool_call",
    "tool_result",
    "reminder",
    "state",
    "answer",
    "error",
    "finished",
)
STATUSES = ("answered", "forced", "stopped", "invalid", "failed")


class EventSink(Protocol):
    def emit(self, type: str, payload: dict[str, object]) -> None: ...


class NullSink:
    def emit(self, type: str, payload: dict[str, object]) -> None:
        return None


class ListSink:
    """Keeps the events in memory, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, object]]] = []

    def emit(self, type: str, payload: dict[str, object]) -> None:
        self.events.append((type, payload))

    def types(self) -> list[str]:
        return [kind for kind, _ in self.events]

    def of(self, type: str) -> list[dict[str, object]]:
        return [payload for kind, payload in self.events if kind == type]


class JsonlSink:
    """One `{"seq", "type", "payload"}` line per event, `seq` counting from 1."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.seq = 0

    @classmethod
    def open(cls, path: str | Path) -> JsonlSink:
        return cls(Path(path).open("w", encoding="utf-8"))  # closed by close()

    def emit(self, type: str, payload: dict[str, object]) -> None:
        self.seq += 1
        record = {"seq": self.seq, "type": type, "payload": payload}
        self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.out.flush()

    def close(self) -> None:
        self.out.close()


class FanOut:
    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = sinks

    def emit(self, type: str, payload: dict[str, object]) -> None:
        for sink in self.sinks:
            sink.emit(type, payload)
