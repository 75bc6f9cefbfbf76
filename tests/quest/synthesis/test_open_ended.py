"""Open-ended report tasks: criteria, the reference, and relative scoring with the
deterministic coverage-and-citation scorer."""

from __future__ import annotations

import random
import re

import pytest

from quest.corpus.store import CorpusStore
from quest.rubric.citations import strip_citations
from quest.rubric.importers import import_canonical
from quest.synthesis import BatchSpec, synthesize
from quest.synthesis.kgsynth import write_answer
from quest.synthesis.open_ended import (
    DIMENSIONS,
    OpenEndedDraft,
    OpenEndedSynthesizer,
    coverage_scores,
    dimension_weights,
    open_ended_record,
    relative,
)


@pytest.fixture(scope="module")
def drafts(pages: CorpusStore) -> list[OpenEndedDraft]:
    synth = OpenEndedSynthesizer(has_page=lambda url: pages.get(url) is not None)
    return [synth.draft(random.Random(seed)) for seed in range(6)]


def record(draft: OpenEndedDraft) -> dict:
    return open_ended_record(draft, "News", "Misc.", {"generator": "test"})


def test_dimension_weights_are_four_and_sum_to_one() -> None:
    for seed in range(20):
        weights = dimension_weights(random.Random(seed))
        assert tuple(weights) == DIMENSIONS
        assert sum(weights.values()) == pytest.approx(1.0, abs=1e-9)
        assert weights["comprehensiveness"] > weights["readability"]


def test_criteria_weights_sum_to_one_in_each_dimension(drafts: list[OpenEndedDraft]) -> None:
    families = {d.family for d in drafts}
    assert families == {"neighbourhood", "currency_area"}
    for draft in drafts:
        for dimension in DIMENSIONS:
            weights = [c["weight"] for c in draft.criteria if c["dimension"] == dimension]
            assert weights and sum(weights) == pytest.approx(1.0, abs=1e-3)
        assert set(draft.triple) == {"conceptual_breadth", "logical_nesting", "exploration"}
        tree = import_canonical(record(draft)["rubric"]).tree
        assert tree.scoring == "weighted"


def test_the_reference_is_on_par_with_itself_and_a_valid_variant(
    drafts: list[OpenEndedDraft], pages: CorpusStore
) -> None:
    for draft in drafts:
        task = record(draft)
        assert set(coverage_scores(task, task["reference_answer"], pages)) == {10.0}
        itself = relative(task, task["reference_answer"], pages)
        assert itself.final == pytest.approx(0.5) and itself.discrete == 1.0
        other = relative(task, write_answer(draft.alternative, alt=True), pages)
        assert other.discrete == 1.0


def test_reports_that_miss_or_do_not_cite_score_below_the_reference(
    drafts: list[OpenEndedDraft], pages: CorpusStore
) -> None:
    task = record(drafts[0])
    reference = task["reference_answer"]
    uncited = strip_citations(reference)
    scores = coverage_scores(task, uncited, pages)
    assert 5.0 in scores, "facts stated without a citation earn half"
    assert relative(task, uncited, pages).final < 0.5
    half = " ".join(reference.split(". ")[: len(reference.split(". ")) // 2]) + "."
    assert relative(task, half, pages).final < relative(task, reference, pages).final
    for bad in ("", task["question"], re.sub(r"\bis\b", "is not", reference)):
        result = relative(task, bad, pages)
        assert result.discrete == 0.0, (bad[:80], result)


def test_a_batch_of_open_ended_tasks_passes_the_funnel(pages: CorpusStore) -> None:
    made = list(
        synthesize(BatchSpec(count=8, seed=4, baseline=False, open_ended=True), pages=pages)
    )
    assert sum(c.accepted for c in made) >= 7
    for candidate in made:
        task = candidate.record
        assert task["type"] == "open_ended"
        meta = task["provenance"]["open_ended"]
        assert meta["scorer"] == "deterministic coverage-and-citation scorer"
        assert {c["dimension"] for c in meta["criteria"]} == set(DIMENSIONS)
        complexity = candidate.stage("complexity")
        assert complexity is not None and "conceptual breadth" in complexity.reason


def test_open_ended_tasks_come_from_the_kg_generator_only() -> None:
    assert (
        "open-ended tasks come from the kg generator"
        in BatchSpec(generator="llm", open_ended=True).problems()
    )
