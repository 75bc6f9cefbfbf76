"""Open-ended report tasks: criteria, the reference, and relative scoring with the
deterministic coverage-and-citation scorer."""

from __future__ import annotations

import json
import random
import re

import pytest
from recorded_llm import RecordedLLMServer

from quest.corpus.store import CorpusStore
from quest.llm.config import parse_endpoints
from quest.llm.http import HTTPChat
from quest.rubric.citations import strip_citations
from quest.rubric.importers import import_canonical
from quest.synthesis import BatchSpec, synthesize
from quest.synthesis.criteria import coverage_scores, relative
from quest.synthesis.facts import write_answer
from quest.synthesis.open_ended import (
    DIMENSIONS,
    OpenEndedDraft,
    OpenEndedSynthesizer,
    dimension_weights,
    open_ended_record,
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


WEIGHTS = [
    '{"comprehensiveness": 0.5, "insight": 0.3, "instruction_following": 0.1, "readability": 0.1}',
    '{"comprehensiveness": 0.3, "insight": 0.3, "instruction_following": 0.2, "readability": 0.2}',
    "I cannot say.",
]
CRITERIA = json.dumps({
    d: [{"criterion": f"The report handles {d} point {i}", "explanation": "e", "weight": 0.5}
        for i in (1, 2)] for d in DIMENSIONS
})  # fmt: skip


def llm_server(judge_reply: str) -> RecordedLLMServer:
    weights = iter(WEIGHTS)
    return RecordedLLMServer(proposer=["unused"], rules=[
        ("How much should each dimension count", lambda _m: next(weights)),
        ("Write the criteria a judge will score", CRITERIA),
        ("Score each answer on this criterion", '{"score_a": 7, "score_b": 7}'),
        ("", judge_reply),
    ])  # fmt: skip


def client(server: RecordedLLMServer) -> HTTPChat:
    return HTTPChat(parse_endpoints(f"{server.url}|recorded"))


def test_with_a_model_the_criteria_are_written_by_it_and_scored_by_the_judge(
    pages: CorpusStore,
) -> None:
    spec = BatchSpec(count=1, seed=4, baseline=False, open_ended=True)
    with llm_server('{"result": false, "reasoning": "no"}') as server:
        model = client(server)
        [candidate] = synthesize(spec, pages=pages, llm=model, judge=model)
    meta = candidate.record["provenance"]["open_ended"]
    assert meta["criteria_by"] == "llm"
    # Two readable weight samples of three, averaged.
    assert meta["dimension_weights"]["comprehensiveness"] == pytest.approx(0.4, abs=1e-3)
    assert len(meta["criteria"]) == 8
    leaves = [leaf for d in candidate.record["rubric"]["root"]["children"]
              for leaf in d["children"]]  # fmt: skip
    assert {leaf["check"]["kind"] for leaf in leaves} == {"judge"}
    solvable = candidate.stage("solvability")
    assert solvable is not None and solvable.passed, solvable
    assert "the judge scores the reference against itself 0.500" in solvable.reason
    # A judge that rules every leaf false cannot pass the reference through the probes.
    assert candidate.rejected_at == "soundness"
    assert "does not pass its own criteria tree" in candidate.reason


def test_a_judge_that_says_yes_without_quoting_the_answer_passes_nothing(
    pages: CorpusStore,
) -> None:
    spec = BatchSpec(count=1, seed=4, baseline=False, open_ended=True)
    with llm_server('{"result": true, "reasoning": "yes"}') as server:
        model = client(server)
        [candidate] = synthesize(spec, pages=pages, llm=model, judge=model)
    assert candidate.rejected_at == "soundness"
    assert "does not pass its own criteria tree" in candidate.reason


def test_model_written_criteria_without_a_judge_are_undecided(pages: CorpusStore) -> None:
    spec = BatchSpec(count=1, seed=4, baseline=False, open_ended=True)
    with llm_server("{}") as server:
        [candidate] = synthesize(spec, pages=pages, llm=client(server))
    assert candidate.rejected_at == "solvability"
    assert "need a judge model" in candidate.reason


def test_unreadable_criteria_are_a_rejection_with_the_reason(pages: CorpusStore) -> None:
    spec = BatchSpec(count=1, seed=4, baseline=False, open_ended=True)
    with RecordedLLMServer(proposer=["x"], rules=[("", "no JSON here")]) as server:
        [candidate] = synthesize(spec, pages=pages, llm=client(server))
    assert candidate.rejected_at == "schema"
    assert "no readable dimension weights" in candidate.reason
