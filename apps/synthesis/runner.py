"""A synthesis batch's run inside a cpu worker: the engine (quest.synthesis) over the corpus,
each candidate written as it arrives.

A candidate is written whole or not at all: its row, its task (when accepted) and the batch's
counts commit together, under the batch's row lock, and only while the batch is running. So a
cancel lands between two candidates, and a failure (the engine's, or a record the task store
refuses) ends the batch failed with the reason, keeping every candidate written before it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.common import llm
from apps.common.errors import DomainError, Invalid
from apps.common.storable import ensure_storable, printable
from apps.corpus.selectors import corpus_distractors, corpus_store, research_toolbox, searcher
from apps.jobs.dispatch import JobStopped, job_run
from apps.jobs.models import JobStatus
from apps.rubrics import selectors as task_selectors
from apps.synthesis.models import Decision, SynthesisBatch, SynthesisCandidate
from apps.synthesis.services import SYNTHESIS, candidate_task_write, spec_load
from quest.search.encoder import MiniLMEncoder
from quest.synthesis import runner as engine
from quest.synthesis.keywords import CorpusKeywords
from quest.synthesis.model import BatchSpec, SynthesisError


def running(batch_id: int) -> bool:
    return SynthesisBatch.objects.filter(pk=batch_id, status=JobStatus.RUNNING).exists()


def _research_tools() -> Callable[[], Any]:
    """Fresh research tools for each baseline run; opening the index now says at once when
    there is none (the process keeps one searcher)."""
    searcher()
    return research_toolbox


@functools.cache
def encoder() -> Any:
    """One MiniLM encoder per worker process; it loads its weights on first use."""
    return MiniLMEncoder()


def _llm_inputs(model: str) -> dict[str, Any]:
    """The proposer (also its verifier) and the judge of the trees' judge leaves: the
    configured judge model, unless that is the proposer itself (it would grade its own trees;
    its judge leaves then stay undecided and the funnel says so)."""
    judge = settings.LLM_JUDGE_MODEL
    try:
        return {
            "llm": llm.client_for(model),
            "judge": llm.client_for(judge) if judge and judge != model else None,
        }
    except ValueError as exc:
        raise Invalid(f"the model cannot be used: {exc}") from exc


def engine_inputs(
    batch: SynthesisBatch,
    spec: BatchSpec,
    *,
    existing: list[str] | None = None,
    used: dict[str, int] | None = None,
) -> dict[str, Any]:
    """What the engine reads besides the spec; the store's questions and subcategory counts
    now, unless given (a shard's)."""
    pages = corpus_store()
    if pages is None:
        raise Invalid("the corpus is empty: load it on the corpus page first")
    return {
        "pages": pages,
        "distractors": corpus_distractors(),
        "existing_questions": task_selectors.task_questions() if existing is None else existing,
        "used_subcategories": task_selectors.subcategory_counts() if used is None else used,
        # The difficulty stage searches with them, the baseline researches with them, and the
        # llm proposer too: every batch has them.
        "toolbox_factory": _research_tools(),
        "encoder": encoder(),
        **(_llm_inputs(batch.model) if spec.generator == "llm" else {}),
        **(_keyword_inputs(batch) if spec.generator == "llm" else {}),
    }


def _keyword_inputs(batch: SynthesisBatch) -> dict[str, Any]:
    """The batch's keywords (a CSV's), else keywords derived from the corpus per subcategory."""
    if batch.keywords:
        return {"keywords": list(batch.keywords)}

    index = searcher()
    return {
        "keyword_source": CorpusKeywords(
            lambda query, k: [(r.url, r.title) for r in index.search(query, mode="bm25", k=k)]
        )
    }


def _text(value: Any, limit: int) -> str:
    return printable(str(value or ""))[:limit]


@transaction.atomic
def candidate_write(batch: SynthesisBatch, proposed: Any) -> None:
    """One engine Candidate (quest.synthesis.model.Candidate), with its task when accepted."""
    running = SynthesisBatch.objects.select_for_update().filter(
        pk=batch.pk, status=JobStatus.RUNNING
    )
    if running.first() is None:
        raise JobStopped
    data = proposed.to_dict()
    ensure_storable(data, field=f"candidate {proposed.index}")
    record = data["record"]
    candidate = SynthesisCandidate(
        batch=batch,
        index=proposed.index,
        question=proposed.question,
        target_class=_text(proposed.target_class, 2),
        complexity=_text(record.get("complexity"), 2),
        category=_text(record.get("category"), 64),
        subcategory=_text(record.get("subcategory"), 64),
        accepted=proposed.accepted,
        rejected_at=_text(proposed.rejected_at, 32),
        reason=proposed.reason,
        stages=data["stages"],
        record=record,
        decision=Decision.AUTO,
    )
    if candidate.accepted:
        candidate.task = candidate_task_write(candidate, user=batch.created_by)
    candidate.save()
    SynthesisBatch.objects.filter(pk=batch.pk).update(
        done=F("done") + 1,
        accepted=F("accepted") + int(candidate.accepted),
        active_at=timezone.now(),
    )


def _run(batch: SynthesisBatch) -> dict[str, Any]:
    spec = spec_load(batch.spec)
    # Through the module, read at each run: a test stands a failing engine in its place.
    candidates = engine.synthesize(
        spec, should_stop=lambda: not running(batch.pk), **engine_inputs(batch, spec)
    )
    for proposed in candidates:
        candidate_write(batch, proposed)
    return {}


def failure(exc: Exception) -> str:
    if isinstance(exc, DomainError):
        return exc.message
    if isinstance(exc, SynthesisError):
        return printable(str(exc))
    return printable(f"the batch failed: {type(exc).__name__}: {str(exc)[:500]}")


def batch_run(*, batch_id: int) -> SynthesisBatch:
    """Run a queued batch to its end: done, failed with the reason, or cancelled (by a person,
    while it ran). A batch that is not queued (a redelivered message) is left as it is."""
    # The kind's rows are of its model.
    return cast(SynthesisBatch, job_run(SYNTHESIS, batch_id, _run, failed=failure))
