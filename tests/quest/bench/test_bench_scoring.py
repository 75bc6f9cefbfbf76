"""Scoring as the benchmarks' authors do it: SQuAD-normalised EM and F1 over the alias list,
BrowseComp's answer format, the binned RMS calibration error and the published numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from quest.bench.answers import answer_prompt, parse_response
from quest.bench.judge import GRADER_PROMPT, Verdict, load_grader_prompt
from quest.bench.published import published_for, setup_differences, side_by_side
from quest.bench.scoring import exact_match, f1_score, normalize_answer
from quest.bench.stats import calibration_error


def test_answers_are_normalised_as_squad_does() -> None:
    assert normalize_answer("  The Blue-Whale, an ANIMAL! ") == "bluewhale animal"
    assert normalize_answer("A Tale of Two Cities") == "tale of two cities"


def test_exact_match_takes_the_best_alias() -> None:
    assert exact_match("shakespeare.", ["William Shakespeare", "Shakespeare"]) == 1.0
    assert exact_match("W. Shakespeare", ["William Shakespeare", "Shakespeare"]) == 0.0


def test_f1_is_token_overlap_and_yes_no_only_match_themselves() -> None:
    # "new york" against "new york city": precision 2/2, recall 2/3 -> 2*(2/3)/(5/3) = 0.8
    assert f1_score("New York", ["New York City", "NYC"]) == pytest.approx(0.8, abs=1e-15)
    # FlashRAG: a yes/no/noanswer on either side scores only when both are equal.
    assert f1_score("yes it is", ["yes"]) == 0.0
    assert f1_score("no", ["no answer given"]) == 0.0
    assert f1_score("Yes.", ["yes"]) == 1.0
    assert f1_score("", ["x"]) == 0.0


def test_it_reads_browsecomps_three_fields_and_the_cited_docids() -> None:
    response = (
        "**Explanation:** Two pages agree [101], [102, 7] and one does not [3].\n"
        "**Exact Answer:** Marie Curie\n"
        "Confidence: 85%"
    )
    parsed = parse_response(response, docids={"101", "102", "3"})
    assert parsed.exact_answer == "Marie Curie"
    assert parsed.explanation == "Two pages agree [101], [102, 7] and one does not [3]."
    assert (parsed.confidence, parsed.confidence_stated) == (85.0, True)
    assert parsed.cited == ("101", "102", "3")  # 7 is no docid of the corpus


def test_a_response_without_a_confidence_counts_as_100_percent() -> None:
    parsed = parse_response("Exact Answer: 1969")
    assert (parsed.exact_answer, parsed.confidence, parsed.confidence_stated) == (
        "1969",
        100.0,
        False,
    )


def test_a_report_numbers_its_sources_and_those_numbers_are_not_docids() -> None:
    report = (
        "**Answer:** Canberra. It was chosen in 1908 [1].\n\n## Sources\n"
        "1. Canberra - https://bench.invalid/doc/108"
    )
    parsed = parse_response(
        report, docids={"1", "108"}, docid_of_url=lambda u: u.rsplit("/", 1)[-1]
    )
    assert (parsed.exact_answer, parsed.cited) == ("Canberra", ("108",))
    assert parse_response("  Paris \n").exact_answer == "Paris"


def test_the_model_is_asked_for_the_benchmarks_answer_format() -> None:
    prompt = answer_prompt("Who?", get_document=True)
    assert prompt.startswith("Who?\n\n")
    for field in ("Explanation:", "Exact Answer:", "Confidence:", "get_document"):
        assert field in prompt
    assert "get_document" not in answer_prompt("Who?", get_document=False)


def test_calibration_error_is_the_rms_gap_over_bins_of_beta_questions() -> None:
    # Sorted by confidence: (0.3, right) (0.6, wrong) | (0.9, right) (1.0, wrong).
    # Bin 1: mean confidence 0.45, accuracy 0.5 -> gap 0.05; bin 2: 0.95 vs 0.5 -> gap 0.45.
    # sqrt(2/4 * 0.05^2 + 2/4 * 0.45^2) = sqrt(0.00125 + 0.10125) = sqrt(0.1025)
    value = calibration_error([0.9, 0.6, 0.3, 1.0], [True, False, True, False], beta=2)
    assert value == pytest.approx(math.sqrt(0.1025), abs=1e-15)
    # Fewer questions than beta: one bin. 5 questions, beta 2: bins of 2 and 3.
    assert calibration_error([1.0, 1.0], [True, False], beta=100) == pytest.approx(0.5)
    # (0.1, 0.2) right, wrong -> 0.15 vs 0.5; (0.7, 0.8, 0.9) all right -> 0.8 vs 1.
    five = calibration_error([0.9, 0.1, 0.8, 0.2, 0.7], [True, True, True, False, True], beta=2)
    assert five == pytest.approx(math.sqrt(2 / 5 * 0.35**2 + 3 / 5 * 0.2**2), abs=1e-15)


def test_a_judge_reply_is_read_in_browsecomps_grader_format() -> None:
    verdict = Verdict.from_reply(
        "extracted_final_answer: Marie Curie\nreasoning: same person\ncorrect: yes\nconfidence: 90"
    )
    assert (verdict.correct, verdict.parsed, verdict.extracted_final_answer) == (
        True,
        True,
        "Marie Curie",
    )
    assert verdict.confidence == 90.0
    unreadable = Verdict.from_reply("I think it is right.")
    assert (unreadable.correct, unreadable.parsed) == (False, False)


def test_a_grader_prompt_file_must_hold_every_field(tmp_path: Path) -> None:
    assert load_grader_prompt(None) == GRADER_PROMPT
    path = tmp_path / "grader.txt"
    path.write_text("Q {question} R {response}")
    with pytest.raises(ValueError, match="correct_answer"):
        load_grader_prompt(path)
    path.write_text("Q {question} R {response} A {correct_answer}")
    assert load_grader_prompt(path).startswith("Q {question}")


def test_published_numbers_come_with_their_source_and_where_the_setup_differs() -> None:
    bcp = published_for("browsecomp-plus")
    assert [(e.system, e.value, e.retriever) for e in bcp] == [
        ("Search-R1-32B", "3.86 %", "BM25"),
        ("GPT-5", "70.1 %", "Qwen3-Embedding-8B"),
    ]
    assert all("arXiv:2508.06600" in e.source for e in bcp)
    notes = setup_differences({"corpus": "mine", "retriever": "BM25", "judge": "none"}, bcp[0])
    assert [note.split(":")[0] for note in notes] == ["corpus", "judge"]
    assert published_for("flashrag")[0].value == "0.31-0.34"
    frames = side_by_side("frames", {})
    assert frames["results"] == [] and "No published FRAMES result" in frames["note"]
