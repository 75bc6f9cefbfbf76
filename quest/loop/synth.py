"""The loop's synth stage: knowledge-graph tasks through the funnel, and their sides.

`worlds` (the default): the graph's entities are split into a train and a held-out world
first (quest.synthesis.worlds), then three batches are synthesized, each in its world: the train
tasks, the held-out tasks, and the out-of-family slice (held-out world, one family or class,
with the seed sampler steered towards it). No task can mix the sides, so none is dropped, and
`proof` in tasks/split.json lists every name found on both sides with the reason it may be:
shared values only (a continent, a language of both worlds, a name of entities on both
sides, or a name the graph does not know).

`after`: one batch over the whole graph, split afterwards by shared entities
(quest.loop.split).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from quest.corpus.store import CorpusStore
from quest.loop.config import LoopConfig
from quest.loop.split import Split, split_tasks
from quest.rubric.distractors import TitleDistractors
from quest.search.encoder import MiniLMEncoder
from quest.synthesis.entities import CLASS, task_entities
from quest.synthesis.model import BatchSpec, SynthesisError
from quest.synthesis.runner import synthesize
from quest.synthesis.worlds import Scope, Worlds, partition

Progress = Callable[[str], None]
# Where the seed sampler is steered for an out-of-family family: the country chains are drawn
# for General Info. at the depth classes (quest.synthesis.kgsynth).
FAMILY_STEERING: dict[str, tuple[dict[str, float], dict[str, float]]] = {
    "chain": ({"General Info.": 1.0}, {"C3": 1.0, "C6": 1.0, "C9": 1.0}),
    "domain_chain": ({}, {"C3": 1.0, "C6": 1.0}),
    "chain_fanout": ({}, {"C7": 1.0, "C8": 1.0}),
    "lookup": ({"General Info.": 1.0}, {"C1": 1.0, "C2": 1.0, "C4": 1.0, "C5": 1.0}),
}


class SynthFailed(Exception):
    """Synthesis could not run; the message says why."""


def synthesize_sides(
    config: LoopConfig, corpus: Path, say: Progress
) -> tuple[list[dict[str, Any]], dict[str, Any], Counter[str]]:
    """(accepted records with task ids, the split document, rejections by stage)."""
    if config.synth.split == "after":
        return _after(config, corpus, say)
    return _worlds(config, corpus, say)


def _worlds(
    config: LoopConfig, corpus: Path, say: Progress
) -> tuple[list[dict[str, Any]], dict[str, Any], Counter[str]]:
    synth, seed = config.synth, config.seed
    worlds = partition(seed, synth.world_share)
    summary = worlds.summary()
    say(
        f"worlds: {summary['countries']['train']} train and {summary['countries']['heldout']} "
        f"held-out countries (seed {seed})"
    )
    oof = synth.out_of_family
    Steering = tuple[dict[str, float], dict[str, float]]
    batches: list[tuple[str, str, Scope, int, Steering]] = [
        ("train", "t", Scope(worlds, "train", oof, False), synth.tasks, ({}, {})),
        ("heldout", "h", Scope(worlds, "heldout", oof, False), synth.heldout_tasks, ({}, {})),
    ]
    if oof and synth.family_tasks:
        steer = ({}, {oof: 1.0}) if CLASS.match(oof) else FAMILY_STEERING.get(oof, ({}, {}))
        scope = Scope(worlds, "heldout", oof, True)
        batches.append(("out_of_family", "f", scope, synth.family_tasks, steer))
    accepted: list[dict[str, Any]] = []
    sides: dict[str, str] = {}
    rejected: Counter[str] = Counter()
    for side, letter, scope, count, (categories, classes) in batches:
        records = _batch(config, corpus, say, side, scope, count, categories, classes, rejected)
        for index, record in records:
            record["task_id"] = f"s{seed}-{letter}{index:04d}"
            sides[record["task_id"]] = side
            accepted.append(record)
    entities = {str(r["task_id"]): sorted(task_entities(r)) for r in accepted}
    counts = {
        "train": sum(1 for s in sides.values() if s == "train"),
        "heldout": sum(1 for s in sides.values() if s == "heldout"),
        "out_of_family": sum(1 for s in sides.values() if s == "out_of_family"),
        "dropped_mixed": 0,
        "method": "worlds",
        "out_of_family_slice": oof,
        "heldout_entities": summary["names"]["heldout"],
    }
    document = {
        "counts": counts,
        "split": sides,
        "entities": entities,
        "worlds": summary,
        "proof": proof(worlds, sides, entities),
    }
    return accepted, document, rejected


def proof(
    worlds: Worlds, sides: Mapping[str, str], entities: Mapping[str, Iterable[str]]
) -> dict[str, Any]:
    """The names found on both sides (train, and held-out or out-of-family), each with why it
    may be, and `crossing`: those of a world, which must be none."""
    train: set[str] = set()
    other: set[str] = set()
    for task_id, names in entities.items():
        (train if sides.get(task_id) == "train" else other).update(names)
    both = sorted(train & other)
    shared = {
        name: worlds.shared.get(name, "no entity of the graph")
        for name in both
        if name not in worlds.sides
    }
    return {"shared": shared, "crossing": [name for name in both if name in worlds.sides]}


def _batch(
    config: LoopConfig,
    corpus: Path,
    say: Progress,
    side: str,
    scope: Scope | None,
    count: int,
    categories: dict[str, float],
    classes: dict[str, float],
    rejected: Counter[str],
) -> list[tuple[int, dict[str, Any]]]:
    spec = BatchSpec(
        generator="kg",
        count=count,
        seed=config.seed,
        baseline=False,
        categories=categories,
        classes=classes,
    )
    store = CorpusStore(corpus)
    distractors = TitleDistractors((d.url, d.title, d.text) for d in store.documents())
    found: list[tuple[int, dict[str, Any]]] = []
    try:
        for candidate in synthesize(
            spec, pages=store, distractors=distractors, encoder=MiniLMEncoder(), scope=scope
        ):
            if candidate.accepted:
                found.append((candidate.index, dict(candidate.record)))
            else:
                rejected[candidate.rejected_at or "?"] += 1
            if (candidate.index + 1) % 25 == 0 or candidate.index + 1 == spec.count:
                say(
                    f"synth ({side}): {candidate.index + 1}/{spec.count} proposals, "
                    f"{len(found)} accepted"
                )
    except SynthesisError as error:
        raise SynthFailed(f"synthesis: {error}") from None
    return found


def _after(
    config: LoopConfig, corpus: Path, say: Progress
) -> tuple[list[dict[str, Any]], dict[str, Any], Counter[str]]:
    rejected: Counter[str] = Counter()
    accepted = []
    for index, record in _batch(
        config, corpus, say, "all", None, config.synth.tasks, {}, {}, rejected
    ):
        record["task_id"] = f"s{config.seed}-{index:04d}"
        accepted.append(record)
    if len(accepted) < 2:
        return accepted, {}, rejected
    split: Split = split_tasks(
        accepted,
        share=config.synth.heldout_share,
        seed=config.seed,
        out_of_family=config.synth.out_of_family,
    )
    document = {"counts": split.counts(), "split": split.sides, "entities": split.entities}
    return accepted, document, rejected
