"""Where a loop stands: DIR/state.json, rewritten atomically after every change, so a loop
killed at any moment resumes from the last stage that finished (and a training stage from its
last checkpoint).

A stage is `pending`, `running` (or was, when the process died), `done`, `cut` (a training
stage its budget share stopped before max_steps: a later run with more minutes continues it
from its checkpoint), `waiting` (the human gate has no decisions yet) or `failed` (with the
reason). Re-entering a stage resets every stage after it: their results were made from the
old one. `active_s` is the time the loop has spent running, over all its runs: the budget is
counted on it, not on the wall clock between runs.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATE_FILE = "state.json"
STAGES = ("synth", "gate", "collect", "sft", "grpo", "evaluate", "report")
STATUSES = ("pending", "running", "done", "cut", "waiting", "failed")


@dataclass
class StageState:
    status: str = "pending"
    seconds: float = 0.0  # summed over every run of the stage
    runs: int = 0
    outputs: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "seconds": round(self.seconds, 1),
            "runs": self.runs,
            "outputs": self.outputs,
            "note": self.note,
        }


@dataclass
class LoopState:
    directory: Path
    stages: dict[str, StageState]
    active_s: float = 0.0
    runs: int = 0

    @classmethod
    def load(cls, directory: Path) -> LoopState:
        path = directory / STATE_FILE
        stages = {name: StageState() for name in STAGES}
        if not path.is_file():
            return cls(directory, stages)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            for name, item in data["stages"].items():
                if name in stages and item.get("status") in STATUSES:
                    stages[name] = StageState(
                        status=item["status"],
                        seconds=float(item.get("seconds", 0)),
                        runs=int(item.get("runs", 0)),
                        outputs=dict(item.get("outputs", {})),
                        note=str(item.get("note", "")),
                    )
            return cls(directory, stages, float(data.get("active_s", 0)), int(data.get("runs", 0)))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(
                f"{path}: not a loop state ({error}); move it away to start over"
            ) from None

    def save(self) -> None:
        path = self.directory / STATE_FILE
        partial = path.with_name(f".{STATE_FILE}.partial")
        data = {
            "active_s": round(self.active_s, 1),
            "runs": self.runs,
            "stages": {name: stage.to_json() for name, stage in self.stages.items()},
        }
        partial.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(partial, path)

    def reset_after(self, name: str) -> None:
        for later in STAGES[STAGES.index(name) + 1 :]:
            self.stages[later] = StageState()


class Clock:
    """The loop's active time: what earlier runs spent plus this run's wall time so far."""

    def __init__(self, spent: float) -> None:
        self.spent, self.started = spent, time.monotonic()

    def now(self) -> float:
        return self.spent + time.monotonic() - self.started
