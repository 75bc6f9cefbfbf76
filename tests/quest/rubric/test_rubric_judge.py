from __future__ import annotations

import pytest
from rubric_helpers import leaf, node, tree
from rubric_judges import (
    GullibleJudgeStandIn,
    KeywordJudgeStandIn,
    ScriptedJudgeStandIn,
    verdict_json,
)

from quest.rubric import (
    Check,
    ClaimJudge,
    Document,
    Evidence,
    InMemoryDocumentStore,
    evaluate,
    majority,
    parse_reply,
)
from quest.rubric.judge import relevant_passages

PAGE = "https://example.org/tower"
STORE = InMemoryDocumentStore(
    [Document(PAGE, "Tower", "The tower is 330 metres tall and stands in Paris.")]
)
ANSWER = "The tower is 330 metres tall and stands in Paris."
MESSAGES = [{"role": "user", "content": "Claim: x"}]


@pytest.mark.parametrize(
    ("reply", "result"),
    [
        ('{"reasoning": "ok", "result": true}', True),
        ('```json\n{"reasoning": "no", "result": false}\n```', False),
        ('Sure! {"result": "yes", "reasoning": "r"} Hope that helps.', True),
        ('{"reasoning": "x", "result": "FALSE"}', False),
        ('{"reasoning": "broken" "result": true', None),
        ("I think it is true.", None),
        ('{"reasoning": "no result"}', None),
    ],
)
def test_it_parses_judge_replies_and_refuses_unreadable_ones(
    reply: str, result: bool | None
) -> None:
    assert parse_reply(reply).result is result


def test_truncated_json_with_a_readable_result_is_still_read() -> None:
    assert parse_reply('{"reasoning": "cut off "here, "result": true}').result is True


def test_majority_stops_after_two_agreeing_trials() -> None:
    judge = ScriptedJudgeStandIn([verdict_json(True), verdict_json(True), verdict_json(False)])
    ruling = majority(judge, MESSAGES)
    assert (ruling.result, ruling.calls, judge.calls) == (True, 2, 2)


def test_majority_takes_a_third_trial_when_the_first_two_disagree() -> None:
    judge = ScriptedJudgeStandIn([verdict_json(True), verdict_json(False), verdict_json(False)])
    assert (majority(judge, MESSAGES).result, judge.calls) == (False, 3)


def test_failed_trials_count_as_undecided_and_two_of_them_leave_no_majority() -> None:
    judge = ScriptedJudgeStandIn(["garbage", RuntimeError("rate limited"), verdict_json(True)])
    ruling = majority(judge, MESSAGES)
    assert ruling.result is None
    assert (
        "unparseable judge reply" in ruling.reasoning
        and "RuntimeError: rate limited" in ruling.reasoning
    )


def test_one_failed_trial_does_not_stop_a_majority() -> None:
    judge = ScriptedJudgeStandIn(
        [RuntimeError("timeout"), verdict_json(False), verdict_json(False)]
    )
    assert majority(judge, MESSAGES).result is False


def test_a_claim_without_sources_is_judged_from_task_and_answer_only() -> None:
    judge = KeywordJudgeStandIn()
    verdict = ClaimJudge(judge, STORE).verdict(
        "tower stands Paris", task="t", answer="The tower stands in Paris.", sources=[]
    )
    assert verdict.status == "pass"
    assert "Source [" not in judge.prompts[0]
    assert "The tower stands in Paris." in judge.prompts[0]
    assert verdict.judge == "keyword-judge-stand-in"
    assert verdict.evidence.quote == "The tower stands in Paris."


def test_several_sources_pass_when_any_page_supports_the_claim() -> None:
    judge = KeywordJudgeStandIn()
    verdict = ClaimJudge(judge, STORE).verdict(
        "330 metres tall", task="t", answer=ANSWER, sources=["https://gone.example/x", PAGE]
    )
    assert verdict.status == "pass"
    assert verdict.evidence == Evidence(PAGE, "The tower is 330 metres tall and stands in Paris.")
    assert "1 cited page(s) unreachable" in verdict.reasoning


def test_an_unreachable_page_is_unsupported_without_a_judge_call_and_never_sent_as_none() -> None:
    judge = ScriptedJudgeStandIn([])
    verdict = ClaimJudge(judge, STORE).verdict(
        "anything", task="t", answer=ANSWER, sources=["https://gone.example/x"]
    )
    assert verdict.status == "fail"
    assert judge.calls == 0
    assert "unreachable" in verdict.reasoning


def test_a_page_that_does_not_support_the_claim_fails() -> None:
    judge = KeywordJudgeStandIn()
    verdict = ClaimJudge(judge, STORE).verdict(
        "500 metres", task="t", answer=ANSWER, sources=[PAGE]
    )
    assert verdict.status == "fail"
    assert all("None" not in prompt.split("Source [", 1)[-1][:40] for prompt in judge.prompts)


def test_the_judge_reads_the_pages_the_answer_cites_not_only_the_trees_sources() -> None:
    judge = KeywordJudgeStandIn()
    answer = f"The tower is 330 metres tall [1].\n\n[1] {PAGE}"
    verdict = ClaimJudge(judge, STORE).verdict(
        "The height of 330 metres is supported by the cited sources",
        task="t",
        answer=answer,
        cited=[PAGE],
    )
    assert f"Source [1] {PAGE}" in judge.prompts[0]
    assert "stands in Paris" in judge.prompts[0]
    assert verdict.status == "fail"  # the stand-in wants every claim word on the page
    assert ClaimJudge(judge, STORE).verdict(
        "330 metres tall", task="t", answer=answer, cited=[PAGE], needs_source=True
    ).evidence == Evidence(PAGE, "The tower is 330 metres tall and stands in Paris.")


def test_a_claim_about_sources_fails_when_the_answer_cites_nothing_readable() -> None:
    judge = ScriptedJudgeStandIn([])
    verdict = ClaimJudge(judge, STORE).verdict(
        "The relationship is supported by cited sources", task="t", answer=ANSWER
    )
    assert (verdict.status, judge.calls) == ("fail", 0)


def test_a_judge_that_cannot_decide_gives_an_error_verdict_not_a_failure() -> None:
    judge = ScriptedJudgeStandIn(["?", "??", "???"])
    verdict = ClaimJudge(judge, STORE).verdict("c", task="t", answer=ANSWER, sources=[])
    assert verdict.status == "error"


def test_sources_without_a_store_are_an_error() -> None:
    verdict = ClaimJudge(KeywordJudgeStandIn(), None).verdict(
        "c", task="t", answer=ANSWER, sources=[PAGE]
    )
    assert verdict.status == "error"


# -- what a policy would try against the judge ------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        ":",
        "Thought process:",
        "Let's solve this problem step by step.",
        "Solution",
        "",
        "   ",
        "https://example.org/tower",
        "Which tower is 330 metres tall and stands in Paris?",
    ],
)
def test_master_keys_urls_and_echoes_fail_judge_leaves_without_a_judge_call(answer: str) -> None:
    judge = GullibleJudgeStandIn()
    verdict = ClaimJudge(judge, STORE).verdict("The tower stands in Paris", task="t", answer=answer)
    assert (verdict.status, judge.calls) == ("fail", 0)
    assert verdict.reasoning == "the answer states nothing to judge"


def test_a_true_vote_quoting_words_that_are_not_in_the_answer_counts_as_false() -> None:
    fabricated = verdict_json(True, answer_quote="The tower stands in Paris.")
    judge = ScriptedJudgeStandIn([fabricated, fabricated, fabricated])
    verdict = ClaimJudge(judge, STORE).verdict(
        "The answer places the tower in Paris", task="t", answer="It is a tall tower in Lyon."
    )
    assert verdict.status == "fail"
    assert "its answer quote is not in the answer" in verdict.reasoning


def test_a_true_vote_on_a_source_claim_needs_a_quote_from_a_source_passage() -> None:
    no_source = verdict_json(True, answer_quote=ANSWER, source_quote="The tower is 500 m tall.")
    judge = ScriptedJudgeStandIn([no_source, no_source, no_source])
    verdict = ClaimJudge(judge, STORE).verdict(
        "330 metres tall", task="t", answer=ANSWER, sources=[PAGE]
    )
    assert verdict.status == "fail"
    assert "its source quote is not in any source passage" in verdict.reasoning


def test_a_quoted_expected_value_must_appear_in_the_answer_quote() -> None:
    answer = "Mount Kenya is the highest mountain in Africa. It is a volcano."
    off_target = verdict_json(True, answer_quote="It is a volcano.")
    judge = ScriptedJudgeStandIn([off_target] * 3)
    verdict = ClaimJudge(judge, None).verdict(
        "The answer names the expected mountain 'Kilimanjaro'", task="t", answer=answer
    )
    assert verdict.status == "fail"
    assert "does not contain the expected value" in verdict.reasoning


def test_a_gullible_judge_still_passes_nothing_that_the_answer_does_not_say() -> None:
    verdict = ClaimJudge(GullibleJudgeStandIn(), STORE).verdict(
        "The answer names the expected city 'Canberra'", task="t", answer=ANSWER
    )
    assert verdict.status == "fail"


def test_long_pages_are_cut_to_the_sentences_that_share_words_with_the_claim() -> None:
    filler = " ".join(f"Sentence {i} is about rivers and lakes." for i in range(3000))
    page = Document("https://example.org/long", "Long", f"{filler} The tower is 330 m tall.")
    [passage] = relevant_passages([page], "tower 330 m tall", budget=400)
    assert "The tower is 330 m tall." in passage.text
    assert len(passage.text) <= 450


def test_evaluate_without_a_judge_errors_judge_leaves_and_reports_itself_incomplete() -> None:
    t = tree(node("root", leaf("a"), leaf("b", check=Check("mentions", {"value": "Paris"}))))
    report = evaluate(t, "Paris is nice.")
    assert report.verdict_of("a").status == "error"
    assert report.verdict_of("a").reasoning == "no judge configured"
    assert (report.root_score, report.root_score_upper, report.complete) == (0.5, 1.0, False)
    assert report.errored == ("a",)


def test_evaluate_with_the_stand_in_judge_scores_judge_leaves() -> None:
    t = tree(
        node(
            "root",
            leaf("height", check=Check.judge("330 metres", (PAGE,))),
            leaf("city", check=Check.judge("stands Paris")),
        )
    )
    report = evaluate(t, "It stands in Paris.", STORE, KeywordJudgeStandIn())
    assert report.root_score == 1.0 and report.complete
