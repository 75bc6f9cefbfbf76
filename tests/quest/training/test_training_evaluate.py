from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from training_helpers import (
    AUSTRALIA,
    TASKS,
    RecordingScriptedPolicy,
    RejectingJudgeStandIn,
    SlipsOnce,
)

from quest.agent import LLMCondenser, LLMPolicy, RuleCondenser, ScriptedPolicy
from quest.agent.budgets import Budgets
from quest.cli import main
from quest.corpus import CorpusStore
from quest.tools import Toolbox
from quest.training import (
    TaskScore,
    TrainingTask,
    bootstrap_ci,
    evaluate,
    paired_difference,
    policy_for,
    summarize,
    task_from_record,
)


@pytest.fixture(scope="module")
def tasks() -> dict[str, TrainingTask]:
    return {record["task_id"]: task_from_record(record) for record in TASKS}


@pytest.fixture(scope="module")
def store(corpus: Path) -> CorpusStore:
    return CorpusStore(corpus)


@pytest.fixture(scope="module")
def scripted_scores(
    tasks: dict[str, TrainingTask], toolbox: Toolbox, store: CorpusStore
) -> list[TaskScore]:
    return evaluate(tasks.values(), policy_factory=ScriptedPolicy, toolbox=toolbox, store=store)


def score(task_id: str, reward: float | None) -> TaskScore:
    return TaskScore(task_id, reward, reward, 0.0, 0.0, "answered", True, 3, 0, 2, 0.1, "")


def test_each_task_is_scored_by_its_tree_and_a_task_no_judge_can_decide_is_dropped(
    scripted_scores: list[TaskScore],
) -> None:
    by_id = {s.task_id: s for s in scripted_scores}
    assert by_id["australia"].reward == pytest.approx(0.75 + 0.25 * by_id["australia"].valid_rate)
    assert by_id["australia"].citation == pytest.approx(0.25 * by_id["australia"].valid_rate)
    assert by_id["australia-melbourne"].reward == 0.0
    assert by_id["judged"].reward is None and by_id["judged"].citation is None
    assert all(s.answered and s.status == "answered" for s in scripted_scores)
    assert "Canberra" in by_id["australia"].answer
    assert json.loads(json.dumps(by_id["france"].to_dict()))["task_id"] == "france"


def test_a_judge_decides_the_leaves_that_would_otherwise_drop_the_task(
    tasks: dict[str, TrainingTask], toolbox: Toolbox, store: CorpusStore
) -> None:
    judge = RejectingJudgeStandIn()
    [judged] = evaluate(
        [tasks["judged"]], policy_factory=ScriptedPolicy, toolbox=toolbox, store=store, judge=judge
    )
    assert (judged.reward, judged.base, judged.valid_rate) == (0.0, 0.0, 0.0)
    assert judge.calls > 0


def test_the_summary_leaves_dropped_tasks_out_of_the_mean_and_counts_them(
    scripted_scores: list[TaskScore],
) -> None:
    summary = summarize(scripted_scores)
    scored = [s.reward for s in scripted_scores if s.reward is not None]
    assert (summary["n"], summary["dropped"]) == (3, 1)
    assert summary["mean"] == pytest.approx(sum(scored) / 3)
    low, high = summary["ci95"]
    assert low <= summary["mean"] <= high
    assert summary["answer_rate"] == 1.0 and summary["valid_turn_rate"] == 1.0
    assert 0 < summary["citation_validity"] <= 1


def test_the_valid_turn_rate_counts_the_turns_the_protocol_refused(
    tasks: dict[str, TrainingTask], toolbox: Toolbox
) -> None:
    [slipped] = evaluate([tasks["australia"]], policy_factory=SlipsOnce, toolbox=toolbox)
    assert slipped.invalid_turns == 1 and slipped.answered
    summary = summarize([slipped])
    assert summary["valid_turn_rate"] == pytest.approx(1 - 1 / slipped.turns)


def test_the_policy_sees_the_question_and_nothing_of_the_tree(
    tasks: dict[str, TrainingTask], toolbox: Toolbox
) -> None:
    seen: set[str] = set()
    evaluate(
        [tasks["australia"]], policy_factory=lambda: RecordingScriptedPolicy(seen), toolbox=toolbox
    )
    assert AUSTRALIA in seen
    leaves = [leaf.description for leaf in tasks["australia"].tree.leaves()]
    assert not any(leaf in message for leaf in leaves for message in seen)


def test_a_stop_returns_the_tasks_finished_so_far(
    tasks: dict[str, TrainingTask], toolbox: Toolbox
) -> None:
    finished: list[int] = []
    scores = evaluate(
        tasks.values(),
        policy_factory=ScriptedPolicy,
        toolbox=toolbox,
        on_task=lambda index, _: finished.append(index),
        should_stop=lambda: bool(finished),
    )
    assert [s.task_id for s in scores] == ["australia"] and finished == [0]


def test_the_bootstrap_interval_holds_the_mean_and_narrows_as_tasks_are_added() -> None:
    few, many = [0.0, 1.0, 0.5, 0.25] * 3, [0.0, 1.0, 0.5, 0.25] * 30
    low, high = bootstrap_ci(few)
    assert low < sum(few) / len(few) < high
    wide, narrow = high - low, bootstrap_ci(many)[1] - bootstrap_ci(many)[0]
    assert narrow < wide / 2
    assert bootstrap_ci(few, seed=7) == bootstrap_ci(few, seed=7)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_a_summary_of_nothing_or_of_one_task_says_so() -> None:
    empty = summarize([])
    assert (empty["n"], empty["mean"], empty["ci95"], empty["answer_rate"]) == (0, None, None, None)
    one = summarize([score("a", 0.6)])
    assert (one["n"], one["ci95"], one["std"]) == (1, [0.6, 0.6], 0.0)
    dropped = summarize([score("a", None)])
    assert (dropped["n"], dropped["mean"], dropped["dropped"]) == (0, None, 1)


def test_the_paired_difference_favours_the_policy_that_researches(
    tasks: dict[str, TrainingTask],
    toolbox: Toolbox,
    store: CorpusStore,
    scripted_scores: list[TaskScore],
) -> None:
    # Without a step of research the scripted policy answers that it found nothing.
    hasty = evaluate(
        tasks.values(),
        policy_factory=lambda: ScriptedPolicy(max_steps=0),
        toolbox=toolbox,
        store=store,
    )
    better = paired_difference(scripted_scores, hasty)
    assert (better["n"], better["wins"], better["losses"], better["ties"]) == (3, 2, 0, 1)
    assert better["mean"] > 0 and better["ci95"][0] >= 0
    worse = paired_difference(hasty, scripted_scores)
    assert worse["mean"] == pytest.approx(-better["mean"]) and worse["losses"] == 2


def test_the_paired_difference_uses_only_tasks_both_policies_were_scored_on() -> None:
    a = [score("t1", 0.9), score("t2", None), score("t3", 0.5), score("t4", 0.2)]
    b = [score("t1", 0.4), score("t2", 0.3), score("t3", 0.5), score("t5", 0.0)]
    difference = paired_difference(a, b)
    assert (difference["n"], difference["wins"], difference["ties"]) == (2, 1, 1)
    assert difference["mean"] == pytest.approx(0.25)
    assert paired_difference(a[1:2], b)["ci95"] is None


def test_policy_for_builds_fresh_policies_over_one_shared_client() -> None:
    scripted, rules = policy_for("scripted", budgets=Budgets.rl())
    assert isinstance(scripted(), ScriptedPolicy) and scripted() is not scripted()
    assert isinstance(rules(), RuleCondenser)
    # SmolLM2 loads on its first request, so building the policy costs nothing here.
    llm, condenser = policy_for("transformers:smollm2", budgets=Budgets.rl(), temperature=0.7)
    first, second = llm(), llm()
    assert isinstance(first, LLMPolicy) and isinstance(second, LLMPolicy)
    assert first.client is second.client
    assert (first.temperature, first.max_turn_tokens) == (0.7, Budgets.rl().max_turn_tokens)
    assert isinstance(condenser(), LLMCondenser)


@pytest.mark.parametrize("spec", ["nonsense", "transformers:/no/such/model", "http://x"])
def test_policy_for_names_a_bad_spec(spec: str) -> None:
    with pytest.raises(ValueError, match="policy '"):
        policy_for(spec, budgets=Budgets.rl())


def run_eval(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    code = main(["eval", *argv])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if code == 0 else None, captured.err


def test_eval_reports_each_model_and_the_difference_between_them(
    tasks_file: Path, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    argv = [str(tasks_file), "--policy", "scripted", "--base", "scripted", "--corpus", str(corpus)]
    code, summary, err = run_eval([*argv, "--out", str(out), "--limit", "2"], capsys)
    assert code == 0
    assert summary["models"]["policy"]["n"] == 2 and "scores" not in summary["models"]["base"]
    assert summary["difference"]["ties"] == 2
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [s["task_id"] for s in report["models"]["base"]["scores"]] == ["australia", "france"]
    assert report["difference"] == summary["difference"]
    assert "eval base: task 2/2 france: reward" in err


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["missing.jsonl", "--policy", "scripted"], "missing.jsonl"),
        (["{tasks}", "--policy", "nonsense"], "policy 'nonsense'"),
        (["{tasks}", "--policy", "scripted", "--base", "vllm:"], "policy 'vllm:'"),
        (["{tasks}", "--policy", "scripted", "--limit", "0"], "--limit"),
        (["{tasks}", "--policy", "scripted", "--out", "/no/such/dir/r.json"], "--out"),
    ],
)
def test_eval_refuses_bad_input_with_one_line(
    argv: list[str],
    problem: str,
    tasks_file: Path,
    corpus: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    filled = [arg.replace("{tasks}", str(tasks_file)) for arg in argv]
    code, _, err = run_eval([*filled, "--corpus", str(corpus)], capsys)
    assert code == 1
    assert err.startswith("error: ") and problem in err and err.count("\n") == 1
