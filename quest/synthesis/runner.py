"""Run a synthesis batch: seeds → drafts → the funnel, one Candidate per proposal.

The same function serves the CLI (`python -m quest synth`) and the app's Celery job; both pass
the corpus pages (a DocumentStore), its distractors, the questions already in the task store
and, for the baseline stage, a factory for the offline research toolbox.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from quest.rubric.distractors import Distractors
from quest.rubric.documents import DocumentStore
from quest.rubric.model import FORMAT
from quest.rubric.stats import tree_stats
from quest.search.encoder import Encoder
from quest.synthesis import funnel
from quest.synthesis.kgsynth import (
    GENERATOR,
    SUBCATEGORIES,
    Draft,
    KGSynthesizer,
    Unbuildable,
    category_of,
    write_answer,
)
from quest.synthesis.model import BatchSpec, Candidate, Stage, SynthesisError
from quest.synthesis.seeds import SeedSampler
from quest.tools import Toolbox

MAX_TRIES = 6  # drafts per proposal before it is recorded as unbuildable


def synthesize(
    spec: BatchSpec,
    *,
    pages: DocumentStore,
    distractors: Distractors | None = None,
    existing_questions: Sequence[str] = (),
    used_subcategories: Mapping[str, int] | None = None,
    toolbox_factory: Callable[[], Toolbox] | None = None,
    encoder: Encoder | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> Iterator[Candidate]:
    problems = spec.problems()
    if problems:
        raise SynthesisError("; ".join(problems))
    subcategories = [s for s in SUBCATEGORIES if not spec.categories or s in spec.categories]
    if not subcategories:
        raise SynthesisError(
            "the kg generator writes geography tasks for these subcategories only: "
            + ", ".join(SUBCATEGORIES)
        )
    synthesizer = KGSynthesizer(has_page=lambda url: pages.get(url) is not None)
    if not synthesizer.countries:
        raise SynthesisError("the corpus has no GeoNames country pages: build it with geonames")
    sampler = SeedSampler(
        seed=spec.seed,
        subcategories=subcategories,
        used=used_subcategories,
        category_weights=spec.categories,
        class_weights=spec.classes,
    )
    duplicates = funnel.DuplicateIndex(encoder, existing_questions)
    proposed: set[tuple[str, ...]] = set()  # the generator does not propose the same task twice
    run_agent = _agent_runner(toolbox_factory) if spec.baseline and toolbox_factory else None
    for index in range(spec.count):
        if should_stop():
            return
        subcategory, target = sampler.next_subcategory(), sampler.next_class()
        rng = random.Random(f"{spec.seed}:{index}")
        yield _candidate(
            index,
            subcategory,
            target,
            rng,
            spec,
            synthesizer,
            pages,
            distractors,
            duplicates,
            run_agent,
            proposed,
        )


def _candidate(
    index: int,
    subcategory: str,
    target: str,
    rng: random.Random,
    spec: BatchSpec,
    synthesizer: KGSynthesizer,
    pages: DocumentStore,
    distractors: Distractors | None,
    duplicates: funnel.DuplicateIndex,
    run_agent: Callable[[str], str] | None,
    proposed: set[tuple[str, ...]],
) -> Candidate:
    reasons = []
    draft = None
    for _ in range(MAX_TRIES):
        try:
            made = synthesizer.draft(subcategory, target, rng)
        except Unbuildable as exc:
            reasons.append(str(exc))
            continue
        if made.entities in proposed:
            reasons.append("the same entities and facts as a task proposed earlier in the batch")
            continue
        draft = made
        proposed.add(made.entities)
        break
    provenance = {
        "generator": GENERATOR,
        "generator_key": spec.generator,
        "seed": spec.seed,
        "index": index,
        "target_class": target,
    }
    if draft is None:
        empty: dict[str, Any] = {
            "question": "",
            "type": "objective",
            "category": category_of(subcategory),
            "subcategory": subcategory,
            "provenance": provenance,
        }
        stage = Stage(
            "schema",
            False,
            "no draft could be built: " + "; ".join(reasons[-3:]),
            {"tries": reasons},
        )
        return Candidate(index, empty, (stage,), target)
    record = task_record(draft, subcategory, provenance)
    stages: list[Stage] = []
    schema, compiled = funnel.schema_stage(record)
    stages.append(schema)
    if compiled is None:
        return Candidate(index, record, tuple(stages), target)
    stages.append(funnel.complexity_stage(record, target))
    if stages[-1].passed:
        stages += funnel.probe_stages(
            compiled, record["reference_answer"], pages, distractors, record["question"]
        )
    if stages[-1].passed:
        alternatives = [
            (_alternative_label(draft), write_answer(alt, alt=True)) for alt in draft.alternatives
        ]
        stages.append(funnel.non_exclusive_stage(compiled, alternatives, pages))
    if stages[-1].passed:
        stages.append(duplicates.stage(record["question"], draft.entities, draft.subjects))
    if stages[-1].passed:
        stages.append(funnel.baseline_stage(record["question"], compiled, pages, run_agent))
        duplicates.add(record["question"], draft.entities, draft.subjects)
    record["provenance"]["funnel"] = [s.to_dict() for s in stages]
    return Candidate(index, record, tuple(stages), target)


def task_record(draft: Draft, subcategory: str, provenance: dict[str, Any]) -> dict[str, Any]:
    rubric = {
        "format": FORMAT,
        "scoring": "quest",
        "task_description": draft.question,
        "root": draft.tree_root,
    }
    stats = tree_stats(rubric)
    return {
        "question": draft.question,
        "type": "objective",
        "category": category_of(subcategory),
        "subcategory": subcategory,
        "complexity": stats["complexity"],
        "rubric": rubric,
        "solution": draft.solution,
        "reference_answer": write_answer(draft.facts),
        "provenance": {
            **provenance,
            "family": draft.family,
            "entities": list(draft.entities),
            "notes": draft.notes,
        },
    }


def _alternative_label(draft: Draft) -> str:
    if draft.family == "find_k":
        return "other valid countries in the slots"
    return "the facts in another order, citing countryinfo where it states them"


def _agent_runner(toolbox_factory: Callable[[], Toolbox]) -> Callable[[str], str]:
    from quest.agent.loop import run_agent
    from quest.agent.scripted import ScriptedPolicy

    toolbox = toolbox_factory()

    def run(question: str) -> str:
        return run_agent(question, policy=ScriptedPolicy(), toolbox=toolbox).answer

    return run
