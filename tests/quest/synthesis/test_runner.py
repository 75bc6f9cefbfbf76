"""A whole batch through the funnel, and the CLI that writes it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from quest.corpus.store import CorpusStore
from quest.rubric import TitleDistractors
from quest.rubric.importers import import_canonical
from quest.synthesis import STAGES, BatchSpec, SynthesisError, synthesize
from quest.synthesis.seeds import CLASSES
from quest.tools.offline import offline_toolbox

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def batch(pages: CorpusStore, distractors: TitleDistractors) -> list:
    return list(
        synthesize(
            BatchSpec(count=90, seed=11, baseline=False), pages=pages, distractors=distractors
        )
    )


def test_most_candidates_pass_every_stage_and_all_classes_appear(batch: list) -> None:
    accepted = [c for c in batch if c.accepted]
    assert len(batch) == 90
    assert len(accepted) >= 0.9 * len(batch), Counter(c.rejected_at for c in batch)
    assert {c.record["complexity"] for c in accepted} == set(CLASSES)
    for candidate in accepted:
        assert [s.name for s in candidate.stages] == list(STAGES)
        assert candidate.record["complexity"] == candidate.target_class


def test_records_are_tasks_in_the_import_format(batch: list) -> None:
    for candidate in batch[:30]:
        record = candidate.record
        if not candidate.accepted:
            continue
        assert set(record) >= {
            "question",
            "type",
            "category",
            "subcategory",
            "complexity",
            "rubric",
            "solution",
            "reference_answer",
            "provenance",
        }
        assert import_canonical(record["rubric"]).tree.task_description == record["question"]
        for item in record["solution"].values():
            assert item["description"] and item["reference_urls"]
        funnel = record["provenance"]["funnel"]
        assert [s["name"] for s in funnel] == list(STAGES)
        assert record["provenance"]["seed"] == 11


def test_the_same_seed_makes_the_same_batch(pages: CorpusStore, batch: list) -> None:
    again = list(synthesize(BatchSpec(count=10, seed=11, baseline=False), pages=pages))
    assert [c.question for c in again] == [c.question for c in batch[:10]]
    other = list(synthesize(BatchSpec(count=10, seed=12, baseline=False), pages=pages))
    assert [c.question for c in other] != [c.question for c in again]


def test_questions_of_one_batch_are_distinct(batch: list) -> None:
    questions = [c.question for c in batch if c.accepted]
    assert len(set(questions)) == len(questions)


def test_a_stop_request_ends_the_batch(pages: CorpusStore) -> None:
    made = []
    for candidate in synthesize(
        BatchSpec(count=50, seed=1, baseline=False), pages=pages, should_stop=lambda: len(made) >= 3
    ):
        made.append(candidate)
    assert len(made) == 3


def test_a_bad_spec_or_a_corpus_without_geonames_raises_a_clear_error(pages: CorpusStore) -> None:
    from quest.rubric.documents import InMemoryDocumentStore

    with pytest.raises(SynthesisError, match="count must be"):
        next(synthesize(BatchSpec(count=0), pages=pages))
    with pytest.raises(SynthesisError, match="no GeoNames country pages"):
        next(synthesize(BatchSpec(count=1), pages=InMemoryDocumentStore([])))
    with pytest.raises(SynthesisError, match="geography tasks for these subcategories"):
        next(synthesize(BatchSpec(count=1, categories={"Music": 1}), pages=pages))


def test_the_baseline_stage_runs_the_scripted_agent(geo_corpus: Path, pages: CorpusStore) -> None:
    spec = BatchSpec(count=4, seed=2, baseline=True)
    made = list(synthesize(spec, pages=pages, toolbox_factory=lambda: offline_toolbox(geo_corpus)))
    baselines = [c.stage("baseline") for c in made if c.accepted]
    assert baselines
    for stage in baselines:
        assert stage is not None and 0.0 <= stage.detail["reward"] <= 1.0
        assert stage.detail["answer"], "the agent's answer is kept for inspection"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quest", "synth", *args],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_cli_writes_accepted_tasks_and_a_report(geo_corpus: Path, tmp_path: Path) -> None:
    out, report = tmp_path / "tasks.jsonl", tmp_path / "report.jsonl"
    done = run_cli(
        "--count",
        "6",
        "--seed",
        "4",
        "--corpus",
        str(geo_corpus),
        "--out",
        str(out),
        "--report",
        str(report),
        "--no-encoder",
    )
    assert done.returncode == 0, done.stderr
    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert len(rows) == 6 and len(tasks) == sum(r["accepted"] for r in rows) >= 5
    assert "[6/6]" in done.stderr and "accepted in" in done.stderr
    assert tasks[0]["provenance"]["generator"] == "questweb kg synthesizer"


def test_cli_errors_name_the_problem_and_leave_the_output_alone(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    out.write_text("kept\n")
    for args, message in [
        (["--count", "0"], "count must be from 1"),
        (["--classes", "C1=x"], "expected NAME=WEIGHT"),
        (["--classes", "C12=1"], "unknown C12"),
        ([], "not a corpus directory"),
    ]:
        done = run_cli("--corpus", str(tmp_path), "--out", str(out), *args)
        assert done.returncode == 1
        assert message in done.stderr and "Traceback" not in done.stderr
    assert out.read_text() == "kept\n"
