"""A kg batch past one shard runs as several cpu tasks writing into one batch: one progress bar,
one end, no task accepted twice. The worker test runs a real Celery worker over the GeoNames and
countryinfo corpus; the others run the shards here, the way the worker runs them."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.synthesis import sharded
from apps.synthesis.models import SynthesisBatch
from apps.synthesis.services import batch_cancel, batch_create
from quest.synthesis import shards


def _distinct_accepted(batch: SynthesisBatch) -> None:
    accepted = list(batch.candidates.filter(accepted=True))
    keys = [tuple(c.record["provenance"]["entities"]) for c in accepted]
    assert len({c.question for c in accepted}) == len(accepted) == len(set(keys))
    assert batch.accepted == len(accepted) == Task.objects.count()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_a_batch_split_into_shards_behind_one_progress_bar(
    client: Client,
    admin: User,
    bearer: Callable[[User], dict[str, str]],
    geo_corpus: Path,
    start_worker: Callable[..., Any],
    settings: Any,
) -> None:
    settings.SYNTHESIS_SHARD_SIZE = 2
    worker = start_worker("cpu", QUESTWEB_CORPUS_DIR=str(geo_corpus))
    headers = bearer(admin)
    body = json.dumps({"count": 5, "seed": 31, "baseline": True})
    queued = client.post(
        "/api/synthesis/batches", body, content_type="application/json", headers=headers
    )
    assert queued.status_code == 202, queued.content

    seen: list[tuple[int, int]] = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        now = client.get(f"/api/synthesis/batches/{queued.json()['id']}", headers=headers).json()
        seen.append((now["proposed"], now["total"]))
        if now["status"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.3)
    assert (now["status"], now["proposed"], now["total"], now["error"]) == ("done", 5, 5, "")
    assert [p for p, _ in seen] == sorted(p for p, _ in seen), "the bar only moves forward"
    assert {total for _, total in seen} == {5}
    batch = SynthesisBatch.objects.get(pk=now["id"])
    assert (batch.shards, batch.shards_done) == (3, 3)
    assert list(batch.candidates.values_list("index", flat=True)) == [0, 1, 2, 3, 4]
    shard_of = [
        c.record["provenance"].get("shard", {}).get("number") for c in batch.candidates.all()
    ]
    assert shard_of == [0, 0, 1, 1, 2]
    _distinct_accepted(batch)
    assert worker.poll() is None


@pytest.mark.django_db
def test_shards_that_draw_the_same_tasks_keep_only_the_first_of_each(
    admin: User, geo_corpus: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.SYNTHESIS_SHARD_SIZE = 3
    monkeypatch.setattr(shards, "shard_seed", lambda seed, number: seed)  # every shard alike
    batch = batch_create(user=admin, spec={"count": 6, "seed": 4, "baseline": False})
    sharded.shard_run(batch_id=batch.pk, number=0, used={})
    first = list(batch.candidates.filter(accepted=True).values_list("question", flat=True))
    sharded.shard_run(batch_id=batch.pk, number=1, used={})

    batch.refresh_from_db()
    assert (batch.status, batch.proposed, batch.shards_done) == ("done", 6, 2)
    assert (
        first
        and list(batch.candidates.filter(accepted=True).values_list("question", flat=True)) == first
    )
    later = batch.candidates.filter(index__gte=3, rejected_at="duplicate")
    assert later.count() == len(first)
    for candidate in later:
        assert candidate.task is None and candidate.stages[-1]["name"] == "duplicate"
        assert candidate.stages[-1]["detail"]["across_shards"] is True
        assert candidate.record["provenance"]["funnel"] == candidate.stages
    _distinct_accepted(batch)


@pytest.mark.django_db
def test_a_sharded_batch_cancelled_between_shards_runs_none_of_the_rest(
    admin: User, geo_corpus: Path, settings: Any
) -> None:
    settings.SYNTHESIS_SHARD_SIZE = 2
    batch = batch_create(user=admin, spec={"count": 6, "seed": 5, "baseline": False})
    sharded.shard_run(batch_id=batch.pk, number=0, used={})
    batch_cancel(user=admin, batch_id=batch.pk)
    sharded.shard_run(batch_id=batch.pk, number=1, used={})

    batch.refresh_from_db()
    assert (batch.status, batch.proposed, batch.candidates.count()) == ("cancelled", 2, 2)


@pytest.mark.django_db
def test_a_failing_shard_ends_the_batch_failed_and_the_others_write_nothing(
    admin: User, geo_corpus: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.SYNTHESIS_SHARD_SIZE = 2
    batch = batch_create(user=admin, spec={"count": 6, "seed": 6, "baseline": False})
    sharded.shard_run(batch_id=batch.pk, number=0, used={})

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(shards, "synthesize_shard", broken)
    sharded.shard_run(batch_id=batch.pk, number=1, used={})
    sharded.shard_run(batch_id=batch.pk, number=2, used={})

    batch.refresh_from_db()
    assert batch.status == "failed" and "the disk is full" in batch.error
    assert batch.proposed == batch.candidates.count() == 2


def test_shards_cover_the_batch_and_only_the_first_keeps_its_seed() -> None:
    spec = shards.BatchSpec(count=5001, seed=9)
    plan = shards.shards_of(spec)
    assert [(s.start, s.stop) for s in plan[:2]] == [(0, 250), (250, 500)]
    assert plan[-1].count == 1 and sum(s.count for s in plan) == 5001
    assert plan[0].seed == 9 and len({s.seed for s in plan}) == len(plan)
    assert shards.shards_of(spec) == plan, "the same seed shards the same way"


def test_a_kg_batch_may_ask_for_thousands_and_an_llm_batch_may_not() -> None:
    assert shards.problems(shards.BatchSpec(count=5000)) == []
    assert shards.problems(shards.BatchSpec(count=20_001)) == ["count must be from 1 to 20000"]
    llm = shards.problems(shards.BatchSpec(generator="llm", count=5000))
    assert llm == ["count must be from 1 to 2000"]


def test_the_duplicate_pass_keeps_the_earlier_of_two_shards_repeats() -> None:
    def seen(index: int, key: str, accepted: bool = True) -> shards.Seen:
        return shards.Seen(index, f"Question {index}?", (key,), accepted, True)

    found = shards.later_duplicates([seen(7, "FR"), seen(2, "FR"), seen(3, "DE")], None)
    assert list(found) == [7]
    assert found[7].name == "duplicate" and not found[7].passed


@pytest.mark.django_db
def test_a_batch_until_accepted_queues_waves_until_its_goal_or_its_most(
    admin: User,
    geo_corpus: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.SYNTHESIS_SHARD_SIZE = 2
    # Every shard draws the same tasks: the cross-shard pass rejects all but the first's.
    monkeypatch.setattr(shards, "shard_seed", lambda seed, number: seed)
    queued: list[range] = []
    monkeypatch.setattr(sharded, "enqueue_shards", lambda batch, numbers: queued.append(numbers))
    spec = {"count": 3, "seed": 4, "baseline": False, "until_accepted": True}
    batch = batch_create(user=admin, spec=spec)
    assert (batch.total, batch.shards) == (3, 2), "[0, 2) and [2, 3)"
    sharded.shard_run(batch_id=batch.pk, number=0, used={})
    with django_capture_on_commit_callbacks(execute=True):
        sharded.shard_run(batch_id=batch.pk, number=1, used={})

    batch.refresh_from_db()
    assert batch.status == "running" and batch.accepted < 3
    assert queued == [range(2, 3)] and batch.shards == 3, "one more shard makes up the rest"
    while batch.status == "running":
        with django_capture_on_commit_callbacks(execute=True):
            sharded.shard_run(batch_id=batch.pk, number=batch.shards - 1, used={})
        batch.refresh_from_db()
    assert (batch.status, batch.proposed) == ("done", 6), "twice the goal proposed, the most"
    assert batch.shards_done == batch.shards == len(queued) + 2
    assert list(batch.candidates.values_list("index", flat=True)) == list(range(6))
    _distinct_accepted(batch)


@pytest.mark.django_db
def test_a_goal_past_what_a_batch_may_propose_is_refused_with_the_limit(
    client: Client, admin: User, bearer: Callable[[User], dict[str, str]]
) -> None:
    for body, words in (
        ({"count": 10_001, "until_accepted": True}, "count must be from 1 to 10000"),
        ({"generator": "llm", "count": 5, "until_accepted": True}, "needs the kg generator"),
        ({"count": 5, "until_accepted": "maybe"}, "until_accepted"),
    ):
        made = client.post(
            "/api/synthesis/batches",
            json.dumps(body),
            content_type="application/json",
            headers=bearer(admin),
        )
        assert made.status_code in (400, 422) and words in made.content.decode(), made.content
    assert not SynthesisBatch.objects.exists()
