"""A sharded kg batch inside the cpu workers: one Celery task per shard (quest.synthesis.shards),
queued together as a group, all writing into the one batch.

Every shard writes its candidates through the runner's own writer, so the batch's counts rise
with F() updates under its row lock and the page's one progress bar shows all shards together.
The first shard to start claims the batch (queued to running); a shard that finds the batch
ended (cancelled, failed, expired) writes nothing, and a failing shard ends the batch failed, so
the others stop at their next candidate. The join is a counter on the batch rather than a chord:
the broker is Redis with no result backend configured, which a chord needs. The shard that
counts itself last runs the cross-shard near-duplicate pass (shards.later_duplicates) over the
batch's rows, rejects the later duplicates at the duplicate stage, removes their tasks and ends
the batch done.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.common.errors import NotFound
from apps.jobs.dispatch import JobStopped, job_end, job_start
from apps.jobs.models import JobStatus
from apps.rubrics.models import Task
from apps.rubrics.services import task_discard_untouched
from apps.synthesis import runner
from apps.synthesis.models import SynthesisBatch, SynthesisCandidate
from apps.synthesis.services import SYNTHESIS, enqueue_shards, spec_load
from quest.synthesis import shards
from quest.synthesis.model import Stage

log = logging.getLogger(__name__)


def _claim(batch_id: int) -> bool:
    """Queued → running for the first shard; later shards join a running batch."""
    return job_start(SYNTHESIS, batch_id) or runner.running(batch_id)


def _store_questions(batch: SynthesisBatch) -> list[str]:
    """The task store's questions but this batch's own: the duplicate stage of every shard then
    starts from the same store, whichever shards have written already."""
    rows = Task.objects.exclude(synthesis_candidates__batch=batch)
    return list(rows.values_list("question", flat=True))


def shard_run(*, batch_id: int, number: int, used: dict[str, int]) -> None:
    """Run one shard of a sharded batch; the last to finish ends the batch."""
    batch = SynthesisBatch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise NotFound(f"no synthesis batch {batch_id}")
    if not _claim(batch_id):
        log.info("synthesis batch %s has ended; shard %s not run", batch_id, number)
        return
    spec = spec_load(batch.spec)
    if not 0 <= number < batch.shards:
        raise NotFound(f"synthesis batch {batch_id} has no shard {number}")
    shard = shards.shard_at(spec, number, batch.shard_size)
    written = batch.candidates.filter(index__gte=shard.start, index__lt=shard.stop)
    if written.exists():
        log.info("shard %s of synthesis batch %s was run already", number, batch_id)
        return
    try:
        inputs = runner.engine_inputs(batch, spec, existing=_store_questions(batch), used=used)
        stop = lambda: not runner.running(batch_id)  # noqa: E731
        for proposed in shards.synthesize_shard(spec, shard, should_stop=stop, **inputs):
            runner.candidate_write(batch, proposed)
    except JobStopped:
        return
    except Exception as exc:
        log.exception("shard %s of synthesis batch %s failed", number, batch_id)
        job_end(SYNTHESIS, batch_id, JobStatus.FAILED, error=runner.failure(exc))
        return
    if _count_done(batch_id):
        batch_finish(batch_id=batch_id)


@transaction.atomic
def _count_done(batch_id: int) -> bool:
    """Count a finished shard; True for the last one of a batch still running."""
    batch = SynthesisBatch.objects.select_for_update().get(pk=batch_id)
    batch.shards_done += 1
    batch.save(update_fields=["shards_done"])
    return batch.shards_done >= batch.shards and batch.status == JobStatus.RUNNING


def batch_finish(*, batch_id: int) -> None:
    """The cross-shard near-duplicate pass, then the batch ends done (unless it was cancelled
    or failed meanwhile: the pass's findings are then dropped); an until_accepted batch short
    of its goal queues its next wave of shards instead."""
    batch = SynthesisBatch.objects.get(pk=batch_id)
    SynthesisBatch.objects.filter(pk=batch_id).update(active_at=timezone.now())
    rows = batch.candidates.filter(rejected_at="").order_by("index")
    seen = [
        shards.seen_of(c.index, c.record, c.stages) for c in rows.only("index", "record", "stages")
    ]
    found = shards.later_duplicates(seen, runner.encoder(), _store_questions(batch))
    try:
        _reject_and_end(batch_id, found)
    except Exception as exc:
        log.exception("the end of synthesis batch %s failed", batch_id)
        job_end(SYNTHESIS, batch_id, JobStatus.FAILED, error=runner.failure(exc))


@transaction.atomic
def _reject_and_end(batch_id: int, found: dict[int, Stage]) -> None:
    running = SynthesisBatch.objects.select_for_update().filter(
        pk=batch_id, status=JobStatus.RUNNING
    )
    if running.first() is None:
        return
    rejected = 0
    for candidate in SynthesisCandidate.objects.filter(batch_id=batch_id, index__in=list(found)):
        if not candidate.accepted:
            continue
        _reject_duplicate(candidate, found[candidate.index])
        rejected += 1
    SynthesisBatch.objects.filter(pk=batch_id).update(accepted=F("accepted") - rejected)
    batch = SynthesisBatch.objects.get(pk=batch_id)
    accepted = batch.candidates.filter(accepted=True).count()
    wave = shards.next_wave(spec_load(batch.spec), batch.shards, accepted, batch.shard_size)
    if not wave:
        job_end(SYNTHESIS, batch_id, JobStatus.DONE)
        return
    numbers = range(batch.shards, batch.shards + len(wave))
    SynthesisBatch.objects.filter(pk=batch_id).update(shards=numbers.stop)
    transaction.on_commit(lambda: enqueue_shards(batch, numbers))


def _reject_duplicate(candidate: SynthesisCandidate, stage: Stage) -> None:
    candidate.stages = shards.rejected_stages(candidate.stages, stage)
    candidate.record = {
        **candidate.record,
        "provenance": {**candidate.record.get("provenance", {}), "funnel": candidate.stages},
    }
    candidate.accepted, candidate.rejected_at, candidate.reason = False, "duplicate", stage.reason
    if candidate.task_id is not None and task_discard_untouched(task_id=candidate.task_id):
        candidate.task = None
    candidate.save()
