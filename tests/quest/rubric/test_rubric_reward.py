from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest
from rubric_helpers import leaf, node, tree
from rubric_judges import KeywordJudgeStandIn

from quest.rubric import (
    Check,
    Criterion,
    CriterionScore,
    Document,
    InMemoryDocumentStore,
    answer_reward,
    combine,
    discretise,
    extract_answer,
    label_citations,
    parse_citations,
    relative_score,
    valid_rate,
)
from quest.rubric.relative import judge_pair

WIKI = "https://en.wikipedia.org/wiki/Eiffel_Tower"
STORE = InMemoryDocumentStore(
    [Document(WIKI, "Eiffel Tower", "The Eiffel Tower in Paris is 330 metres tall.")]
)
TREE = tree(
    node(
        "root",
        leaf("height", check=Check("number", {"value": 330})),
        leaf("city", check=Check("mentions", {"value": "Paris"})),
    )
)


@pytest.mark.parametrize(
    ("base", "rate", "reward"),
    [(1.0, 1.0, 1.0), (1.0, 0.0, 0.75), (0.5, 1.0, 0.5), (0.0, 1.0, 0.0), (0.4, 0.5, 0.35)],
)
def test_reward_is_three_quarters_base_plus_capped_citation_credit(
    base: float, rate: float, reward: float
) -> None:
    assert combine(base, rate) == pytest.approx(reward)


def test_citation_credit_is_clipped_to_the_base_in_zero_one() -> None:
    assert combine(1.5, 1.0) == pytest.approx(0.75 * 1.5 + 0.25)
    assert combine(-0.2, 1.0) == pytest.approx(-0.15)


def test_the_answer_is_the_last_answer_block() -> None:
    assert extract_answer("<think>x</think><answer>one</answer> <answer> two </answer>") == "two"
    assert extract_answer("no tags") == "no tags"


def test_supported_and_unsupported_citations_make_the_valid_rate() -> None:
    answer = (
        "The Eiffel Tower in Paris is 330 metres tall [1]. It is 500 metres wide [1].\n\n"
        f"[1] {WIKI}"
    )
    labels = label_citations(parse_citations(answer), STORE)
    assert [label.label for label in labels] == ["supported", "unsupported"]
    assert valid_rate(labels) == 0.5


def test_a_citation_to_an_unreadable_page_is_unsupported() -> None:
    labels = label_citations(parse_citations("Paris is big ([x](https://gone.example))."), STORE)
    assert [(label.label, label.reason) for label in labels] == [
        ("unsupported", "page unreachable")
    ]


def test_without_a_store_citations_are_unknown_and_earn_nothing() -> None:
    labels = label_citations(parse_citations(f"Paris [x]({WIKI})."), None)
    assert [label.label for label in labels] == ["unknown"]
    assert valid_rate(labels) == 0.0


def test_no_citations_give_a_valid_rate_of_zero() -> None:
    assert valid_rate(label_citations(parse_citations("Paris is 330 m tall."), STORE)) == 0.0


def test_the_judge_can_label_citations() -> None:
    answer = f"The tower is 330 metres tall [1].\n\n[1] {WIKI}"
    labels = label_citations(parse_citations(answer), STORE, KeywordJudgeStandIn())
    assert [label.label for label in labels] == ["supported"]


def test_a_correct_cited_answer_earns_the_full_reward() -> None:
    response = f"<answer>The Eiffel Tower in Paris is 330 metres tall [1].\n\n[1] {WIKI}</answer>"
    reward = answer_reward(TREE, response, STORE)
    assert (reward.value, reward.base, reward.valid_rate, reward.dropped) == (1.0, 1.0, 1.0, False)


def test_an_uncited_correct_answer_loses_the_citation_quarter() -> None:
    assert answer_reward(TREE, "<answer>Paris, 330 metres.</answer>", STORE).value == 0.75


def test_an_empty_answer_earns_zero_not_a_drop() -> None:
    reward = answer_reward(TREE, "<think>hmm</think><answer>  </answer>", STORE)
    assert (reward.value, reward.dropped, reward.reason) == (0.0, False, "empty answer")


def test_a_verifier_that_cannot_run_drops_the_task() -> None:
    judged = tree(node("root", leaf("a"), leaf("b", check=Check("mentions", {"value": "Paris"}))))
    reward = answer_reward(judged, "<answer>Paris</answer>", STORE)
    assert reward.dropped and reward.value is None
    assert "1 errored and 0 unverified leaves" in reward.reason


def test_errors_that_cannot_change_the_score_do_not_drop_the_task() -> None:
    gated = tree(
        node(
            "root",
            leaf("gate", critical=True, check=Check("mentions", {"value": "Rome"})),
            leaf("a"),
        )
    )
    reward = answer_reward(gated, "<answer>Paris</answer>", STORE)
    assert (reward.value, reward.dropped) == (0.0, False)


# -- open-ended relative scores (QUEST-SPEC §4) --------------------------------------------------

WEIGHTS = {"comprehensiveness": 0.5, "readability": 0.5}
CRITERIA = [
    Criterion("comprehensiveness", "covers causes", 0.6),
    Criterion("comprehensiveness", "covers effects", 0.4),
    Criterion("readability", "clear structure", 1.0),
]


def test_relative_score_is_the_candidates_share_of_the_weighted_totals() -> None:
    scores = [CriterionScore(8, 6), CriterionScore(5, 5), CriterionScore(7, 7)]
    result = relative_score(WEIGHTS, CRITERIA, scores)
    t_a = 0.5 * (0.6 * 8 + 0.4 * 5) + 0.5 * 7
    t_b = 0.5 * (0.6 * 6 + 0.4 * 5) + 0.5 * 7
    assert result.final == pytest.approx(t_a / (t_a + t_b))
    assert result.discrete == 1.0
    assert result.errors == ()


@pytest.mark.parametrize(
    ("final", "reward"),
    [
        (0.5, 1.0),
        (0.49, 0.75),
        (0.475, 0.75),
        (0.46, 0.5),
        (0.45, 0.5),
        (0.43, 0.25),
        (0.425, 0.25),
        (0.42, 0.0),
    ],
)
def test_discretisation_follows_the_thresholds(final: float, reward: float) -> None:
    assert discretise(final) == reward


def test_one_criterion_that_neither_answer_meets_is_a_verdict_not_an_error() -> None:
    scores = [CriterionScore(0, 0), CriterionScore(5, 5), CriterionScore(7, 6)]
    result = relative_score(WEIGHTS, CRITERIA, scores)
    t_a = 0.5 * (0.4 * 5) + 0.5 * 7
    t_b = 0.5 * (0.4 * 5) + 0.5 * 6
    assert result.errors == ()
    assert result.final == pytest.approx(t_a / (t_a + t_b))


def test_a_judge_that_scores_both_answers_zero_everywhere_is_an_error_not_a_zero() -> None:
    scores = [CriterionScore(0, 0)] * 3
    result = relative_score(WEIGHTS, CRITERIA, scores)
    assert result.final is None and result.discrete is None
    assert result.errors == (
        "the judge gave 0 to both answers on every criterion (a failed judge)",
    )


class _PositionBiasedJudgeStandIn:
    """Gives the answer in position A two points more than it deserves."""

    def __init__(self, deserved: dict[str, float]) -> None:
        self.deserved = deserved
        self.prompts: list[str] = []

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        first = prompt.split("Answer A:\n", 1)[1].split("\n\nAnswer B:", 1)[0]
        second = prompt.split("Answer B:\n", 1)[1].split("\n\nCriterion:", 1)[0]
        return json.dumps({"score_a": self.deserved[first] + 2, "score_b": self.deserved[second]})


def test_judge_pair_asks_in_both_orders_and_cancels_a_position_bias() -> None:
    judge = _PositionBiasedJudgeStandIn({"candidate": 6, "reference": 6})
    score = judge_pair(
        judge, task="t", answer_a="candidate", answer_b="reference", criterion=CRITERIA[0]
    )
    assert score == CriterionScore(7.0, 7.0)
    assert len(judge.prompts) == 2
    assert judge.prompts[0].index("candidate") < judge.prompts[0].index("reference")
    assert judge.prompts[1].index("reference") < judge.prompts[1].index("candidate")


def test_judge_pair_is_missing_when_either_order_fails() -> None:
    class FailsSecond:
        calls = 0

        def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
            self.calls += 1
            if self.calls == 2:
                raise TimeoutError("slow")
            return '{"score_a": 5, "score_b": 5}'

    assert (
        judge_pair(FailsSecond(), task="t", answer_a="a", answer_b="b", criterion=CRITERIA[0])
        is None
    )


def test_missing_or_out_of_range_scores_are_errors() -> None:
    scores = [None, CriterionScore(11, 5), CriterionScore(7, None)]
    result = relative_score(WEIGHTS, CRITERIA, scores)
    assert result.final is None
    assert len(result.errors) == 3
