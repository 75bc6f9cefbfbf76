"""`quest eval bench` on the project's files in each format: the metrics it reports are the
ones computed by hand below, exactly; runs resume; two runs compare."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from quest.bench.published import FROM_RESPONSES
from quest.bench.results import BenchResults
from quest.cli import main


def bench(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["eval", "bench", *argv])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else None, captured.err


def value(metric: dict[str, Any]) -> float:
    return float(metric["value"])


def test_browsecomp_plus_responses_score_as_computed_by_hand(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code, summary, err = bench(
        [
            "--benchmark", "browsecomp-plus",
            "--data", str(data / "browsecomp_plus_queries.jsonl"),
            "--corpus", str(data / "browsecomp_plus_corpus.jsonl"),
            "--responses", str(data / "browsecomp_plus_responses.jsonl"),
            "--out", str(out), "--beta", "2",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    m = summary["metrics"]
    # q1 "Marie Curie" = gold; q2 "1970" != "1969"; q3 "the blue whale" = "Blue Whale" once
    # articles and case go; q4 "Sydney" != "Canberra". EM = 2/4; F1 the same (no partial
    # overlap).
    assert value(m["exact_match"]) == 0.5 and value(m["f1"]) == 0.5
    assert m["accuracy"] is None
    assert summary["headline"]["label"] == "exact match, not comparable to judged accuracy"
    # Cited against evidence: q1 [101] (103 is no evidence) of {101, 102} = 1/2; q2 none = 0;
    # q3 [105, 106] of {105, 106, 107} = 2/3; q4 [109] of {108} = 0. Mean (1/2 + 2/3) / 4.
    assert value(m["evidence_recall"]["cited"]) == pytest.approx(7 / 24, abs=1e-15)
    # Retrieved: q1 {101, 102} = 1; q2 {104} = 1; q3 {105} = 1/3; q4 nothing = 0 -> 7/12.
    assert value(m["evidence_recall"]["retrieved"]) == pytest.approx(7 / 12, abs=1e-15)
    assert value(m["search_calls"]) == (3 + 1 + 0 + 2) / 4
    # Confidence 90 (right), 60 (wrong), 30 (right), none stated = 100 (wrong). Bins of 2 by
    # confidence: {30 right, 60 wrong}: 0.45 vs 0.5; {90 right, 100 wrong}: 0.95 vs 0.5.
    # sqrt(1/2 * 0.05^2 + 1/2 * 0.45^2) = sqrt(0.1025).
    assert value(m["calibration_error"]) == pytest.approx(math.sqrt(0.1025), abs=1e-15)
    assert m["confidence_stated"] == 3
    for name in ("exact_match", "f1", "search_calls", "calibration_error"):
        low, high = m[name]["ci95"]
        assert low <= value(m[name]) <= high
    assert m["exact_match"]["interval"] == "Wilson score interval"
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    assert [(r["id"], r["answer"], r["verdict"], r["cited_docs"]) for r in rows] == [
        ("q1", "Marie Curie", "correct", ["101", "103"]),
        ("q2", "1970", "incorrect", []),
        ("q3", "the blue whale", "correct", ["105", "106"]),
        ("q4", "Sydney", "incorrect", ["109"]),
    ]
    assert rows[0]["gold"] == ["Marie Curie"] and rows[0]["search_calls"] == 3
    results = json.loads((out / "results.json").read_text())
    # Saved responses searched elsewhere: nothing is indexed, and the setup says so; the
    # corpus given was read for its docids alone, to read the bracketed citations.
    setup = results["setup"]
    assert setup["corpus"] == setup["retriever"] == FROM_RESPONSES and setup["judge"] == "none"
    assert setup["citations_read_with"] == str(data / "browsecomp_plus_corpus.jsonl")
    assert not (out / "corpus").exists()
    assert m["missing_responses"] == 0
    published = results["published"]["results"]
    assert published[0]["value"] == "3.86 %" and published[0]["setup_differs"]
    page = (out / "plots.html").read_text()
    assert "Calibration" in page and "Search calls per question" in page
    # plotly.js is inlined (megabytes), no script is loaded from elsewhere: it opens offline.
    assert len(page) > 1_000_000 and not re.search(r"<script[^>]*\bsrc=", page)
    assert "corpus: 9 documents read" in err and "4/4 q4: incorrect" in err


def test_flashrag_responses_score_em_and_f1_over_the_alias_lists(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--benchmark", "flashrag", "--data", str(data / "nq" / "test.jsonl")]
    responses = ["--responses", str(data / "nq_responses.jsonl")]
    code, summary, err = bench([*argv, *responses, "--out", str(tmp_path / "nq")], capsys)
    assert code == 0, err
    m = summary["metrics"]
    # test_0 "Shakespeare" matches the alias "Shakespeare": EM 1, F1 1.
    # test_1 "Atlantic Ocean" vs "the Pacific Ocean": EM 0; F1 1 shared token of 2 and 2 = 0.5.
    # test_2 "yes it is" vs "yes": a yes/no answer only matches itself: EM 0, F1 0.
    # test_3 "New York" vs "New York City": EM 0; F1 P 2/2, R 2/3 -> 0.8 (vs "NYC": 0).
    assert value(m["exact_match"]) == 0.25
    assert value(m["f1"]) == pytest.approx((1 + 0.5 + 0 + 0.8) / 4, abs=1e-15)
    assert summary["setup"]["dataset"] == "nq"
    # Stated confidence only on test_3 (80); the others count 100. One bin (4 < beta 100):
    # mean confidence (3 * 1.0 + 0.8) / 4 = 0.95, accuracy 0.25 -> |0.95 - 0.25| = 0.7.
    assert value(m["calibration_error"]) == pytest.approx(0.7, abs=1e-15)
    assert m["evidence_recall"]["cited"]["n"] == 0  # the QA sets list no documents
    assert summary["published"]["results"][0]["value"] == "0.31-0.34"


def test_frames_responses_score_and_cite_wikipedia_pages_by_url(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--benchmark", "frames", "--data", str(data / "frames.tsv")]
    responses = ["--responses", str(data / "frames_responses.jsonl"), "--beta", "1"]
    code, summary, err = bench([*argv, *responses, "--out", str(tmp_path / "frames")], capsys)
    assert code == 0, err
    m = summary["metrics"]
    # 0: "1898" right; 1: "30" != "31"; 2: "Canberra" right.
    assert value(m["exact_match"]) == pytest.approx(2 / 3, abs=1e-15)
    # Cited URLs against wiki_links, compared as citations are (www. and a trailing slash do
    # not matter): 0 cites Polonium of {Marie_Curie, Polonium} = 1/2; 1 cites none = 0;
    # 2 cites Canberra and Melbourne of three = 2/3.
    assert value(m["evidence_recall"]["cited"]) == pytest.approx((1 / 2 + 0 + 2 / 3) / 3, abs=1e-15)
    # Bins of one question: (0.7 - 1)^2, (0.5 - 0)^2, (0.95 - 1)^2, each weighted 1/3.
    expected = math.sqrt((0.3**2 + 0.5**2 + 0.05**2) / 3)
    assert value(m["calibration_error"]) == pytest.approx(expected, abs=1e-15)
    assert "No published FRAMES result" in summary["published"]["note"]


def test_the_scripted_policy_researches_the_benchmarks_corpus_and_a_rerun_resumes(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scripted"
    argv = [
        "--benchmark", "browsecomp-plus",
        "--data", str(data / "browsecomp_plus_queries.jsonl"),
        "--corpus", str(data / "browsecomp_plus_corpus.jsonl"),
        "--model", "scripted", "--get-document", "--out", str(out),
    ]  # fmt: skip
    code, summary, err = bench([*argv, "--limit", "2"], capsys)
    assert code == 0, err
    assert summary["metrics"]["n"] == 2
    rows = BenchResults.load(out).rows
    assert all(row.search_calls > 0 and row.status == "answered" for row in rows)
    # Every document the agent saw came from the benchmark's corpus (docids 101-109).
    assert {d for row in rows for d in row.retrieved_docs} <= {str(n) for n in range(101, 110)}
    assert all(set(row.evidence_docs) & set(row.retrieved_docs) for row in rows)
    code, summary, err = bench(argv, capsys)
    assert code == 0
    assert "4 questions, 2 already done" in err and "corpus:" not in err  # index reused
    assert [row.id for row in BenchResults.load(out).rows] == ["q1", "q2", "q3", "q4"]
    m = summary["metrics"]
    ems = [row.exact_match for row in BenchResults.load(out).rows]
    assert value(m["exact_match"]) == sum(ems) / 4


def test_two_runs_compare_by_the_paired_difference_on_shared_questions(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--benchmark", "flashrag", "--data", str(data / "nq" / "test.jsonl")]
    better = tmp_path / "better.jsonl"
    better.write_text(
        "".join(
            json.dumps({"id": f"test_{i}", "response": answer}) + "\n"
            for i, answer in enumerate(["Shakespeare", "Pacific Ocean", "yes", "Paris"])
        )
    )
    for name, responses in (("a", better), ("b", data / "nq_responses.jsonl")):
        out = str(tmp_path / name)
        assert bench([*argv, "--responses", str(responses), "--out", out], capsys)[0] == 0
    code = main(["eval", "bench", "compare", str(tmp_path / "a"), str(tmp_path / "b")])
    difference = json.loads(capsys.readouterr().out)["difference"]
    assert code == 0
    # EM a: 1, 1, 1, 0; b: 1, 0, 0, 0 -> differences 0, 1, 1, 0: mean 0.5, two wins, two ties.
    assert (difference["mean"] if "mean" in difference else difference["value"]) == 0.5
    assert (difference["wins"], difference["losses"], difference["ties"]) == (2, 0, 2)
    assert difference["metric"] == "exact match (the metric Search-R1 reports)"


def test_a_bad_file_or_a_run_of_another_setup_exits_1_with_one_line(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QUESTWEB_CORPUS_DIR", raising=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "1"}\n')
    argv = ["--benchmark", "browsecomp-plus", "--data", str(bad), "--model", "scripted"]
    code, _, err = bench([*argv, "--out", str(tmp_path / "x")], capsys)
    assert code == 1
    assert err == f"error: {bad} line 1, field 'query': is missing\n"
    argv = ["--benchmark", "flashrag", "--data", str(data / "nq" / "test.jsonl")]
    out = ["--out", str(tmp_path / "nq")]
    assert bench([*argv, "--responses", str(data / "nq_responses.jsonl"), *out], capsys)[0] == 0
    wiki = ["--corpus", str(data / "flashrag_wiki.jsonl")]
    code, _, err = bench([*argv, "--model", "scripted", *wiki, *out], capsys)
    assert code == 1 and "holds a run with another model, responses" in err
    code, _, err = bench([*argv, "--model", "scripted", "--out", str(tmp_path / "y")], capsys)
    assert (code, err) == (1, "error: flashrag needs a corpus to search: give --corpus\n")


def test_a_flashrag_set_is_researched_over_a_flashrag_wikipedia_corpus(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--benchmark", "flashrag", "--data", str(data / "nq" / "test.jsonl")]
    corpus = ["--corpus", str(data / "flashrag_wiki.jsonl"), "--model", "scripted"]
    code, summary, err = bench([*argv, *corpus, "--out", str(tmp_path / "nq")], capsys)
    assert code == 0, err
    rows = BenchResults.load(tmp_path / "nq").rows
    assert {d for row in rows for d in row.retrieved_docs} <= {"1", "2", "3"}
    assert summary["setup"]["corpus"].endswith("(3 documents, 3 passages)")
