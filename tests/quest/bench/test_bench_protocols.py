"""What a run reports says what it is: exact match is labelled by each benchmark's published
metric; a run of saved responses claims no search setup, indexes nothing and reports what its
responses do not say as unknown; responses of other questions, and files that are not UTF-8,
are refused by name; a FlashRAG set is named by a word of its file's name; the calibration
plot shows a bin at confidence 1.0 whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from quest.bench.config import BenchConfig, BenchError
from quest.bench.corpus import corpus_docids, corpus_rows
from quest.bench.formats import FormatError, flashrag_dataset, load_questions
from quest.bench.plots import figures
from quest.bench.published import FROM_RESPONSES, NOT_COMPARABLE, side_by_side
from quest.bench.results import BenchResults, metrics
from quest.bench.run import run_benchmark

TEMPLATE = Path(__file__).resolve().parents[3] / "templates" / "benchmarks" / "run_detail.html"


def responses_run(
    data: Path, out: Path, responses: Path, benchmark: str = "browsecomp-plus", **options: Any
) -> BenchResults:
    files = {
        "browsecomp-plus": data / "browsecomp_plus_queries.jsonl",
        "flashrag": data / "nq" / "test.jsonl",
        "frames": data / "frames.tsv",
    }
    config = BenchConfig(
        benchmark=benchmark, data=files[benchmark], out=out, responses=responses, **options
    )
    return run_benchmark(config)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# ---- 1. the no-judge label ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("benchmark", "label", "published", "comparable", "paper"),
    [
        ("browsecomp-plus", NOT_COMPARABLE, "judged accuracy", False, "the BrowseComp-Plus paper"),
        (
            "flashrag",
            "exact match (the metric Search-R1 reports)",
            "exact match",
            True,
            "Search-R1",
        ),
        ("frames", NOT_COMPARABLE, "judged accuracy", False, "the FRAMES paper"),
    ],
)
def test_exact_match_without_a_judge_is_labelled_by_the_benchmarks_published_metric(
    data: Path,
    tmp_path: Path,
    benchmark: str,
    label: str,
    published: str,
    comparable: bool,
    paper: str,
) -> None:
    saved = {
        "browsecomp-plus": data / "browsecomp_plus_responses.jsonl",
        "flashrag": data / "nq_responses.jsonl",
        "frames": data / "frames_responses.jsonl",
    }
    results = responses_run(data, tmp_path / "run", saved[benchmark], benchmark)
    headline = results.headline()
    assert headline["label"] == label
    assert headline["published_metric"] == published
    assert headline["comparable_to_published"] is comparable
    written = json.loads((tmp_path / "run" / "results.json").read_text())
    assert written["metrics"]["exact_match"]["label"] == label
    protocol = written["published"]["protocol"]
    assert (protocol["metric"], protocol["reported_by"]) == (published, paper)
    assert protocol["exact_match_is_published"] is comparable
    assert paper.removeprefix("the ").removesuffix(" paper") in protocol["without_judge"]


def test_a_judged_run_and_a_run_of_no_benchmark_keep_their_labels() -> None:
    assert metrics([])["exact_match"]["label"] == NOT_COMPARABLE
    assert metrics([])["exact_match"]["published_metric"] is None
    assert side_by_side("browsecomp-plus", {})["protocol"]["source"].startswith("Chen et al.")
    assert side_by_side("frames", {})["protocol"]["source"].endswith("arXiv:2409.12941")
    assert side_by_side("nothing", {})["protocol"] is None


def banner_html(judged: bool, published: dict[str, Any]) -> str:
    """The run page's no-judge banner, rendered from the template's own line."""
    from django.template import Context, Engine

    line = next(
        line for line in TEMPLATE.read_text().splitlines() if 'data-testid="no-judge"' in line
    )
    return Engine().from_string(line).render(Context({"judged": judged, "published": published}))


def banner(judged: bool, published: dict[str, Any]) -> str:
    return " ".join(re.sub(r"<[^>]+>", "", banner_html(judged, published)).split())


def test_the_run_pages_banner_names_each_benchmarks_published_metric() -> None:
    assert banner(False, side_by_side("browsecomp-plus", {})) == (
        "No judge graded this run: its headline is exact match, which is not comparable to "
        "judged accuracy (the metric the BrowseComp-Plus paper reports)."
    )
    assert banner(False, side_by_side("frames", {})) == (
        "No judge graded this run: its headline is exact match, which is not comparable to "
        "judged accuracy (the metric the FRAMES paper reports)."
    )
    assert banner(False, side_by_side("flashrag", {})) == (
        "No judge graded this run, and none is needed: its headline is exact match, the metric "
        "Search-R1 reports."
    )
    assert 'class="panel warning"' in banner_html(False, side_by_side("frames", {}))
    assert 'class="panel"' in banner_html(False, side_by_side("flashrag", {}))
    # A run whose published numbers say no protocol (none recorded): the cautious wording.
    assert banner(False, {"results": []}).endswith("not comparable to judged accuracy.")
    assert banner(True, side_by_side("frames", {})) == ""


# ---- 2. a responses run's setup and its unknowns ------------------------------------------------


def test_a_responses_run_indexes_nothing_and_claims_no_search_setup(
    data: Path, tmp_path: Path
) -> None:
    # The app's default corpus is not there: a responses run must not touch it.
    results = responses_run(
        data, tmp_path / "nq", data / "nq_responses.jsonl", "flashrag",
        default_corpus=tmp_path / "no-such-corpus",
    )  # fmt: skip
    setup = results.setup
    assert setup["corpus"] == setup["retriever"] == FROM_RESPONSES
    assert setup["search_top_k"] is None and setup["get_document"] is None
    assert setup["citations_read_with"] is None
    assert sorted(p.name for p in (tmp_path / "nq").iterdir()) == [
        "plots.html", "results.json", "rows.jsonl", "setup.json",
    ]  # fmt: skip
    m = results.metrics()
    # No response gives search calls or retrieved documents: unknown, not 0.
    assert m["search_calls"]["value"] is None and m["search_calls"]["n"] == 0
    assert m["evidence_recall"]["retrieved"]["value"] is None
    assert m["missing_responses"] == 0
    differs = side_by_side("flashrag", setup)["results"][0]["setup_differs"]
    assert differs[0] == (
        "corpus: the responses' system's is not recorded; the published result used 2018 "
        "Wikipedia dump"
    )
    # Search-R1 publishes an average over its seven sets; this run is one of them.
    assert differs[-1].startswith("dataset: this run is nq alone; the published result is the ")


def test_only_the_responses_that_say_count_in_search_calls_and_retrieved_recall(
    data: Path, tmp_path: Path
) -> None:
    rows = [json.loads(line) for line in (data / "browsecomp_plus_responses.jsonl").open()]
    del rows[0]["search_calls"], rows[0]["retrieved_docs"]  # q1 says neither
    del rows[1]["retrieved_docs"]  # q2 gives its search calls alone
    saved = write_jsonl(tmp_path / "r.jsonl", rows)
    m = responses_run(data, tmp_path / "run", saved, beta=2).metrics()
    # Search calls: q2 1, q3 0, q4 2 -> 3 / 3. Retrieved recall: q3 1/3, q4 0 -> 1/6.
    assert (m["search_calls"]["value"], m["search_calls"]["n"]) == (1.0, 3)
    assert m["evidence_recall"]["retrieved"]["value"] == pytest.approx(1 / 6, abs=1e-15)
    assert m["evidence_recall"]["retrieved"]["n"] == 2
    assert m["evidence_recall"]["cited"]["n"] == 4  # cited documents are read from the text
    kept = BenchResults.load(tmp_path / "run").rows
    assert [(r.search_calls_known, r.retrieved_known) for r in kept] == [
        (False, False), (True, False), (True, True), (True, True),
    ]  # fmt: skip


def test_a_responses_runs_corpus_is_read_for_its_docids_alone(data: Path, tmp_path: Path) -> None:
    docids = {str(n) for n in range(101, 110)}
    assert corpus_docids(data / "browsecomp_plus_corpus.jsonl") == docids
    import pyarrow as pa
    import pyarrow.parquet as pq

    shards = tmp_path / "shards"
    shards.mkdir()
    pq.write_table(pa.table({"docid": ["1", "2"], "text": ["a", "b"]}), shards / "p.parquet")
    assert corpus_docids(shards) == {"1", "2"}
    rows = [
        {"id": "q1", "response": "Explanation: see [101] and [999].\nExact Answer: Marie Curie"}
    ]
    saved = write_jsonl(tmp_path / "r.jsonl", rows)
    corpus = data / "browsecomp_plus_corpus.jsonl"
    results = responses_run(data, tmp_path / "run", saved, corpus=corpus)
    assert results.rows[0].cited_docs == ("101",)  # 999 is no docid of the corpus
    assert not (tmp_path / "run" / "corpus").exists()


# ---- 3. responses of other questions ------------------------------------------------------------


def test_responses_that_answer_no_question_are_refused_naming_the_file(
    data: Path, tmp_path: Path
) -> None:
    saved = write_jsonl(
        tmp_path / "other.jsonl", [{"id": f"x{n}", "response": "Paris"} for n in range(5)]
    )
    with pytest.raises(BenchError) as refused:
        responses_run(data, tmp_path / "run", saved)
    message = str(refused.value)
    assert message.startswith(f"{saved}: none of its 5 response ids is a question id of ")
    assert "'x0', 'x1' … (5 in all)" in message and "'q1', 'q2' … (4 in all)" in message
    assert not (tmp_path / "run").exists()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(FormatError, match=r"empty\.jsonl: holds no responses"):
        responses_run(data, tmp_path / "run", empty)


def test_responses_that_answer_some_questions_count_the_missing_ones(
    data: Path, tmp_path: Path
) -> None:
    rows = [json.loads(line) for line in (data / "browsecomp_plus_responses.jsonl").open()]
    saved = write_jsonl(tmp_path / "some.jsonl", rows[:1])
    lines: list[str] = []
    config = BenchConfig(
        benchmark="browsecomp-plus",
        data=data / "browsecomp_plus_queries.jsonl",
        out=tmp_path / "run",
        responses=saved,
    )
    results = run_benchmark(config, on_progress=lines.append)
    m = results.metrics()
    assert m["missing_responses"] == 3 and m["exact_match"]["value"] == 0.25
    assert [row.status for row in results.rows] == ["scored", "missing", "missing", "missing"]
    assert f"3 of the questions have no response in {saved} (scored as missing): q2, q3, q4" in (
        lines
    )
    # The missing say nothing of their searches either.
    assert m["search_calls"]["n"] == 1 and m["evidence_recall"]["retrieved"]["n"] == 1


# ---- 4. files that are not UTF-8 ----------------------------------------------------------------


BINARY = b"\x1f\x8b\x08\x00" + bytes(range(128, 256))


@pytest.mark.parametrize("benchmark", ["browsecomp-plus", "flashrag", "frames"])
def test_a_question_file_that_is_not_utf8_is_refused_naming_its_line(
    tmp_path: Path, benchmark: str
) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(BINARY)
    with pytest.raises(FormatError) as refused:
        load_questions(benchmark, path)
    assert str(refused.value).startswith(
        f"{path} line 1: is not UTF-8 text (byte 0x8b at position 2 of the line): is it a "
        "binary or compressed file?"
    )
    good = '{"id": "a", "question": "¿qué?", "golden_answers": ["x"]}\n'
    path.write_bytes(b"\xef\xbb\xbf" + good.encode() + good.replace('"a"', '"b"').encode("latin-1"))
    with pytest.raises(FormatError, match=r"data\.bin line 2: is not UTF-8 text \(byte 0xbf"):
        load_questions("flashrag", path)


def test_a_frames_tsv_that_is_not_utf8_names_its_line(data: Path, tmp_path: Path) -> None:
    lines = (data / "frames.tsv").read_bytes().splitlines(keepends=True)
    path = tmp_path / "f.tsv"
    path.write_bytes(b"".join([*lines[:2], "Zürich\n".encode("latin-1")]))
    with pytest.raises(FormatError, match=r"f\.tsv line 3: is not UTF-8 text \(byte 0xfc"):
        load_questions("frames", path)


def test_responses_and_corpus_files_that_are_not_utf8_name_their_line(
    data: Path, tmp_path: Path
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": "q1", "response": "a"}\n' + BINARY)
    with pytest.raises(FormatError, match=r"r\.jsonl line 2: is not UTF-8 text"):
        responses_run(data, tmp_path / "run", path)
    corpus = tmp_path / "c.jsonl"
    corpus.write_bytes(BINARY)
    with pytest.raises(FormatError, match=r"c\.jsonl line 1: is not UTF-8 text"):
        list(corpus_rows(corpus))
    with pytest.raises(FormatError, match=r"c\.jsonl line 1: is not UTF-8 text"):
        corpus_docids(corpus)


# ---- 5. the FlashRAG set's name -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("nq/test.jsonl", "nq"),
        ("nq.jsonl", "nq"),
        ("nq_test.jsonl", "nq"),
        ("test-nq.jsonl", "nq"),
        ("NQ_Test.JSONL", "nq"),
        ("hotpotqa_dev.jsonl", "hotpotqa"),
        ("uploads/20261129-132908-nq_test.jsonl", "nq"),
        ("2wiki_dev.jsonl", "2wikimultihopqa"),
        ("data/2WikiMultihopQA/dev.jsonl", "2wikimultihopqa"),
        ("musique.dev.jsonl", "musique"),
        ("nqa_test.jsonl", "nqa_test"),  # no partial words
        ("popqa2.jsonl", "popqa2"),
        ("nq_vs_popqa.jsonl", "nq_vs_popqa"),  # two sets: named by neither
        ("sets/dev.jsonl", "dev"),
    ],
)
def test_a_flashrag_set_is_named_by_its_folder_or_a_whole_word_of_its_file_name(
    path: str, name: str
) -> None:
    assert flashrag_dataset(path) == name


# ---- 6. the calibration plot --------------------------------------------------------------------


def test_the_calibration_plot_shows_a_bin_at_confidence_one_whole(
    data: Path, tmp_path: Path
) -> None:
    results = responses_run(data, tmp_path / "nq", data / "nq_responses.jsonl", "flashrag", beta=1)
    calibration = figures(results)["calibration"].to_plotly_json()
    layout = calibration["layout"]
    assert list(layout["xaxis"]["range"]) == list(layout["yaxis"]["range"]) == [-0.02, 1.02]
    assert 1.0 in calibration["data"][1]["x"]
