"""Open-ended candidates (QUEST-SPEC §4) through the funnel: a report task's criteria tree
must be valid, its reference on par with itself and passing its own tree, the probes must fail
to game it, another valid report must score as well, and it must not repeat a task; the
scripted agent's report is scored against the reference as the baseline."""

from __future__ import annotations

import random
from typing import Any

from quest.rubric.score import CompiledTree
from quest.rubric.stats import tree_stats
from quest.synthesis import funnel
from quest.synthesis.batch import MAX_TRIES, Batch, base_provenance, empty_record
from quest.synthesis.criteria import coverage_scores, llm_criteria
from quest.synthesis.criteria import relative as oe_relative
from quest.synthesis.facts import Unbuildable, write_answer
from quest.synthesis.kgsynth import GENERATOR, category_of
from quest.synthesis.model import Candidate, Stage
from quest.synthesis.open_ended import OpenEndedDraft, open_ended_record


def open_candidate(batch: Batch, index: int, subcategory: str, rng: random.Random) -> Candidate:
    """A report-writing task: criteria in four dimensions, relative scoring against the
    reference (quest.synthesis.open_ended), through the same stages."""
    provenance = base_provenance(batch, index, "", GENERATOR)
    draft, why = _open_draft(batch, rng)
    if draft is None:
        stage = Stage("schema", False, why)
        return Candidate(index, empty_record(subcategory, provenance), (stage,), "")
    record = open_ended_record(draft, subcategory, category_of(subcategory), provenance)
    if batch.llm is not None:
        meta = record["provenance"]["open_ended"]
        meta["criteria_by"] = "llm"
        meta["scorer"] = "judge model, both answers per criterion in both positions"
    measured = tree_stats(record["rubric"])
    record["complexity"] = target = measured["complexity"]
    schema, compiled = funnel.schema_stage(record)
    stages = [schema]
    if compiled is not None:
        shape = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in draft.triple.items())
        detail = {
            **draft.triple,
            "measured": target,
            "target": target,
            "depth": measured["depth"],
            "breadth": measured["breadth"],
        }
        stages.append(Stage("complexity", True, f"open-ended: {shape}", detail))
        stages.append(_open_solvable(batch, record, len(draft.criteria)))
    if compiled is not None and stages[-1].passed:
        stages.append(_open_sound(batch, record, compiled))
    if compiled is not None and stages[-1].passed:
        alternative = write_answer(draft.alternative, alt=True)
        other = oe_relative(record, alternative, batch.pages, batch.judge)
        ok = other.discrete == 1.0
        stages.append(
            Stage(
                "non_exclusive",
                ok,
                f"another valid report (other order, other "
                f"pages) scores {other.final} against the reference",
                {"final": other.final},
            )
        )
    if compiled is not None and stages[-1].passed:
        stages.append(batch.duplicates.stage(record["question"], draft.entities, draft.subjects))
    if compiled is not None and stages[-1].passed:
        stages.append(_open_baseline(batch, record))
        batch.duplicates.add(record["question"], draft.entities, draft.subjects)
    record["provenance"]["funnel"] = [s.to_dict() for s in stages]
    return Candidate(index, record, tuple(stages), target)


def _open_draft(batch: Batch, rng: random.Random) -> tuple[OpenEndedDraft | None, str]:
    assert batch.open_ended is not None
    reasons: list[str] = []
    synthesizer = batch.open_ended
    repeat = "the same report as one proposed earlier in the batch"
    for made in batch.new_drafts(lambda: synthesizer.draft(rng), MAX_TRIES, reasons, repeat):
        batch.proposed.add(made.entities)
        if batch.llm is None:
            return made, ""
        try:
            return llm_criteria(batch.llm, made), ""
        except Unbuildable as exc:
            return None, f"no criteria: {exc}"
    return None, "no draft could be built: " + "; ".join(reasons[-3:])


def _open_sound(batch: Batch, record: dict[str, Any], compiled: CompiledTree) -> Stage:
    """The probes on the criteria tree; they measure against the reference, so it must pass
    its own tree first."""
    probed = batch.probe_stages(record, compiled)
    if probed[0].passed:
        return probed[1]
    return Stage(
        "soundness",
        False,
        f"the reference does not pass its own criteria tree: {probed[0].reason}",
        dict(probed[0].detail),
    )


def _open_solvable(batch: Batch, record: dict[str, Any], total: int) -> Stage:
    """The reference, scored against itself, is on par (0.5), and (offline) covers every
    criterion with cited pages."""
    by_model = record["provenance"]["open_ended"].get("criteria_by") == "llm"
    if by_model and batch.judge is None:
        return Stage(
            "solvability",
            False,
            "undecided: criteria written by a model need a judge model, and none is configured",
            {"reward": 0.0},
        )
    itself = oe_relative(record, record["reference_answer"], batch.pages, batch.judge)
    if itself.final is None:
        why = "; ".join(itself.errors[:2]) or "no score"
        return Stage(
            "solvability",
            False,
            f"the reference cannot be scored: {why}",
            {"reward": 0.0, "errors": list(itself.errors)},
        )
    if batch.judge is not None:
        ok = abs(itself.final - 0.5) < 0.05
        return Stage(
            "solvability",
            ok,
            f"the judge scores the reference against itself {itself.final:.3f} (on par is 0.5)",
            {"reward": 1.0 if ok else 0.0, "final": itself.final},
        )
    scores = coverage_scores(record, record["reference_answer"], batch.pages)
    covered = sum(s == 10 for s in scores)
    ok = abs(itself.final - 0.5) < 1e-9 and covered == total
    return Stage(
        "solvability",
        ok,
        f"the reference covers {covered} of {total} criteria with cited pages",
        {"covered": covered, "criteria": total, "reward": 1.0 if ok else 0.0},
    )


def _open_baseline(batch: Batch, record: dict[str, Any]) -> Stage:
    if batch.run_agent is None:
        return Stage("baseline", True, "not run (baseline off)", {"reward": None})
    answer = batch.run_agent(record["question"])
    score = oe_relative(record, answer, batch.pages, batch.judge)
    if score.final is None:
        return Stage(
            "baseline",
            True,
            "the scripted agent's report could not be scored",
            {"reward": None, "errors": list(score.errors)},
        )
    return Stage(
        "baseline",
        True,
        f"the scripted agent's report scores {score.final:.3f} "
        f"against the reference (RL reward {score.discrete})",
        {"reward": score.discrete, "final": score.final, "answer": answer[:4000]},
    )
