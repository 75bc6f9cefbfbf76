"""A candidate as a task record: the engine's record with the batch's provenance added. The same
record goes into the task store, into the JSONL export and, through that, back into an import."""

from __future__ import annotations

from typing import Any

from apps.synthesis.models import SynthesisBatch, SynthesisCandidate


def provenance(batch: SynthesisBatch, candidate: SynthesisCandidate) -> dict[str, Any]:
    """What the engine said about the record's origin, plus where in questweb it came from:
    generator, batch (the value audit campaigns filter on), seed, candidate index and funnel."""
    record = candidate.record if isinstance(candidate.record, dict) else {}
    engine = record.get("provenance")
    engine = engine if isinstance(engine, dict) else {}
    return {
        **engine,
        "generator": engine.get("generator") or batch.generator,
        "batch": batch.provenance_batch,
        "synthesis_batch_id": batch.pk,
        "seed": batch.seed,
        "candidate": candidate.index,
        "target_class": candidate.target_class,
        "funnel": candidate.stages,
    }


def task_record(batch: SynthesisBatch, candidate: SynthesisCandidate) -> dict[str, Any]:
    record = candidate.record if isinstance(candidate.record, dict) else {}
    return {**record, "provenance": provenance(batch, candidate)}
