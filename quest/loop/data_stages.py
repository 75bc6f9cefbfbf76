"""The loop's data stages: synthesize and split, gate, collect trajectories.

Layout under the loop's directory:
    tasks/accepted.jsonl   every task the funnel accepted (the /api/imports record + task_id)
    tasks/split.json       task id -> "train" | "heldout" | "out_of_family" | "dropped", each
                           task's class (C1..C9) and entities, the counts, and for the worlds
                           split the worlds and the proof of their separation (quest.loop.synth)
    gate/gate.json         who gated which tasks: "auto-accept-sound" records that no human looked
    gate/accepted.txt      (human gate) the task ids an audit accepted, one per line
    tasks/train.jsonl      gated train tasks (quest.training.tasks records)
    tasks/heldout.jsonl    gated held-out tasks: no training stage ever reads this file, and
                           none shares an entity with a train task
    tasks/out_of_family.jsonl  gated tasks of the family no stage trains on
    data/trajectories.jsonl, data/sft.jsonl, data/rl.jsonl
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quest.agent.condenser import RuleCondenser
from quest.agent.scripted import ScriptedPolicy
from quest.corpus.store import CorpusStore
from quest.loop.config import LoopConfig
from quest.loop.synth import SynthFailed, synthesize_sides
from quest.tools.offline import offline_toolbox
from quest.training.collect import collect
from quest.training.guided import guided_teachers
from quest.training.records import atomic_path, read_jsonl, write_jsonl
from quest.training.rl import build_rl, write_rl
from quest.training.rollouts import read_rollouts
from quest.training.sft import SFTBuilder
from quest.training.tasks import TrainingTask, read_tasks

if TYPE_CHECKING:
    from quest.tools.toolbox import Toolbox

Progress = Callable[[str], None]
SIDES = ("train", "heldout", "out_of_family")  # the gated task files; dropped tasks have none
GATE_WAITING = (
    "the human gate: write the task ids an audit accepted to {path}, one per line (the app's "
    "Recipe page does this from its campaign), then run the loop again; or pass "
    "--auto-accept-sound to accept every sound task with no human review"
)


class StageFailed(Exception):
    """A stage that cannot produce its output; the message says why."""


class GateWaiting(Exception):
    """The human gate has no decisions yet."""


def paths(directory: Path) -> dict[str, Path]:
    return {
        "accepted": directory / "tasks" / "accepted.jsonl",
        "split": directory / "tasks" / "split.json",
        "train": directory / "tasks" / "train.jsonl",
        "heldout": directory / "tasks" / "heldout.jsonl",
        "out_of_family": directory / "tasks" / "out_of_family.jsonl",
        "gate": directory / "gate" / "gate.json",
        "decisions": directory / "gate" / "accepted.txt",
        "trajectories": directory / "data" / "trajectories.jsonl",
        "sft": directory / "data" / "sft.jsonl",
        "rl": directory / "data" / "rl.jsonl",
    }


def synth_stage(directory: Path, config: LoopConfig, corpus: Path, say: Progress) -> dict[str, Any]:
    """Knowledge-graph tasks through the funnel, each on its side (quest.loop.synth): by
    default synthesized in a train and a held-out world split before any task is proposed.
    Every accepted one is sound (the funnel's probes passed)."""
    where = paths(directory)
    try:
        accepted, document, rejected = synthesize_sides(config, corpus, say)
    except SynthFailed as error:
        raise StageFailed(str(error)) from None
    if len(accepted) < 2:
        raise StageFailed(f"synthesis accepted {len(accepted)} task(s); ask for more --tasks")
    classes = {r["task_id"]: str(r.get("complexity", "")) for r in accepted}
    where["accepted"].parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(where["accepted"], accepted)
    counts = document["counts"]
    _write_json(where["split"], {**document, "classes": classes})
    say(
        f"split ({counts['method']}): {counts['train']} train, {counts['heldout']} held out, "
        f"{counts['dropped_mixed']} dropped (mixed), {counts['out_of_family']} out of family"
    )
    crossing = (document.get("proof") or {}).get("crossing")
    if crossing:  # the worlds let a name of one world into the other's tasks: a bug, not data
        raise StageFailed(f"split: {len(crossing)} names on both sides: {', '.join(crossing[:5])}")
    return {
        "proposals": _proposals(config),
        "accepted": len(accepted),
        "rejected": dict(rejected),
        **counts,
        "classes": dict(Counter(classes.values())),
        "files": {"accepted": str(where["accepted"]), "split": str(where["split"])},
    }


def _proposals(config: LoopConfig) -> int:
    synth = config.synth
    if synth.split == "after":
        return synth.tasks
    family = synth.family_tasks if synth.out_of_family else 0
    return synth.tasks + synth.heldout_tasks + family


def gate_stage(directory: Path, config: LoopConfig, say: Progress) -> dict[str, Any]:
    """The training gate. `auto-accept-sound`: every task the funnel accepted (its probes found
    the tree sound), recorded as accepted by no human. `human`: the ids in gate/accepted.txt;
    without that file the loop waits."""
    where = paths(directory)
    records = {str(r["task_id"]): r for _, r in read_jsonl(where["accepted"])}
    split = json.loads(where["split"].read_text(encoding="utf-8"))["split"]
    if config.gate == "auto-accept-sound":
        accepted = set(records)
        gate = {
            "mode": "auto-accept-sound",
            "human_reviewed": False,
            "note": "every task the synthesis funnel found sound was accepted; no human looked",
        }
    else:
        decisions = where["decisions"]
        if not decisions.is_file():
            raise GateWaiting(GATE_WAITING.format(path=decisions))
        listed = {line.strip() for line in decisions.read_text(encoding="utf-8").splitlines()}
        listed.discard("")
        unknown = sorted(listed - set(records))
        if unknown:
            raise StageFailed(f"{decisions}: not tasks of this loop: {', '.join(unknown[:5])}")
        accepted = listed
        gate = {"mode": "human", "human_reviewed": True, "decisions": str(decisions)}
    chosen: dict[str, list[dict[str, Any]]] = {name: [] for name in SIDES}
    for task_id, record in records.items():
        if task_id in accepted and split[task_id] in chosen:  # "dropped" sides with neither
            chosen[split[task_id]].append(_task_record(record))
    for name in SIDES:
        write_jsonl(where[name], chosen[name])
    gate.update(
        accepted=len(accepted),
        rejected=len(records) - len(accepted),
        **{name: len(chosen[name]) for name in SIDES},
    )
    _write_json(where["gate"], gate)
    say(
        f"gate ({gate['mode']}): {len(chosen['train'])} train, {len(chosen['heldout'])} held "
        f"out, {len(chosen['out_of_family'])} out of family"
    )
    if not chosen["train"] or not chosen["heldout"]:
        raise StageFailed("the gate left no train or no held-out task; synthesize more tasks")
    return {**gate, "files": {n: str(where[n]) for n in ("gate", *SIDES)}}


def collect_stage(
    directory: Path, config: LoopConfig, corpus: Path, say: Progress
) -> dict[str, Any]:
    """A teacher on the train split (never the held-out one), every rollout recorded; the SFT
    set keeps those whose rubric reward reaches `collect.min_reward`. `collect.teacher`:
    `guided` walks each task's solution path, read from its accepted record
    (quest.training.guided), and with `collect.fallback` the scripted researcher follows where
    its rollout is not kept; `scripted` is the scripted researcher alone. The reward
    decides what is kept, never the teacher. No hint retry: a hinted rollout's searches carry
    words of the answer the recorded prompt does not, and SFT would teach the model to know
    what it was never told. The RL set is every train task."""
    where = paths(directory)
    tasks = read_tasks(where["train"])
    records = {str(r["task_id"]): r for _, r in read_jsonl(where["accepted"])}
    store = CorpusStore(corpus)
    toolbox = offline_toolbox(corpus)
    where["trajectories"].parent.mkdir(parents=True, exist_ok=True)
    kept: dict[str, bool] = {}

    def sink(handle: Any) -> Callable[[list[dict[str, Any]], bool], None]:
        def write(rollout: list[dict[str, Any]], is_kept: bool) -> None:
            handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rollout)
            task_id = str(rollout[0]["task_id"])
            first = task_id not in kept
            kept[task_id] = kept.get(task_id, False) or is_kept
            if first and len(kept) % 20 == 0:
                say(f"collect: {len(kept)} of {len(tasks)} tasks, {sum(kept.values())} kept")

        return write

    with atomic_path(where["trajectories"]) as partial, partial.open("w", encoding="utf-8") as out:
        report = collect(
            tasks,
            **_teachers(config, records, toolbox),
            condenser_factory=RuleCondenser,
            toolbox=toolbox,
            budgets=config.budgets(),
            store=store,
            attempts=config.collect.attempts,
            min_reward=config.collect.min_reward,
            hint_retry=False,
            on_rollout=sink(out),
        )
    builder = SFTBuilder(tasks=tasks, store=store, min_reward=config.collect.min_reward)
    rollouts = read_rollouts(read_jsonl(where["trajectories"]), source=str(where["trajectories"]))
    rows = write_jsonl(where["sft"], builder.rows(rollouts))
    rl = build_rl(tasks)
    write_rl(where["rl"], rl.rows)
    by_family = _kept_by_family(tasks, records, kept)
    share = report.tasks_with_a_kept_rollout / len(tasks) if tasks else 0.0
    say(
        f"collect ({config.collect.teacher}): {report.tasks_with_a_kept_rollout} of {len(tasks)} "
        f"train tasks kept ({share:.0%}); {report.kept} of {report.rollouts} rollouts kept, "
        f"{rows} SFT rows; by family: "
        + ", ".join(f"{f} {c['kept']}/{c['tasks']}" for f, c in by_family.items())
    )
    if rows == 0:
        raise StageFailed(
            f"no rollout reached the reward threshold {config.collect.min_reward} "
            f"(mean reward {report.mean_reward}); lower collect.min_reward or add tasks"
        )
    return {
        **report.to_json(),
        "teacher": config.collect.teacher,
        "kept_share": share,
        "by_family": by_family,
        "sft_rows": rows,
        "rl_rows": len(rl.rows),
        "files": {n: str(where[n]) for n in ("trajectories", "sft", "rl")},
    }


def _teachers(config: LoopConfig, records: dict[str, Any], toolbox: Toolbox) -> dict[str, Any]:
    """collect's policy arguments for `collect.teacher`: the guided teacher built per task from
    its record (and, with `collect.fallback`, the scripted researcher where its rollout is not
    kept); or the scripted researcher."""
    if config.collect.teacher == "scripted":
        return {"policy_factory": ScriptedPolicy}
    teachers = guided_teachers(records, toolbox, config.budgets())
    fallback = ScriptedPolicy if config.collect.fallback else None
    return {"task_policy_factory": teachers, "fallback_factory": fallback}


def _kept_by_family(
    tasks: Iterable[TrainingTask], records: dict[str, Any], kept: dict[str, bool]
) -> dict[str, dict[str, Any]]:
    """{family: {tasks, kept, share}}: the train tasks of each family (the synthesizer's, from
    the task's record) and how many have a kept rollout."""
    counts: dict[str, list[int]] = {}
    for task in tasks:
        record = records.get(task.task_id) or {}
        family = str((record.get("provenance") or {}).get("family") or "unknown")
        count = counts.setdefault(family, [0, 0])
        count[0] += 1
        count[1] += kept.get(task.task_id, False)
    return {
        family: {"tasks": total, "kept": hits, "share": hits / total}
        for family, (total, hits) in sorted(counts.items())
    }


def _task_record(record: dict[str, Any]) -> dict[str, Any]:
    keep = ("task_id", "question", "rubric", "type", "category")
    return {key: record[key] for key in keep if key in record}


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)
