"""Training checkpoints a live session may run as its model.

The training app sits above this one (apps are a stack), so it hands its checkpoints down at
start-up: apps/training/apps.py sets the source with `checkpoint_source_set`, as live hands its
LLM endpoints down to apps.common.llm. A session names a checkpoint by its `model` string,
"checkpoint:" and its path relative to the training directory (runs/12/checkpoint-30).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

CHECKPOINT_PREFIX = "checkpoint:"


@dataclass(frozen=True)
class LiveCheckpoint:
    """One checkpoint on disk of a training run that has ended (done, stopped or cancelled)."""

    path: str  # relative to the training directory, as the training pages show it
    directory: str  # absolute: the worker loads the model from here
    job_id: int
    job_kind: str  # as people name it: "SFT", "GRPO", "Mid-training"
    step: int
    held_out_reward: float | None = None  # the newest full evaluation of this step, if any

    @property
    def model(self) -> str:
        return CHECKPOINT_PREFIX + self.path

    @property
    def label(self) -> str:
        return f"{self.job_kind} run {self.job_id} · step {self.step}"

    @property
    def choice_label(self) -> str:
        """The label with its held-out reward, as the start form lists it."""
        if self.held_out_reward is None:
            return self.label
        return f"{self.label} · held-out reward {self.held_out_reward:.3f}"


_sources: dict[str, Callable[[], Iterable[LiveCheckpoint]]] = {}


def checkpoint_source_set(name: str, source: Callable[[], Iterable[LiveCheckpoint]]) -> None:
    """Offer the checkpoints that `source` returns (called at each read) under `name`."""
    _sources[name] = source


def is_checkpoint(model: str) -> bool:
    return model.startswith(CHECKPOINT_PREFIX)


def checkpoint_list() -> list[LiveCheckpoint]:
    return [checkpoint for source in _sources.values() for checkpoint in source()]


def checkpoint_find(model: str) -> LiveCheckpoint | None:
    """The checkpoint a `model` string names, while its run is ended and it is on disk."""
    if not is_checkpoint(model):
        return None
    return next((c for c in checkpoint_list() if c.model == model), None)
