"""The red-team finds a hole planted in a weak tree, is deterministic for a seed, and runs from
`python -m quest rubric redteam`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from quest.cli import main
from quest.corpus.store import CorpusStore
from quest.rubric.importers import import_canonical
from quest.rubric.score import compile_tree
from quest.synthesis import funnel
from quest.synthesis.attacks import material
from quest.synthesis.facts import Unbuildable
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.kgsynth import KGSynthesizer
from quest.synthesis.oracle import judge_answer
from quest.synthesis.redteam import red_team, reward_of
from quest.synthesis.runner import task_record

REFERENCE = (
    "The country is Switzerland [1]. The currency of Switzerland is CHF [1].\n\n"
    "Exact answer: Switzerland\n\n[1] https://www.geonames.org/2658434"
)
ORACLE = {
    "family": "lookup",
    "answers": ["Switzerland"],
    "distractors": ["Austria", "Germany", "Italy", "Liechtenstein"],
}


def lookup_record(identity_check: dict[str, Any]) -> dict[str, Any]:
    root = {
        "id": "root",
        "description": "Which country in Europe uses the currency CHF? Give its currency.",
        "critical": False,
        "strategy": "parallel",
        "children": [
            {"id": "identity", "description": "Switzerland", "critical": True,
             "check": identity_check},
            {"id": "currency", "description": "CHF", "critical": False,
             "check": {"kind": "mentions", "value": "CHF", "context": ["currency"]}},
        ],
    }  # fmt: skip
    rubric = {
        "format": "questweb.rubric/1",
        "scoring": "quest",
        "task_description": "",
        "root": root,
    }
    return {"rubric": rubric, "reference_answer": REFERENCE, "solution": {"Switzerland": {}}}


def hunt(record: dict[str, Any], pages: CorpusStore, **options: Any) -> Any:
    compiled = compile_tree(import_canonical(record["rubric"]).tree)
    m = material(record, ORACLE, KnowledgeGraph.load())
    return red_team(m, reward_of(compiled, pages), **options)


def test_it_finds_the_hole_of_a_tree_that_pays_a_mention_of_the_answer_anywhere(
    pages: CorpusStore,
) -> None:
    weak = lookup_record({"kind": "mentions", "value": "Switzerland"})
    result = hunt(weak, pages, budget=60, seed=3, stop_at=2.0)
    wrong = result.best_by_verdict["wrong"]
    assert wrong.reward >= 0.5
    assert judge_answer(ORACLE, wrong.text).verdict == "wrong"
    assert result.reference_reward == pytest.approx(1.0)


def test_a_wrong_commitment_earns_little_once_the_identity_leaf_reads_the_commitment(
    pages: CorpusStore,
) -> None:
    strong = lookup_record({"kind": "mentions", "value": "Switzerland", "committed": True})
    result = hunt(strong, pages, budget=60, seed=3, stop_at=2.0)
    assert result.best_by_verdict["wrong"].reward < 0.5
    assert result.reference_reward == pytest.approx(1.0)


def test_the_search_is_deterministic_for_a_seed(pages: CorpusStore) -> None:
    weak = lookup_record({"kind": "mentions", "value": "Switzerland", "committed": True})
    first, again = (hunt(weak, pages, budget=50, seed=7, stop_at=2.0) for _ in range(2))
    assert first.evaluations == again.evaluations == 50
    assert first.best is not None and again.best is not None
    assert (first.best.text, first.best.edits) == (again.best.text, again.best.edits)
    assert first.by_attack == again.by_attack
    assert {v: a.text for v, a in first.best_by_verdict.items()} == {
        v: a.text for v, a in again.best_by_verdict.items()
    }


def test_the_funnel_rejects_a_tree_the_red_team_beats_with_the_winning_answer(
    pages: CorpusStore,
) -> None:
    weak = {**lookup_record({"kind": "mentions", "value": "Switzerland"}), "oracle": ORACLE}
    compiled = compile_tree(import_canonical(weak["rubric"]).tree)
    stage = funnel.redteam_stage(weak, compiled, pages)
    assert stage.name == "redteam" and not stage.passed
    assert stage.detail["excess"] >= 0.5 and stage.detail["evaluations"] <= funnel.REDTEAM_BUDGET
    answer = stage.reason.rsplit(f" earns {stage.detail['reward']:.3f}: ", 1)[1]
    assert "Switzerland" in answer and len(answer) <= 500


def test_the_funnel_skips_the_red_team_for_a_record_without_an_oracle(pages: CorpusStore) -> None:
    record = lookup_record({"kind": "mentions", "value": "Switzerland"})
    compiled = compile_tree(import_canonical(record["rubric"]).tree)
    stage = funnel.redteam_stage(record, compiled, pages)
    assert stage.passed and stage.detail == {"tested": False}
    assert "no oracle" in stage.reason


@pytest.fixture(scope="module")
def tasks_file(pages: CorpusStore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    synth = KGSynthesizer(has_page=lambda url: pages.get(url) is not None)
    records = []
    for seed in range(100):
        try:
            draft = synth.draft("News", "C1", random.Random(seed))
        except Unbuildable:
            continue
        records.append(task_record(draft, "News", {"family": draft.family}))
        if len(records) == 2:
            break
    path = tmp_path_factory.mktemp("redteam") / "tasks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_cli_prints_a_summary_and_writes_the_best_hack_of_each_task(
    tasks_file: Path, geo_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hacks.jsonl"
    args = ["rubric", "redteam", str(tasks_file), "--corpus", str(geo_corpus)]
    assert main([*args, "--budget", "25", "--seed", "1", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["tasks"] == 2 and summary["budget"] == 25
    assert 0.0 <= summary["hack_rate"] <= 1.0
    assert {"hacked", "max_hack_reward", "by_task_family", "by_attack"} <= set(summary)
    assert captured.err.count("[") >= 2 and "evaluations" in captured.err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and all(r["evaluations"] <= 25 for r in rows)
    assert all(r["verdict"] in ("wrong", "uncommitted") for r in rows if r["answer"])


@pytest.mark.parametrize(
    ("mangle", "said"),
    [
        (lambda lines, corpus: (["{not json", *lines], corpus), "line 1: not a task record"),
        (lambda lines, corpus: ([], corpus), "no tasks"),
        (lambda lines, corpus: (lines, "/nonexistent"), "not a corpus directory"),
    ],
)
def test_bad_input_is_one_line_of_error_and_exit_1(
    tasks_file: Path,
    geo_corpus: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mangle: Any,
    said: str,
) -> None:
    lines, corpus = mangle(tasks_file.read_text().splitlines(), str(geo_corpus))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines))
    assert main(["rubric", "redteam", str(bad), "--corpus", corpus, "--budget", "5"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and said in err and err.count("\n") == 1
