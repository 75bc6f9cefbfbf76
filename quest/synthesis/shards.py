"""A large kg batch as shards: index ranges that separate processes (a Celery group, or the
CLI's process pool) synthesise on their own, then one pass over them all for near-duplicates.

Shard k covers the batch's indices [k * size, min((k + 1) * size, count)). It runs
`synthesize` with the batch's spec, its own count and a seed derived from (batch seed, k), so
every shard is deterministic on its own and no two shards draw the same random stream. Shard 0
keeps the batch's seed: it is exactly the first `size` candidates of an unsharded run. Later
shards differ from an unsharded run's same indices in three ways: their random streams (the
runner seeds candidate i with "seed:i", and a shard's i is local), the subcategory order (the
least-used-first sampler restarts from the batch's starting counts in each shard) and what they
know of earlier candidates (a shard rejects repeats of its own drafts and near-duplicates of
its own tasks, not of other shards'). The last is made up by `later_duplicates`: after every
shard has finished, candidates are taken in batch order and an accepted one that repeats, or
nearly repeats, a task an earlier shard had let through the duplicate stage is rejected at that
stage, as it would have been in one run. Records are relabelled to the batch (index, seed) with
the shard's own values under provenance.shard, so any candidate can be made again alone.

A batch with `until_accepted` asks for `count` accepted tasks rather than `count` proposals. It
runs in waves: the first is the shards of `count` proposals; after each wave and its cross-shard
pass, `next_wave` plans enough further shards (whole shards, numbered on, so the plan does not
depend on how many workers run them) to make up the shortfall at the acceptance rate seen so far,
up to GOAL_PROPOSALS times `count` proposals in all. Every candidate made is kept: the last wave
may accept a few more than the goal.
"""

from __future__ import annotations

import functools
import hashlib
import math
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from typing import Any

from quest.search.encoder import Encoder
from quest.synthesis import funnel
from quest.synthesis.model import MAX_BATCH, BatchSpec, Candidate, Stage
from quest.synthesis.runner import synthesize

SHARD_SIZE = 250  # candidates per shard: about two minutes of one core with the baseline on
MAX_SHARDED = 20_000  # a sharded batch's most candidates (one shard stays within MAX_BATCH)
GOAL_PROPOSALS = 2  # an until_accepted batch proposes at most this many times its count
GOAL_MARGIN = 1.25  # a later wave proposes this much more than the rate so far says it needs


@dataclass(frozen=True)
class Shard:
    number: int
    start: int  # the batch index of its first candidate
    stop: int
    seed: int

    @property
    def count(self) -> int:
        return self.stop - self.start


def shardable(spec: BatchSpec, size: int = SHARD_SIZE) -> bool:
    """The kg generator's batches past one shard, and its until_accepted batches (they may run
    more waves); llm batches run whole (one model, one GPU)."""
    return spec.generator == "kg" and (spec.count > size or spec.until_accepted)


def shard_seed(seed: int, number: int) -> int:
    if number == 0:
        return seed
    digest = hashlib.sha256(f"questweb-shard:{seed}:{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def proposals_most(spec: BatchSpec) -> int:
    """The most candidates a batch proposes: its count, or for an until_accepted batch
    GOAL_PROPOSALS times it (within MAX_SHARDED)."""
    if not spec.until_accepted:
        return spec.count
    return min(spec.count * GOAL_PROPOSALS, MAX_SHARDED)


def shard_at(spec: BatchSpec, number: int, size: int = SHARD_SIZE) -> Shard:
    """Shard `number`: the first wave's cover [0, count) (the last may be short), later waves'
    follow on from `count`, `size` candidates each, up to the batch's most."""
    first = math.ceil(spec.count / size)
    if number < first:
        start, stop = number * size, min((number + 1) * size, spec.count)
    else:
        start = spec.count + (number - first) * size
        stop = min(start + size, proposals_most(spec))
    return Shard(number, start, stop, shard_seed(spec.seed, number))


def shards_of(spec: BatchSpec, size: int = SHARD_SIZE) -> list[Shard]:
    """The first (for a proposals batch, the only) wave: the shards of `count` proposals."""
    return [shard_at(spec, k, size) for k in range(math.ceil(spec.count / size))]


def next_wave(spec: BatchSpec, planned: int, accepted: int, size: int = SHARD_SIZE) -> list[Shard]:
    """The shards after the `planned` ones so far, whose candidates include `accepted` accepted
    ones (after the cross-shard pass): none for a proposals batch, once the goal is met, or once
    the batch has proposed its most."""
    proposed = shard_at(spec, planned - 1, size).stop if planned else 0
    if not spec.until_accepted or accepted >= spec.count or proposed >= proposals_most(spec):
        return []
    rate = max(accepted / max(proposed, 1), 0.05)
    wanted = math.ceil((spec.count - accepted) / rate * GOAL_MARGIN)
    last = math.ceil(spec.count / size) + math.ceil((proposals_most(spec) - spec.count) / size)
    return [
        shard_at(spec, k, size)
        for k in range(planned, min(planned + math.ceil(wanted / size), last))
    ]


def shard_spec(spec: BatchSpec, shard: Shard) -> BatchSpec:
    return replace(spec, seed=shard.seed, count=shard.count, until_accepted=False)


def problems(spec: BatchSpec) -> list[str]:
    """A spec's problems, a kg batch's count allowed up to MAX_SHARDED (it is sharded; an
    until_accepted batch's up to what it may propose)."""
    most = MAX_SHARDED if spec.generator == "kg" else MAX_BATCH
    if spec.until_accepted:
        most //= GOAL_PROPOSALS
    found = [] if 1 <= spec.count <= most else [f"count must be from 1 to {most}"]
    return found + replace(spec, count=max(1, min(spec.count, MAX_BATCH))).problems()


def relabel(candidate: Candidate, shard: Shard, batch_seed: int) -> Candidate:
    """A shard's candidate under its batch index, the shard's own seed and index kept."""
    provenance = candidate.record.get("provenance")
    if isinstance(provenance, dict):
        provenance["shard"] = {
            "number": shard.number,
            "seed": shard.seed,
            "index": candidate.index,
        }
        provenance["seed"], provenance["index"] = batch_seed, shard.start + candidate.index
    return replace(candidate, index=shard.start + candidate.index)


@dataclass(frozen=True)
class Seen:
    """What the cross-shard pass reads of one candidate."""

    index: int
    question: str
    key: tuple[str, ...]
    accepted: bool
    reached_baseline: bool
    subjects: tuple[str, ...] = ()


def seen_of(index: int, record: Mapping[str, Any], stages: Sequence[dict[str, Any]]) -> Seen:
    provenance = record.get("provenance") or {}
    names = {s.get("name"): s.get("passed") for s in stages}
    return Seen(
        index=index,
        question=str(record.get("question", "")),
        key=tuple(str(e) for e in provenance.get("entities") or ()),
        accepted=bool(names) and all(names.values()),
        reached_baseline="baseline" in names,
        # A record from before subjects were kept: its entity key's parts stand in for them.
        subjects=tuple(
            str(s) for s in provenance.get("subjects") or provenance.get("entities") or ()
        ),
    )


def later_duplicates(
    seen: Iterable[Seen], encoder: Encoder | None, existing: Sequence[str] = ()
) -> dict[int, Stage]:
    """The failing duplicate stage of each accepted candidate that repeats an earlier one, in
    batch order. As in one run, the index holds every task that got past the difficulty stage
    (it reached the baseline), accepted or not, compared by its subjects (what it is about) as
    the duplicate stage compares them."""
    index = funnel.DuplicateIndex(encoder, existing)
    found: dict[int, Stage] = {}
    for item in sorted(seen, key=lambda s: s.index):
        if not item.reached_baseline:
            continue
        stage = index.stage(item.question, item.key, item.subjects)
        if not stage.passed:
            if item.accepted:
                found[item.index] = replace(stage, detail={**stage.detail, "across_shards": True})
            continue
        index.add(item.question, item.key, item.subjects)
    return found


def rejected_stages(stages: Sequence[dict[str, Any]], duplicate: Stage) -> list[dict[str, Any]]:
    """A candidate's stages with its duplicate stage replaced by the failing one, and the
    stages after it (which a rejected candidate never reaches) left out."""
    kept: list[dict[str, Any]] = []
    for stage in stages:
        if stage.get("name") == "duplicate":
            return [*kept, duplicate.to_dict()]
        kept.append(stage)
    return [*kept, duplicate.to_dict()]


def synthesize_shard(spec: BatchSpec, shard: Shard, **inputs: Any) -> Iterator[Candidate]:
    """One shard's candidates under their batch indices; `inputs` as `synthesize` takes them."""
    for candidate in synthesize(shard_spec(spec, shard), **inputs):
        yield relabel(candidate, shard, spec.seed)


def deduplicated(
    candidates: Sequence[Candidate], encoder: Encoder | None, existing: Sequence[str] = ()
) -> list[Candidate]:
    """Every shard's candidates in batch order, later duplicates rejected (the CLI's pass; the
    app runs `later_duplicates` over its rows)."""
    ordered = sorted(candidates, key=lambda c: c.index)
    seen = [seen_of(c.index, c.record, [s.to_dict() for s in c.stages]) for c in ordered]
    found = later_duplicates(seen, encoder, existing)
    result = []
    for candidate in ordered:
        duplicate = found.get(candidate.index)
        if duplicate is not None:
            stages = [*candidate.stages[: _position(candidate.stages)], duplicate]
            provenance = candidate.record.get("provenance")
            if isinstance(provenance, dict):
                provenance["funnel"] = [s.to_dict() for s in stages]
            result.append(replace(candidate, stages=tuple(stages)))
        else:
            result.append(candidate)
    return result


def _position(stages: Sequence[Stage]) -> int:
    return next((i for i, s in enumerate(stages) if s.name == "duplicate"), len(stages))


def run_sharded(
    spec: BatchSpec,
    *,
    build: Callable[[], dict[str, Any]],
    workers: int,
    encoder: Encoder | None,
    progress: Callable[[str], None],
    size: int = SHARD_SIZE,
) -> list[Candidate]:
    """Every shard of a batch on this machine, `workers` processes at a time (each builds its
    own inputs with `build`, a picklable callable), then the cross-shard duplicate pass; for an
    until_accepted batch, wave after wave until the goal."""
    made: list[Candidate] = []
    wave, planned = shards_of(spec, size), 0
    pool = _pool(workers)
    if pool is None:  # this process runs the shards: it builds the inputs once, for them all
        build = functools.cache(build)
    try:
        while wave:
            planned += len(wave)
            made += _run_wave(
                spec, wave, build, pool, functools.partial(_done, progress, spec, len(made))
            )
            passed = deduplicated(made, encoder)
            accepted = sum(c.accepted for c in passed)
            wave = next_wave(spec, planned, accepted, size)
            if spec.until_accepted:
                progress(
                    f"{accepted} of {spec.count} accepted from {len(made)} candidates"
                    + (f"; {len(wave)} more shards" if wave else "")
                )
    finally:
        if pool is not None:
            pool.shutdown()
    return passed


def _pool(workers: int) -> Any:
    if workers == 1:
        return None
    # Spawned, not forked: a forked child inherits torch's thread pools half-started.
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _run_wave(
    spec: BatchSpec,
    wave: Sequence[Shard],
    build: Callable[[], dict[str, Any]],
    pool: Any,
    done: Callable[[Shard, Sequence[Candidate]], None],
) -> list[Candidate]:
    made: list[Candidate] = []
    if pool is None:
        for shard in wave:
            made += synthesize_shard(spec, shard, **build())
            done(shard, made)
        return made
    futures = {pool.submit(_shard_list, spec, shard, build): shard for shard in wave}
    for future in as_completed(futures):
        made += future.result()
        done(futures[future], made)
    return made


def _shard_list(
    spec: BatchSpec, shard: Shard, build: Callable[[], dict[str, Any]]
) -> list[Candidate]:
    return list(synthesize_shard(spec, shard, **_built(build)))


_BUILT: dict[int, dict[str, Any]] = {}


def _built(build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A pool process builds its inputs (pages, distractors, index, MiniLM) once, for every shard
    it runs."""
    if not _BUILT:
        _BUILT[0] = build()
    return _BUILT[0]


def _done(
    progress: Callable[[str], None],
    spec: BatchSpec,
    before: int,
    shard: Shard,
    wave: Sequence[Candidate],
) -> None:
    """One line as a shard ends: `before` candidates came from earlier waves."""
    accepted = sum(c.accepted for c in wave if shard.start <= c.index < shard.stop)
    total = f"{before + len(wave)}/{proposals_most(spec)}"
    goal = f" at most (goal: {spec.count} accepted)" if spec.until_accepted else ""
    progress(
        f"shard {shard.number} [{shard.start}, {shard.stop}): {accepted} of {shard.count} "
        f"accepted; {total} candidates{goal}"
    )
