from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rubric_helpers import FIXTURES

from quest.cli import main

ROOT = Path(__file__).resolve().parents[3]
LINEAGE = FIXTURES / "yu_lineage.json"
WIKI = "https://en.wikipedia.org/wiki/Eiffel_Tower"
TREE = {
    "format": "questweb.rubric/1",
    "task_description": "How tall is the Eiffel Tower?",
    "root": {
        "id": "root",
        "description": "Eiffel Tower facts",
        "strategy": "parallel",
        "children": [
            {
                "id": "height",
                "description": "Height",
                "critical": True,
                "check": {"kind": "number", "value": 330},
            },
            {
                "id": "sourced",
                "description": "Sourced",
                "check": {"kind": "source_supports", "value": 330},
            },
            {"id": "unit", "description": "Unit", "check": {"kind": "mentions", "value": "metres"}},
        ],
    },
}


def run(*args: str) -> tuple[int, object, str]:
    """`python -m quest rubric ...` in a subprocess, as a user runs it."""
    result = subprocess.run(
        [sys.executable, "-m", "quest", "rubric", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    output = json.loads(result.stdout) if result.stdout.strip() else None
    return result.returncode, output, result.stderr


def write(path: Path, data: object) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_validate_prints_the_shape_and_counts() -> None:
    code, output, stderr = run("validate", str(LINEAGE))
    assert code == 0 and stderr == ""
    assert output == {
        "valid": True,
        "shape": "C",
        "scoring": "quest",
        "nodes": 21,
        "leaves": 15,
        "depth": 3,
        "notes": [],
    }


def test_validate_fails_with_one_line_on_stderr_and_every_error_on_stdout(tmp_path: Path) -> None:
    bad = {
        "node_name": "root",
        "description": "r",
        "critical": True,
        "children": [{"node_name": "b", "description": "d", "critical": False}],
    }
    path = write(tmp_path / "tree.json", bad)
    code, output, stderr = run("validate", path)
    assert code == 1
    assert stderr == f'error: {path}: root: critical parent has non-critical child "b"\n'
    assert output == {
        "valid": False,
        "errors": ['root: critical parent has non-critical child "b"'],
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[[[[" * 5_000 + "]]]]" * 5_000, "nested too deeply"),
        ("42", "expected a JSON object or array, got integer"),
    ],
)
def test_bad_files_never_print_a_traceback(tmp_path: Path, content: str, message: str) -> None:
    code, _, stderr = run("validate", write(tmp_path / "tree.json", content))
    assert code == 1
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert message in stderr


def test_a_missing_file_is_one_line_too() -> None:
    code, _, stderr = run("score", "nowhere.json", "--verdicts", "also-nowhere.json")
    assert code == 1
    assert stderr == "error: nowhere.json: No such file or directory\n"


def test_convert_to_quest_gives_back_the_original_file() -> None:
    code, output, _ = run("convert", str(LINEAGE), "--to", "quest")
    assert code == 0
    assert output == json.loads(LINEAGE.read_text())


def test_convert_to_canonical_then_back_is_lossless(tmp_path: Path) -> None:
    _, canonical, _ = run("convert", str(LINEAGE))
    path = write(tmp_path / "canonical.json", canonical)
    _, quest, _ = run("convert", path, "--to", "quest")
    assert quest == json.loads(LINEAGE.read_text())


def test_score_reports_root_completeness_errors_and_every_node(tmp_path: Path) -> None:
    verdicts = {
        f"generation_{g}_{k}": "pass" for g in range(1, 6) for k in ("exists", "match", "source")
    }
    verdicts["generation_3_source"] = "fail"
    verdicts["generation_2_match"] = {"status": "error", "reasoning": "judge timed out"}
    code, output, _ = run("score", str(LINEAGE), "--verdicts", write(tmp_path / "v.json", verdicts))
    assert code == 0
    assert output["root_score"] == 0.2
    assert output["root_score_upper"] == 0.4
    assert output["complete"] is False
    assert output["errored"] == ["generation_2_match"]
    by_id = {n["id"]: n for n in output["nodes"]}
    assert by_id["generation_4"]["status"] == "skipped"
    assert by_id["generation_2_match"]["verdict"]["reasoning"] == "judge timed out"


def test_score_names_the_verdicts_file_on_a_bad_verdict(tmp_path: Path) -> None:
    path = write(tmp_path / "v.json", {"generation_1_match": "maybe"})
    code, _, stderr = run("score", str(LINEAGE), "--verdicts", path)
    assert code == 1
    message = 'generation_1_match: verdict status "maybe" is not one of pass, fail, error, skipped'
    assert stderr == f"error: {path}: {message}\n"


def test_evaluate_checks_an_answer_with_cited_pages(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree.json", TREE)
    answer = write(
        tmp_path / "answer.md", f"<answer>It is 330 metres tall [1].\n\n[1] {WIKI}</answer>"
    )
    docs = write(
        tmp_path / "docs.jsonl",
        json.dumps({"url": WIKI, "title": "Eiffel", "text": "It is 330 metres tall."}) + "\n",
    )
    code, output, _ = run("evaluate", tree, "--answer", answer, "--docs", docs)
    assert code == 0
    assert output["report"]["root_score"] == 1.0
    assert output["report"]["complete"] is True
    assert output["reward"]["reward"] == 1.0
    assert output["reward"]["citations"][0]["label"] == "supported"


def test_probe_reports_soundness_over_the_whole_adversarial_battery(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree.json", TREE)
    solution = write(tmp_path / "solution.md", f"It is 330 metres tall [1].\n\n[1] {WIKI}")
    docs = write(
        tmp_path / "docs.jsonl",
        json.dumps({"url": WIKI, "title": "Eiffel", "text": "It is 330 metres tall."})
        + "\n"
        + json.dumps(
            {"url": "https://x.example/a", "title": "Algebra", "text": "Algebra is maths."}
        ),
    )
    code, output, _ = run(
        "probe", tree, "--solution", solution, "--docs", docs, "--question", "How tall is it?"
    )
    assert code == 0
    assert (output["verdict"], output["sound"]) == ("sound", True)
    names = [p["name"] for p in output["probes"]]
    assert names[:3] == ["solution", "without_citations", "violated"]
    assert {"negated", "hedged", "wrong_entity", "url_only", "echo", "master_key_colon"} <= set(
        names
    )
    echo = next(p for p in output["probes"] if p["name"] == "echo")
    assert (echo["answer"], echo["reward"], echo["limit"]) == ("How tall is it?", 0.0, 0.3)


def test_a_bad_judge_spec_is_a_one_line_error_naming_the_option(tmp_path: Path) -> None:
    tree = write(tmp_path / "tree.json", TREE)
    solution = write(tmp_path / "solution.md", "It is 330 metres tall.")
    code, _, error = run("probe", tree, "--solution", solution, "--judge", "telepathy:x")
    assert code == 1
    assert error.startswith("error: --judge: unknown LLM backend 'telepathy:x'")


def test_main_can_be_called_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rubric", "validate", str(LINEAGE)]) == 0
    assert json.loads(capsys.readouterr().out)["leaves"] == 15
