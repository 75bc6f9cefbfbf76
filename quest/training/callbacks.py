"""Trainer callbacks of a run: metrics appended to OUTPUT_DIR/metrics.jsonl with a progress line
on stderr per logging step, the stop request (a stop file or SIGTERM) that ends training
after saving a checkpoint, and cheap checkpoints (bf16 weights; the optimiser's state only in
the newest checkpoint of a resumable run).

The classes subclass transformers' TrainerCallback, so they are built by functions that import
it: this module stays importable without torch.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from quest.training.agent_rollouts import RolloutStats
from quest.training.config import (
    CHECKPOINT_PREFIX,
    OPTIMIZER_FILE,
    checkpoint_step,
    holds_optimizer_state,
)

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


# What a checkpoint holds only to resume from: the optimiser's moments (twice the fp32 weights),
# the learning-rate scheduler, the mixed-precision scaler and the RNG states.
RESUME_FILES = (OPTIMIZER_FILE, "scheduler.pt", "scaler.pt", "rng_state*.pth")


def checkpoints_callback(*, resumable: bool) -> Any:
    """Each checkpoint saved weights-only (the Trainer's save_only_model) has its weights
    rewritten in bf16 as soon as it is written. With `resumable` (a full save), the newest
    checkpoint stays as the Trainer wrote it, and every older one is cut to bf16 weights."""
    from transformers import TrainerCallback

    class Checkpoints(TrainerCallback):
        def on_save(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            if not args.should_save:  # another process of a distributed run wrote it
                return
            out = Path(args.output_dir)
            if not resumable:
                store_bf16(out / f"{CHECKPOINT_PREFIX}{state.global_step}")
                return
            for older in out.glob(f"{CHECKPOINT_PREFIX}*"):
                step = checkpoint_step(older)
                if step is not None and step < state.global_step and holds_optimizer_state(older):
                    weights_only(older)

    return Checkpoints()


def weights_only(checkpoint: Path) -> None:
    """`checkpoint` cut to its bf16 weights (and trainer_state.json, the config, the
    tokenizer): it can no longer be resumed, and a SmolLM2 one shrinks from 1.6 GB to 270 MB.
    The resume files go first: a process killed half-way leaves fp32 weights, never a
    resumable checkpoint with rounded weights."""
    for pattern in RESUME_FILES:
        for path in checkpoint.glob(pattern):
            path.unlink()
    store_bf16(checkpoint)


def store_bf16(directory: Path) -> None:
    """The model weights of `directory` rewritten in bfloat16, half the bytes of float32, its
    config.json saying so. A weight tied to another (SmolLM2's lm_head) stays stored once, as
    transformers wrote it; LoRA adapters (adapter_model.safetensors) are small and kept."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import save_file

    for path in sorted(directory.glob("model*.safetensors")):
        with safe_open(str(path), framework="pt") as weights:
            names = list(weights.keys())
            halved = {name: _bf16(weights.get_tensor(name), torch.bfloat16) for name in names}
        partial = path.with_name(f"{path.name}.partial")
        save_file(halved, str(partial), metadata={"format": "pt"})
        os.replace(partial, path)  # a reader sees the old file or the new one, never half
    _config_dtype(directory / "config.json", "bfloat16")


def _bf16(tensor: Any, bfloat16: Any) -> Any:
    return tensor.to(bfloat16) if tensor.is_floating_point() else tensor


def _config_dtype(path: Path, dtype: str) -> None:
    """config.json's dtype is the stored weights' (what dtype "auto" and vLLM load as)."""
    if not path.is_file():
        return
    config = json.loads(path.read_text(encoding="utf-8"))
    config["dtype"] = dtype
    if "torch_dtype" in config:
        config["torch_dtype"] = dtype
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")


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
