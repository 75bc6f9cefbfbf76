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
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from quest.search.encoder import Encoder
from quest.synthesis import funnel
from quest.synthesis.model import MAX_BATCH, BatchSpec, Candidate, Stage

SHARD_SIZE = 250  # candidates per shard: about two minutes of one core with the baseline on
MAX_SHARDED = 20_000  # a sharded batch's most candidates (one shard stays within MAX_BATCH)


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
    """The kg generator's batches past one shard; llm batches run whole (one model, one GPU)."""
    return spec.generator == "kg" and spec.count > size


def shard_seed(seed: int, number: int) -> int:
    if number == 0:
        return seed
    digest = hashlib.sha256(f"questweb-shard:{seed}:{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 2**31


def shards_of(spec: BatchSpec, size: int = SHARD_SIZE) -> list[Shard]:
    return [
        Shard(k, start, min(start + size, spec.count), shard_seed(spec.seed, k))
        for k, start in enumerate(range(0, spec.count, size))
    ]


def shard_spec(spec: BatchSpec, shard: Shard) -> BatchSpec:
    return replace(spec, seed=shard.seed, count=shard.count)


def problems(spec: BatchSpec) -> list[str]:
    """A spec's problems, a kg batch's count allowed up to MAX_SHARDED (it is sharded)."""
    most = MAX_SHARDED if spec.generator == "kg" else MAX_BATCH
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
    from quest.synthesis.runner import synthesize

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
    own inputs with `build`, a picklable callable), then the cross-shard duplicate pass."""
    plan = shards_of(spec, size)
    made: list[Candidate] = []
    if workers == 1:
        inputs = build()
        for shard in plan:
            made += synthesize_shard(spec, shard, **inputs)
            _done(progress, shard, made, spec.count)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # Spawned, not forked: a forked child inherits torch's thread pools half-started.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = {pool.submit(_shard_list, spec, shard, build): shard for shard in plan}
            for future in as_completed(futures):
                made += future.result()
                _done(progress, futures[future], made, spec.count)
    return deduplicated(made, encoder)


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
    progress: Callable[[str], None], shard: Shard, made: Sequence[Candidate], count: int
) -> None:
    accepted = sum(c.accepted for c in made if shard.start <= c.index < shard.stop)
    progress(
        f"shard {shard.number} [{shard.start}, {shard.stop}): {accepted} of {shard.count} "
        f"accepted; {len(made)}/{count} candidates"
    )
