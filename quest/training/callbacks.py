"""Trainer callbacks of a run: metrics appended to OUTPUT_DIR/metrics.jsonl with a progress line
on stderr per logging step, and the stop request (a stop file or SIGTERM) that ends training
after saving a checkpoint.

The classes subclass transformers' TrainerCallback, so they are built by functions that import
it: this module stays importable without torch.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from quest.training.agent_rollouts import RolloutStats

METRICS_FILE = "metrics.jsonl"
# Values of TRL's and transformers' logs that are about the run, not the step.
SUMMARY_KEYS = ("train_runtime", "train_samples_per_second", "train_steps_per_second", "train_loss")


def metrics_callback(output_dir: Path, *, stats: RolloutStats | None = None) -> Any:
    from transformers import TrainerCallback

    class Metrics(TrainerCallback):
        def __init__(self) -> None:
            self.path = output_dir / METRICS_FILE
            self.started = 0.0
            self.step_seconds: list[float] = []
            self.tokens_seen: float | None = None

        def on_train_begin(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            if state.global_step == 0:
                self.tokens_seen = 0.0

        def on_step_begin(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            self.started = time.monotonic()

        def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            self.step_seconds.append(time.monotonic() - self.started)

        def on_log(
            self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **_: Any
        ) -> None:
            logs = logs or {}
            if any(key in logs for key in SUMMARY_KEYS):
                record = {"kind": "summary", "step": state.global_step, **_numbers(logs)}
            else:
                record = {"kind": "step", "step": state.global_step, **self._step(logs)}
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
            progress(_line(record, state.max_steps))

        def _step(self, logs: dict[str, Any]) -> dict[str, Any]:
            record: dict[str, Any] = {"time": round(time.time(), 3), **_numbers(logs)}
            seconds = sum(self.step_seconds)
            steps = max(len(self.step_seconds), 1)
            self.step_seconds = []
            record["step_s"] = seconds / steps
            tokens = logs.get("num_tokens")
            if isinstance(tokens, int | float):
                if self.tokens_seen is not None and seconds > 0:
                    record["tokens_per_s"] = (tokens - self.tokens_seen) / seconds
                self.tokens_seen = float(tokens)
            if stats is not None:
                record.update(_shares(stats.drain(), seconds))
            return record

    return Metrics()


def stop_callback(stop_file: Path) -> Any:
    """`request()` (SIGTERM's handler) or the stop file ends training after the current step,
    saving a checkpoint; `stopped_at` is the step it stopped at, else None."""
    from transformers import TrainerCallback

    class Stop(TrainerCallback):
        def __init__(self) -> None:
            self.requested = False
            self.stopped_at: int | None = None

        def request(self, *_: Any) -> None:
            self.requested = True

        def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> Any:
            if self.requested or stop_file.exists():
                control.should_save = True
                control.should_training_stop = True
                self.stopped_at = state.global_step
            return control

    return Stop()


def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _numbers(logs: dict[str, Any]) -> dict[str, float | None]:
    """The finite numbers of a log (NaN and infinities as null, which JSON can hold)."""
    out: dict[str, float | None] = {}
    for key, value in logs.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        out[key] = float(value) if math.isfinite(value) else None
    return out


def _shares(drained: dict[str, float], step_seconds: float) -> dict[str, float]:
    """Rollout stats, and the share of step time spent in rollouts, reward and the rest
    (log-probs, the loss, the optimiser)."""
    total = step_seconds or 1.0
    rollout, reward = drained["rollout_s"], drained["reward_s"]
    return {
        **drained,
        "share/rollout": rollout / total,
        "share/reward": reward / total,
        "share/optimisation": max(0.0, step_seconds - rollout - reward) / total,
    }


def _line(record: dict[str, Any], max_steps: int) -> str:
    if record["kind"] == "summary":
        return f"train: done in {record.get('train_runtime', 0):.1f}s"
    shown = [f"step {record['step']}/{max_steps}"]
    for key in ("loss", "reward", "reward_std", "grad_norm", "learning_rate", "step_s"):
        value = record.get(key)
        if isinstance(value, float):
            shown.append(f"{key} {value:.4g}")
    return "train: " + "  ".join(shown)
