"""The recipe, stage after stage, resumable: synthesize → gate → collect → SFT → GRPO →
evaluate → report (QUEST-SPEC §3 to §6 on one machine).

`run_loop` runs every stage that is not done, in order, saving DIR/state.json before and after
each, so a loop killed at any point resumes where it was: a finished stage is never redone, a
stage that was running is redone from scratch (its outputs are written atomically, so nothing
half-written is ever read), and a training stage resumes from its last checkpoint. A stage the
budget cut short (`cut`) is continued by a later run with a larger `minutes`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from quest.loop.config import CONFIG_FILE, LoopConfig, render_loop_config
from quest.loop.data_stages import (
    GateWaiting,
    Progress,
    StageFailed,
    collect_stage,
    gate_stage,
    synth_stage,
)
from quest.loop.report import write_report
from quest.loop.runs import evaluate_stage, grpo_config, sft_config, train_stage
from quest.loop.state import STAGES, Clock, LoopState

FOLDERS = ("tasks", "gate", "data", "runs", "eval")
HEARTBEAT_S = 15.0


class LoopStopped(Exception):
    """The loop stopped before its end: waiting on the gate, or a stage failed."""

    def __init__(self, stage: str, reason: str, *, waiting: bool = False) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage, self.reason, self.waiting = stage, reason, waiting


def prepare(directory: Path, config: LoopConfig) -> None:
    """The loop's folders and its config file (written once; a resumed run reads it)."""
    directory.mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        (directory / folder).mkdir(exist_ok=True)
    path = directory / CONFIG_FILE
    path.write_text(render_loop_config(config), encoding="utf-8")


def run_loop(
    directory: Path,
    config: LoopConfig,
    corpus: Path,
    *,
    say: Progress,
    only: tuple[str, ...] = STAGES,
    on_stage: Callable[[str, LoopState], None] | None = None,
) -> LoopState:
    """Run the stages not done yet (of `only`, in order). LoopStopped when one waits or fails."""
    prepare(directory, config)
    state = LoopState.load(directory)
    state.runs += 1
    books = _Books(state, Clock(state.active_s), on_stage)
    budget = config.minutes * 60
    with books.heartbeat():
        for name in STAGES:
            stage = state.stages[name]
            if stage.status == "done" or name not in only:
                continue
            if stage.status == "cut" and books.clock.now() >= _deadline(name, config, budget):
                continue  # the budget has not grown since it was cut: keep its model
            state.reset_after(name)
            stage.status, stage.runs, stage.note = "running", stage.runs + 1, ""
            books.enter(name)
            say(f"== {name} (loop at {books.clock.now() / 60:.1f} of {config.minutes:g} min)")
            try:
                outputs = _run_stage(
                    name, directory, config, corpus, state, books.clock, budget, say, books.save
                )
            except GateWaiting as waiting:
                books.leave("waiting", str(waiting))
                raise LoopStopped(name, str(waiting), waiting=True) from None
            except StageFailed as failure:
                books.leave("failed", str(failure))
                raise LoopStopped(name, str(failure)) from None
            except Exception as error:  # recorded, so the state says why the stage stopped
                books.leave("failed", f"internal error: {type(error).__name__}: {error}")
                raise
            stage.outputs = outputs
            if outputs.get("status") == "stopped":
                books.leave("cut", f"stopped by its budget share at step {outputs['steps']}")
            else:
                books.leave("done", "")
    return state


class _Books:
    """The state's time accounting: the loop's active time and each stage's, written every
    HEARTBEAT_S as well as at each change, so a killed loop loses at most that much."""

    def __init__(
        self, state: LoopState, clock: Clock, on_stage: Callable[[str, LoopState], None] | None
    ) -> None:
        self.state, self.clock, self.on_stage = state, clock, on_stage
        self.current: str | None = None
        self.ticked = time.monotonic()
        self.lock = threading.Lock()

    def save(self) -> None:
        with self.lock:
            now = time.monotonic()
            if self.current is not None:
                self.state.stages[self.current].seconds += now - self.ticked
            self.ticked = now
            self.state.active_s = self.clock.now()
            self.state.save()
        if self.on_stage is not None and self.current is not None:
            self.on_stage(self.current, self.state)

    def enter(self, name: str) -> None:
        self.save()  # the time before it belongs to no stage
        self.current = name
        self.save()

    def leave(self, status: str, note: str) -> None:
        stage = self.state.stages[str(self.current)]
        stage.status, stage.note = status, note
        self.save()
        self.current = None

    @contextmanager
    def heartbeat(self) -> Iterator[None]:
        done = threading.Event()

        def beat() -> None:
            while not done.wait(HEARTBEAT_S):
                self.save()

        thread = threading.Thread(target=beat, name="loop-heartbeat", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()


def _deadline(name: str, config: LoopConfig, budget: float) -> float:
    share = {"sft": config.sft.share, "grpo": config.grpo.share}.get(name, 1.0)
    return share * budget


def _run_stage(
    name: str,
    directory: Path,
    config: LoopConfig,
    corpus: Path,
    state: LoopState,
    clock: Clock,
    budget: float,
    say: Progress,
    save: Callable[[], None],
) -> dict[str, Any]:
    def train(kind: str) -> dict[str, Any]:
        if kind == "sft":
            run = sft_config(directory, config)
        elif config.grpo.max_steps == 0:
            return {"status": "skipped", "note": "grpo.max_steps is 0"}
        else:
            start = state.stages["sft"].outputs["model"]
            run = grpo_config(directory, config, start, corpus)
        return train_stage(run, deadline_s=_deadline(kind, config, budget), clock=clock, say=say)

    def evaluate() -> dict[str, Any]:
        models = {"base": config.model, "sft": state.stages["sft"].outputs["model"]}
        if state.stages["grpo"].outputs.get("model"):
            models["grpo"] = state.stages["grpo"].outputs["model"]
        stage = state.stages["evaluate"]

        def keep(outputs: dict[str, Any]) -> None:
            stage.outputs = outputs
            save()

        return evaluate_stage(directory, config, corpus, models, stage.outputs, keep, say)

    stages: dict[str, Callable[[], dict[str, Any]]] = {
        "synth": lambda: synth_stage(directory, config, corpus, say),
        "gate": lambda: gate_stage(directory, config, say),
        "collect": lambda: collect_stage(directory, config, corpus, say),
        "sft": lambda: train("sft"),
        "grpo": lambda: train("grpo"),
        "evaluate": evaluate,
        "report": lambda: {"files": write_report(directory, config, state)},
    }
    return stages[name]()
