from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from training_helpers import AUSTRALIA, CANBERRA, capital_tree, judged_tree

from quest.corpus import CorpusError
from quest.rewards import compute_score, corpus_store, rubric_reward

TREE = json.dumps(capital_tree(AUSTRALIA, "Canberra"))
PAGES_TREE = json.dumps(capital_tree(AUSTRALIA, "Canberra", pages=True))
CORRECT = (
    "<think>Two sources agree.</think>\n<answer>Canberra is the capital city of Australia [1]."
    f"\n\n[1] {CANBERRA}</answer>"
)
KEYS = {"score", "dropped", "base", "valid_rate", "citation", "reason"}


@pytest.fixture
def with_corpus(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QUESTWEB_CORPUS_DIR", str(corpus))
    return corpus


@pytest.fixture
def without_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QUESTWEB_CORPUS_DIR", raising=False)


def score(response: str, tree: Any = TREE) -> dict[str, Any]:
    result = compute_score("questweb", response, tree, {"task_id": "australia", "index": 0})
    assert set(result) == KEYS  # verl collects each key per sample: every sample has them all
    assert isinstance(result["score"], float) and isinstance(result["reason"], str)
    return result


def test_a_correct_answer_citing_a_page_that_states_it_earns_the_full_reward(
    with_corpus: Path,
) -> None:
    result = score(CORRECT, PAGES_TREE)
    assert (result["score"], result["base"], result["valid_rate"]) == (1.0, 1.0, 1.0)
    assert result["citation"] == pytest.approx(0.25) and not result["dropped"]


def test_without_a_corpus_citations_are_unknown_so_the_citation_quarter_is_lost(
    without_corpus: None,
) -> None:
    result = score(CORRECT)
    assert (result["score"], result["base"], result["valid_rate"]) == (0.75, 1.0, 0.0)


def test_without_a_corpus_a_tree_that_reads_the_cited_pages_is_dropped(
    without_corpus: None,
) -> None:
    result = score(CORRECT, PAGES_TREE)
    assert result["dropped"] and result["score"] == 0.0
    assert "errored" in result["reason"]


def test_a_wrong_answer_earns_nothing_even_with_a_supported_citation(with_corpus: Path) -> None:
    wrong = (
        "<answer>Sydney is the largest city in Australia [1].\n\n"
        "[1] https://en.wikipedia.org/wiki/Sydney</answer>"
    )
    result = score(wrong)
    assert (result["score"], result["base"], result["dropped"]) == (0.0, 0.0, False)


def test_an_empty_answer_earns_zero_and_is_not_dropped(with_corpus: Path) -> None:
    for response in ("", "<answer>   </answer>", "<think>Canberra is the capital.</think>"):
        result = score(response)
        assert (result["score"], result["dropped"]) == (0.0, False)
        assert result["reason"].startswith("no final answer")


def test_echoing_the_question_earns_nothing(with_corpus: Path) -> None:
    assert score(f"<answer>{AUSTRALIA}</answer>")["score"] == 0.0


def test_tool_calls_are_not_an_answer_however_many_name_the_right_city(
    with_corpus: Path,
) -> None:
    call = '<tool_call>{"name": "search", "arguments": {"query": ["Canberra capital"]}}</tool_call>'
    assert score(call * 20)["reason"].startswith("no final answer")
    assert score(f"<answer>{call}</answer>")["score"] == 0.0


def test_an_unclosed_answer_cut_off_by_the_token_limit_is_no_answer(with_corpus: Path) -> None:
    assert score("<answer>Canberra is the capital city of Australia")["score"] == 0.0


def test_the_last_answer_of_a_multi_turn_response_is_scored(with_corpus: Path) -> None:
    turns = (
        '<tool_call>{"name": "search", "arguments": {"query": ["capital"]}}</tool_call>\n'
        "<tool_response>\nSydney is the capital of New South Wales.\n</tool_response>\n"
        f"{CORRECT}"
    )
    assert score(turns, PAGES_TREE)["score"] == 1.0


def test_a_tree_only_a_judge_can_decide_is_dropped_not_scored_zero(with_corpus: Path) -> None:
    result = score(CORRECT, json.dumps(judged_tree(AUSTRALIA)))
    assert result["dropped"] and result["score"] == 0.0 and result["base"] == 0.0
    assert "1 errored" in result["reason"]


@pytest.mark.parametrize(
    "ground_truth",
    ["Canberra", "42", '{"format": "questweb.rubric/1", "root": {"id": "root"}}', '["a", 1]'],
)
def test_a_ground_truth_that_is_not_a_tree_drops_the_sample_with_the_reason(
    ground_truth: str, with_corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="quest.rewards"):
        result = score(CORRECT, ground_truth)
        score(CORRECT, ground_truth)
    assert result["dropped"] and result["score"] == 0.0
    assert result["reason"].startswith("the ground truth is not a rubric tree")
    # parsed (and logged) once per process, however many rollouts carry it
    assert [r.levelno for r in caplog.records].count(logging.WARNING) <= 1


def test_a_decoded_tree_is_accepted_as_ground_truth(with_corpus: Path) -> None:
    assert score(CORRECT, capital_tree(AUSTRALIA, "Canberra", pages=True))["score"] == 1.0


def test_the_trl_adapter_scores_conversational_completions_and_returns_none_when_dropped(
    with_corpus: Path,
) -> None:
    judged = json.dumps(judged_tree(AUSTRALIA))
    completions = [
        [{"role": "assistant", "content": CORRECT}],
        [
            {"role": "assistant", "content": CORRECT},
            {"role": "user", "content": "<tool_response>\nnothing\n</tool_response>"},
            {"role": "assistant", "content": "<answer>Sydney</answer>"},
        ],
        CORRECT,
        [{"role": "assistant", "content": CORRECT}],
    ]
    rewards = rubric_reward(
        prompts=[[{"role": "user", "content": AUSTRALIA}]] * 4,
        completions=completions,
        ground_truth=[PAGES_TREE, PAGES_TREE, PAGES_TREE, judged],
        task_id=["australia"] * 4,
    )
    assert rewards == [1.0, 0.0, 1.0, None]


def test_the_corpus_store_is_opened_once_per_process(corpus: Path) -> None:
    assert corpus_store(str(corpus)) is corpus_store(str(corpus))
    assert corpus_store(None) is None


def test_a_corpus_variable_naming_no_corpus_fails_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUESTWEB_CORPUS_DIR", str(tmp_path))
    with pytest.raises(CorpusError, match="QUESTWEB_CORPUS_DIR"):
        compute_score("questweb", CORRECT, TREE)
