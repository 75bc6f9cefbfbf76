"""The LLM proposer's protocol against a real HTTP server with recorded replies
(recorded_llm.RecordedLLMServer), over the real corpus tools, loop and funnel."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from recorded_llm import (
    KENYA,
    KENYA_PROPOSAL,
    KENYA_QUESTION,
    SEARCH_KENYA,
    RecordedLLMServer,
    answer,
    visit_first_geonames_result,
)

from quest.corpus.store import CorpusStore
from quest.llm.config import parse_endpoints
from quest.llm.http import HTTPChat
from quest.synthesis import STAGES, BatchSpec, Candidate, SynthesisError, synthesize
from quest.synthesis.model import LLM_STAGES
from quest.synthesis.proposer import parse_proposal, reference_answer
from quest.tools.offline import offline_toolbox

GOOD = copy.deepcopy(KENYA_PROPOSAL)  # the population leaf without its context: fixable
del GOOD["rubric_tree"]["children"][1]["check"]["context"]
QUESTION, SEARCH = KENYA_QUESTION, SEARCH_KENYA


def fixed() -> dict:
    return copy.deepcopy(KENYA_PROPOSAL)


def run(server: RecordedLLMServer, corpus: Path, pages: CorpusStore, **extra: object) -> Candidate:
    client = HTTPChat(parse_endpoints(f"{server.url}|recorded"))
    spec = BatchSpec(generator="llm", count=1, seed=3, classes={"C1": 1}, baseline=False)
    return next(
        synthesize(
            spec, pages=pages, llm=client, toolbox_factory=lambda: offline_toolbox(corpus), **extra
        )
    )  # type: ignore[arg-type]


def test_a_good_proposal_is_refined_verified_and_accepted(
    geo_corpus: Path, pages: CorpusStore
) -> None:
    review = json.dumps({"verdict": "fixable", "reason": "the population leaf has no context",
                         "fixed": fixed()})  # fmt: skip
    with RecordedLLMServer(proposer=[SEARCH, visit_first_geonames_result, answer(GOOD)],
                           reviews=[review]) as server:  # fmt: skip
        candidate = run(server, geo_corpus, pages)
    assert candidate.accepted, candidate.reason
    assert [s.name for s in candidate.stages] == [*LLM_STAGES, *STAGES]
    refine = candidate.stage("refine")
    assert refine is not None and [r["verdict"] for r in refine.detail["reviews"]] == [
        "fixable", "valid"]  # fmt: skip
    record = candidate.record
    assert record["rubric"]["root"]["children"][1]["check"]["context"] == ["population"]
    visited = record["provenance"]["proposer"]["visited"]
    assert len(visited) == 1 and visited[0].startswith("https://www.geonames.org/")
    assert record["complexity"] == "C1" and record["subcategory"]
    assert candidate.stage("non_exclusive").detail == {"tested": False}  # type: ignore[union-attr]
    # The proposer saw its tools' output; the task prompt asked for the class's shape.
    assert "1-3 nodes in every layer" in server.requests[0][1]["content"]


def test_visiting_a_url_no_search_showed_is_refused(geo_corpus: Path, pages: CorpusStore) -> None:
    sneaky = ('<tool_call>{"name": "visit", "arguments": {"url": ["' + KENYA + '"], '
              '"goal": "peek"}}')  # fmt: skip
    with RecordedLLMServer(proposer=[sneaky, answer(GOOD)]) as server:
        candidate = run(server, geo_corpus, pages)
    second_turn = server.requests[1][-1]["content"]
    assert "visit only URLs that appeared in your search results" in second_turn
    assert candidate.record["provenance"]["proposer"]["visited"] == []


@pytest.mark.parametrize(
    ("proposer", "reviews", "verdict", "stage", "reason"),
    [
        (["<answer>The capital is Nairobi.</answer>"], [], "YES", "proposal", "no JSON object"),
        ([answer({**GOOD, "solution": {}})], [], "YES", "proposal", "solution must be"),
        ([answer(GOOD)], ['{"verdict": "unfixable", "reason": "not objective"}'], "YES",
         "refine", "unfixable: not objective"),
        ([answer(GOOD)], ['{"verdict": "fixable", "reason": "x"}'] * 4, "YES", "refine",
         "no fix was given"),
        ([answer(GOOD)], [], "NO\nThe population is wrong.", "verifier",
         "the verifier says NO"),
    ],
)  # fmt: skip
def test_the_funnel_rejects_weak_proposals_with_reasons(
    geo_corpus: Path, pages: CorpusStore, proposer: list, reviews: list, verdict: str,
    stage: str, reason: str,
) -> None:  # fmt: skip
    with RecordedLLMServer(proposer=proposer, reviews=reviews, verdict=verdict) as server:
        candidate = run(server, geo_corpus, pages)
    assert not candidate.accepted
    assert candidate.rejected_at == stage and reason in candidate.reason


def test_a_fix_loop_that_never_converges_stops_after_three_fixes(
    geo_corpus: Path, pages: CorpusStore
) -> None:
    again = json.dumps({"verdict": "fixable", "reason": "again", "fixed": GOOD})
    with RecordedLLMServer(proposer=[answer(GOOD)], reviews=[again] * 10) as server:
        candidate = run(server, geo_corpus, pages)
    assert candidate.rejected_at == "refine" and "after 3 fixes" in candidate.reason
    assert len(candidate.stage("refine").detail["reviews"]) == 4  # type: ignore[union-attr]


def test_judge_leaves_without_a_judge_are_rejected_as_undecided(
    geo_corpus: Path, pages: CorpusStore
) -> None:
    judged = copy.deepcopy(GOOD)
    for leaf in judged["rubric_tree"]["children"]:
        del leaf["check"]
    with RecordedLLMServer(proposer=[answer(judged)]) as server:
        candidate = run(server, geo_corpus, pages)
    assert candidate.rejected_at == "solvability"
    assert "undecided: judge leaves need a judge and no judge model is configured" in (
        candidate.reason
    )


def test_the_llm_generator_needs_a_model_and_tools(pages: CorpusStore) -> None:
    with pytest.raises(SynthesisError, match="needs an LLM endpoint"):
        next(synthesize(BatchSpec(generator="llm", count=1), pages=pages))


def test_proposals_are_checked_before_anything_runs() -> None:
    data, problems = parse_proposal(answer({**GOOD, "constraints": [], "proposed_question": 3}))
    assert data is None
    assert "constraints must be" in " ".join(problems)
    assert "proposed_question must be" in " ".join(problems)
    many = {f"item {i}": {"description": "d", "reference_urls": [KENYA]} for i in range(6)}
    assert "at most 5" in " ".join(parse_proposal(answer({**GOOD, "solution": many}))[1])
    assert parse_proposal("```json\n" + json.dumps(GOOD) + "\n```")[0] is not None


def test_the_reference_answer_cites_each_items_urls() -> None:
    text = reference_answer(GOOD["solution"])  # type: ignore[arg-type]
    assert text.splitlines()[0] == "The capital of Kenya is Nairobi. [1]"
    assert text.endswith(f"[1] {KENYA}")


def test_keywords_come_from_the_csv_else_from_the_corpus(
    geo_corpus: Path, pages: CorpusStore
) -> None:
    with RecordedLLMServer(proposer=[answer(GOOD)]) as server:
        from_csv = run(server, geo_corpus, pages, keywords=["solar eclipse", "Bread"])
    assert from_csv.record["provenance"]["keywords_from"] == "csv"
    assert "solar eclipse" in server.requests[0][1]["content"]
    with RecordedLLMServer(proposer=[answer(GOOD)]) as server:
        derived = run(server, geo_corpus, pages, keyword_source=lambda sub: ["Nairobi", "Rift"])
    assert derived.record["provenance"]["keywords_from"] == "corpus"
    assert "Nairobi" in server.requests[0][1]["content"]
