"""A batch that asks for N accepted tasks (until_accepted) proposes shard after shard until the
funnel, cross-shard duplicates included, has accepted N, and never more than GOAL_PROPOSALS * N
candidates."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from quest.corpus.store import CorpusStore
from quest.rubric import TitleDistractors
from quest.synthesis import shards
from quest.synthesis.model import BatchSpec


def goal(count: int, **fields: Any) -> BatchSpec:
    return BatchSpec(count=count, until_accepted=True, **fields)


def test_the_next_wave_makes_up_the_shortfall_at_the_rate_seen_so_far() -> None:
    spec = goal(100, seed=3)
    # 4 shards of 25 gave 80 accepted: 20 more at 0.8 is 25 candidates, 32 with the margin.
    wave = shards.next_wave(spec, planned=4, accepted=80, size=25)
    assert [s.number for s in wave] == [4, 5]
    assert [(s.start, s.stop) for s in wave] == [(100, 125), (125, 150)]
    assert wave[0].seed == shards.shard_seed(3, 4), "numbered on, each its own stream"


def test_no_next_wave_once_the_goal_is_met_or_the_most_proposed() -> None:
    spec = goal(100)
    assert shards.next_wave(spec, planned=4, accepted=100, size=25) == []
    assert shards.next_wave(spec, planned=8, accepted=3, size=25) == [], "200 proposed: the most"
    last = shards.next_wave(spec, planned=7, accepted=3, size=25)
    assert [(s.start, s.stop) for s in last] == [(175, 200)], "a bad rate stops at the most"
    proposals = BatchSpec(count=100)
    assert shards.next_wave(proposals, planned=4, accepted=10, size=25) == []


def test_a_small_goal_proposes_its_count_first_and_later_waves_follow_on() -> None:
    spec = goal(12, seed=5)
    assert [(s.start, s.stop) for s in shards.shards_of(spec, 250)] == [(0, 12)]
    wave = shards.next_wave(spec, planned=1, accepted=9, size=250)
    assert [(s.start, s.stop) for s in wave] == [(12, 24)], "on from 12, up to twice the goal"
    plan = shards.shards_of(goal(7), 5) + shards.next_wave(goal(7), 2, 1, 5)
    assert [(s.start, s.stop) for s in plan] == [(0, 5), (5, 7), (7, 12), (12, 14)], "no gaps"


def test_the_plan_does_not_depend_on_the_workers() -> None:
    spec = goal(1000, seed=8)
    first = shards.shards_of(spec, 250)
    assert [(s.start, s.stop) for s in first] == [(0, 250), (250, 500), (500, 750), (750, 1000)]
    assert shards.next_wave(spec, 4, 870, 250) == [shards.shard_at(spec, 4, 250)]


def test_a_goal_is_at_most_half_of_what_a_batch_may_propose() -> None:
    assert shards.problems(goal(10_000)) == []
    assert shards.problems(goal(10_001)) == ["count must be from 1 to 10000"]
    assert "until_accepted needs the kg generator" in "; ".join(
        shards.problems(goal(5, generator="llm"))
    )
    assert shards.shardable(goal(5)), "a goal runs in waves however small"


def _inputs(pages: CorpusStore, distractors: TitleDistractors) -> dict[str, Any]:
    return {"pages": pages, "distractors": distractors, "top_hit": False}


def _run(
    spec: BatchSpec, pages: CorpusStore, distractors: TitleDistractors, lines: list[str]
) -> list[shards.Candidate]:
    """The batch in this process, shards of 2, no encoder (entities decide duplicates)."""
    build = functools.partial(_inputs, pages, distractors)
    return shards.run_sharded(
        spec, build=build, workers=1, encoder=None, progress=lines.append, size=2
    )


def test_a_goal_batch_runs_waves_until_it_has_its_accepted_tasks(
    pages: CorpusStore, distractors: TitleDistractors, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines: list[str] = []
    real = shards.next_wave
    waves: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> list[shards.Shard]:
        made = real(*args, **kwargs)
        waves.append(len(made))
        return made

    monkeypatch.setattr(shards, "next_wave", counted)
    made = _run(goal(4, seed=12, baseline=False), pages, distractors, lines)
    accepted = [c for c in made if c.accepted]
    assert len(accepted) >= 4
    assert [c.index for c in made] == list(range(len(made))), "batch order, no gaps"
    assert len({c.record["question"] for c in accepted}) == len(accepted)
    assert waves[-1] == 0 and len(made) <= 8
    assert any("of 4 accepted from" in line for line in lines)


def test_a_goal_it_cannot_reach_stops_at_twice_its_count(
    pages: CorpusStore, distractors: TitleDistractors, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every shard draws the same tasks: after the first, the cross-shard pass rejects them all.
    monkeypatch.setattr(shards, "shard_seed", lambda seed, number: seed)
    made = _run(goal(3, seed=5, baseline=False), pages, distractors, [])
    assert len(made) == 6, "at most GOAL_PROPOSALS x count candidates"
    first = [c for c in made if c.index < 2 and c.accepted]
    later = [c for c in made if c.index >= 2]
    assert first and not any(c.accepted for c in later)
    assert {c.rejected_at for c in later} <= {"duplicate", "schema"}
