"""The loop's model stages: SFT, GRPO from the SFT model, and the evaluation of the base, SFT
and GRPO models on the held-out tasks.

Each training stage is a `python -m quest train` config (written to its run directory as
config.yaml) run in this process. Its share of the budget is enforced with the run's own stop
file: when the loop's active time reaches the share, a watcher writes it and the trainer stops
at the end of its step with a checkpoint. Such a stage is `cut`; its model is its last
checkpoint, and a later run of the loop with more minutes resumes it from there. A stage killed
with the process resumes from its last checkpoint too: the runs are `resumable`, so the newest
checkpoint keeps the optimiser's state and the older ones only their bf16 weights.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from quest.corpus.store import CorpusStore
from quest.loop.config import LoopConfig
from quest.loop.data_stages import Progress, StageFailed, paths
from quest.loop.state import Clock
from quest.tools.offline import offline_toolbox
from quest.training.batch_eval import evaluate_model
from quest.training.config import TrainConfig, checkpoint_step
from quest.training.evaluate import summarize
from quest.training.tasks import TrainingTask, read_tasks
from quest.training.trainers import EXCERPT_CHARS, FINAL_DIR, ROLLOUTS, run_training

MODELS = ("base", "sft", "grpo")
WATCH_SECONDS = 1.0
SLICE_LABELS = {"": "held-out", ".out_of_family": "out-of-family", ".practised": "practised"}


def sft_config(directory: Path, config: LoopConfig) -> TrainConfig:
    return TrainConfig(
        kind="sft",
        model=config.model,
        dataset=[str(paths(directory)["sft"])],
        output_dir=str(directory / "runs" / "sft"),
        max_steps=config.sft.max_steps,
        save_steps=5,
        resumable=True,
        precision=config.precision,
        seed=config.seed,
        sft=config.sft.params,
        lora=config.lora,
    )


def grpo_config(directory: Path, config: LoopConfig, model: str, corpus: Path) -> TrainConfig:
    return TrainConfig(
        kind="grpo",
        model=model,
        dataset=[str(paths(directory)["rl"])],
        corpus=str(corpus),
        output_dir=str(directory / "runs" / "grpo"),
        max_steps=max(1, config.grpo.max_steps),
        save_steps=2,
        resumable=True,
        precision=config.precision,
        seed=config.seed,
        grpo=config.grpo.params,
        rollout=config.rollout,
        lora=config.lora,
    )


def train_stage(
    train: TrainConfig, *, deadline_s: float, clock: Clock, say: Progress
) -> dict[str, Any]:
    """Run `train` until max_steps or the deadline (loop active seconds), resuming from its
    last checkpoint. Returns the stage's outputs; `model` is the directory later stages load."""
    out = Path(train.output_dir)
    final = out / FINAL_DIR
    last = latest_checkpoint(out)
    if final.is_dir() and (final / "config.json").is_file():
        return _outputs(train, {"status": "finished"}, model=final)
    if last is not None and _step(last) >= train.max_steps:
        return _outputs(train, {"status": "finished"}, model=last)
    if last is not None and clock.now() >= deadline_s:
        say(f"{train.kind}: no time left in its share; using {last.name}")
        return _outputs(train, {"status": "stopped"}, model=last)
    if last is not None:
        say(f"{train.kind}: resuming from {last.name}")
        train = train.model_copy(update={"resume_from": str(last)})
    stop = _deadline_watcher(train.stop_path, deadline_s, clock)
    try:
        summary = run_training(train)
    finally:
        stop()
    if summary["status"] == "finished":
        return _outputs(train, summary, model=Path(summary["final"]))
    last = latest_checkpoint(out)
    if last is None:
        raise StageFailed(f"{train.kind}: stopped before its first checkpoint")
    return _outputs(train, summary, model=last)


def _outputs(train: TrainConfig, summary: dict[str, Any], *, model: Path) -> dict[str, Any]:
    out = Path(train.output_dir)
    return {
        "status": summary["status"],
        "steps": _step(model) if model.name.startswith("checkpoint-") else train.max_steps,
        "max_steps": train.max_steps,
        "model": str(model),
        "files": {
            "config": str(out / "config.yaml"),
            "metrics": str(out / "metrics.jsonl"),
            "run": str(out),
        },
    }


def latest_checkpoint(out: Path) -> Path | None:
    found = [p for p in out.glob("checkpoint-*") if (p / "trainer_state.json").is_file()]
    return max(found, key=_step) if found else None


def _step(checkpoint: Path) -> int:
    step = checkpoint_step(checkpoint)
    return -1 if step is None else step


def _deadline_watcher(stop_file: Path, deadline_s: float, clock: Clock) -> Callable[[], None]:
    """Writes the run's stop file once the loop's active time reaches the deadline; returns
    the function that ends the watcher."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_SECONDS):
            if clock.now() >= deadline_s:
                stop_file.parent.mkdir(parents=True, exist_ok=True)
                stop_file.write_text("the loop's budget share for this stage is spent\n")
                return

    thread = threading.Thread(target=watch, name="loop-deadline", daemon=True)
    thread.start()

    def stop() -> None:
        done.set()
        thread.join()

    return stop


def evaluate_stage(
    directory: Path,
    config: LoopConfig,
    corpus: Path,
    models: dict[str, str],
    outputs: dict[str, Any],
    save: Callable[[dict[str, Any]], None],
    say: Progress,
) -> dict[str, Any]:
    """Each model in `models` (name -> what load_model reads) on the same tasks of each slice
    with the same budgets: the entity-disjoint held-out tasks (`models`, eval/<model>.json),
    the out-of-family ones (`out_of_family.models`, eval/<model>.out_of_family.json), then,
    when GRPO ran, the train tasks it rolled out on (`practised.models`,
    eval/<model>.practised.json). A model already evaluated on a slice by an earlier run of
    the loop is kept."""
    where = paths(directory)
    heldout = read_tasks(where["heldout"])[: config.eval.tasks]
    if not heldout:
        raise StageFailed("no held-out task to evaluate on")
    family: list[TrainingTask] = []
    if where["out_of_family"].is_file() and config.eval.family_tasks:
        family = read_tasks(where["out_of_family"])[: config.eval.family_tasks]
    rollouts = [directory / "runs" / "grpo" / ROLLOUTS]
    practised = practised_tasks(directory, rollouts, config.eval.practised_tasks)
    practised = practised if "grpo" in models else []
    (directory / "eval").mkdir(parents=True, exist_ok=True)
    run = Evaluation(directory, config, offline_toolbox(corpus), CorpusStore(corpus), say)
    done = dict(outputs.get("models", {}))
    other = dict(outputs.get("out_of_family", {}).get("models", {}))
    again = dict(outputs.get("practised", {}).get("models", {}))

    def result() -> dict[str, Any]:
        slice_ = {"slice": config.synth.out_of_family, "tasks": len(family), "models": other}
        return {
            "models": done,
            "tasks": len(heldout),
            "out_of_family": slice_,
            "practised": {"tasks": len(practised), "models": again},
        }

    slices = (
        (heldout, done, ""),
        (family, other, ".out_of_family"),
        (practised, again, ".practised"),
    )
    for tasks, table, suffix in slices:
        for name, model in models.items():
            if not tasks or (name in table and table[name].get("model") == model):
                continue
            table[name] = run(name, model, tasks, suffix)
            save(result())
    return result()


def practised_tasks(directory: Path, rollouts: list[Path], limit: int) -> list[TrainingTask]:
    """The first `limit` train tasks of the loop in `directory`, in task-id order, that every
    GRPO run of `rollouts` (their rollouts files name each rollout's question) rolled out on:
    a fixed set, the same on a resume."""
    if not limit or not all(path.is_file() for path in rollouts):
        return []
    asked = [_questions(path) for path in rollouts]
    train = read_tasks(paths(directory)["train"])
    seen = [t for t in train if all(t.question[:EXCERPT_CHARS] in q for q in asked)]
    return sorted(seen, key=lambda t: t.task_id)[:limit]


def _questions(rollouts: Path) -> set[str]:
    with rollouts.open(encoding="utf-8") as lines:
        return {json.loads(line)["question"] for line in lines if line.strip()}


class Evaluation:
    """One model on one slice's tasks, its scores written to eval/<model><suffix>.json."""

    def __init__(
        self, directory: Path, config: LoopConfig, toolbox: Any, store: Any, say: Progress
    ) -> None:
        self.folder, self.config, self.say = directory / "eval", config, say
        self.toolbox, self.store = toolbox, store

    def __call__(
        self, name: str, model: str, tasks: list[TrainingTask], suffix: str
    ) -> dict[str, Any]:
        label = f"{name} ({SLICE_LABELS[suffix]})"

        def shown(index: int, score: Any) -> None:
            reward = "dropped" if score.reward is None else f"{score.reward:.3f}"
            self.say(f"eval {label}: task {score.task_id} reward {reward} ({score.status})")

        file = self.folder / f"{name}{suffix}.json"
        kept = _kept(file, model, tasks)
        if kept is not None:  # written by a run killed before it saved the loop's state
            self.say(f"eval {label}: kept from an earlier run ({file.name})")
            return kept
        self.say(f"eval {label}: {model} on {len(tasks)} tasks")
        scores = evaluate_model(
            tasks,
            model,
            toolbox=self.toolbox,
            budgets=self.config.budgets(),
            store=self.store,
            temperature=self.config.eval.temperature,
            batch=self.config.eval.batch,
            on_task=shown,
            seed=self.config.seed,
            precision=self.config.precision,
        )
        report = {"model": model, **summarize(scores), "scores": [s.to_dict() for s in scores]}
        partial = file.with_name(f".{file.name}.partial")
        partial.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
        os.replace(partial, file)
        return _entry(file, report)


def _entry(file: Path, report: dict[str, Any]) -> dict[str, Any]:
    return {"model": report["model"], "file": str(file), "mean": report["mean"], "n": report["n"]}


def _kept(file: Path, model: str, tasks: list[TrainingTask]) -> dict[str, Any] | None:
    """The evaluation in `file` when it is of `model` on exactly `tasks`, else None."""
    try:
        report = json.loads(file.read_text(encoding="utf-8"))
        scored = [score["task_id"] for score in report["scores"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if report.get("model") != model or sorted(scored) != sorted(t.task_id for t in tasks):
        return None
    return _entry(file, report)
