from __future__ import annotations

from rubric_helpers import FIXTURES, leaf, node, tree
from rubric_judges import ScriptedJudgeStandIn, verdict_json

from quest.rubric import (
    Check,
    Preconditions,
    compile_tree,
    evaluate,
    evaluation_order,
    load_tree_file,
    should_skip,
)

LINEAGE = compile_tree(load_tree_file(FIXTURES / "yu_lineage.json").tree)
PATENT = compile_tree(load_tree_file(FIXTURES / "ad_patent.json").tree)


def test_a_leaf_under_a_failed_critical_sibling_is_skipped() -> None:
    assert should_skip(PATENT, "patent_0_autonomous_driving", {"patent_0_title_url_match": "fail"})
    assert not should_skip(
        PATENT, "patent_1_autonomous_driving", {"patent_0_title_url_match": "fail"}
    )


def test_a_leaf_after_a_failed_step_of_a_sequential_parent_is_skipped() -> None:
    verdicts = {"generation_2_match": "fail"}
    assert should_skip(LINEAGE, "generation_4_exists", verdicts)
    assert not should_skip(LINEAGE, "generation_1_exists", verdicts)


def test_a_skipped_leaf_blocks_like_a_failed_one() -> None:
    assert should_skip(LINEAGE, "generation_5_source", {"generation_3_exists": "skipped"})


def test_an_errored_or_passed_leaf_blocks_nothing() -> None:
    verdicts = {"patent_0_required_info": "error", "generation_2_match": "pass"}
    assert not should_skip(PATENT, "patent_0_inventors_provided", verdicts)
    assert not should_skip(LINEAGE, "generation_3_exists", {"generation_2_match": "error"})


def test_the_tracker_answers_as_verdicts_arrive() -> None:
    tracker = Preconditions(LINEAGE)
    assert tracker.blocker("generation_3_exists") is None
    tracker.record("generation_1_source", "fail")
    assert (
        tracker.blocker("generation_3_exists")
        == 'an earlier step of sequential "root" already failed'
    )
    assert (
        tracker.blocker("generation_1_exists")
        == 'a critical sibling under "generation_1" already failed'
    )


def test_evaluation_order_puts_critical_children_first_under_parallel_nodes() -> None:
    t = compile_tree(
        tree(
            node(
                "root",
                leaf("a"),
                leaf("c", critical=True),
                node("s", leaf("s1"), leaf("s2"), sequential=True),
            )
        )
    )
    assert evaluation_order(t) == ["c", "a", "s1", "s2"]


def test_evaluate_never_judges_a_leaf_whose_outcome_no_longer_matters() -> None:
    t = tree(
        node(
            "root",
            leaf("a", check=Check.judge("first")),
            leaf("gate", critical=True, check=Check("mentions", {"value": "Paris"})),
            leaf("b", check=Check.judge("second")),
        )
    )
    judge = ScriptedJudgeStandIn([])
    report = evaluate(t, "Lyon only.", judge=judge)
    assert judge.calls == 0
    assert [report.verdict_of(x).status for x in ("gate", "a", "b")] == [
        "fail",
        "skipped",
        "skipped",
    ]
    assert report.verdict_of("a").reasoning.startswith("precondition: a critical sibling")
    assert report.root_score == 0.0 and report.complete


def test_evaluate_stops_judging_a_sequence_at_its_first_failure() -> None:
    t = tree(
        node(
            "root",
            *(leaf(f"step{i}", check=Check.judge(f"step {i}")) for i in range(4)),
            sequential=True,
        )
    )
    passed = verdict_json(True, answer_quote="Step one is done.")
    judge = ScriptedJudgeStandIn([passed] * 2 + [verdict_json(False)] * 2)
    report = evaluate(t, "Step one is done.", judge=judge)
    assert judge.calls == 4
    assert [report.status_of(f"step{i}") for i in range(4)] == [
        "passed",
        "failed",
        "skipped",
        "skipped",
    ]
    assert report.root_score == 0.25
