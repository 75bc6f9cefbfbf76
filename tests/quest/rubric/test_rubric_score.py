from __future__ import annotations

import pytest
from rubric_helpers import FIXTURES, leaf, node, tree

from quest.rubric import (
    Check,
    Evidence,
    LeafVerdict,
    Node,
    RubricError,
    RubricTree,
    compile_tree,
    load_tree_file,
    score_tree,
)

PATENT = load_tree_file(FIXTURES / "ad_patent.json").tree
LINEAGE = load_tree_file(FIXTURES / "yu_lineage.json").tree


def all_pass(tree_: RubricTree, **changes: str) -> dict[str, str]:
    verdicts = {leaf_.id: "pass" for leaf_ in tree_.leaves()}
    verdicts.update(changes)
    return verdicts


# -- golden: the two real QUEST trees, scores worked out by hand ------------------------------
#
# ad_patent: root = parallel mean of patent_0..2 (non-critical, sequential). Each patent is
# [required_info (critical leaf), constraints (parallel of 3 critical leaves), additional_info
# (parallel mean of 4 *_main nodes, each a parallel of 2 critical leaves)].


def test_golden_patent_tree_scores_1_when_everything_passes() -> None:
    report = score_tree(PATENT, all_pass(PATENT))
    assert (report.root_score, report.root_status, report.complete) == (1.0, "passed", True)


def test_golden_patent_tree_zeroes_a_patent_whose_constraints_fail() -> None:
    # patent_0: required_info passes, constraints fails its critical gate (0), so the
    # sequential short-circuit skips additional_info (0); the mean over the two non-critical
    # children is 0. Root = (0 + 1 + 1) / 3.
    report = score_tree(PATENT, all_pass(PATENT, patent_0_title_url_match="fail"))
    assert report.root_score == pytest.approx(2 / 3)
    assert report.status_of("patent_0") == "failed"
    assert report.status_of("patent_0_constraints") == "failed"
    assert (
        report.score_of("patent_0_additional_info"),
        report.status_of("patent_0_additional_info"),
    ) == (
        0.0,
        "skipped",
    )
    assert report.status_of("root") == "partial"


def test_golden_patent_tree_averages_additional_information() -> None:
    # patent_1: inventors_main fails its gate, so additional_info = (0 + 1 + 1 + 1) / 4 = 0.75
    # and patent_1 = (constraints 1 + additional 0.75) / 2 = 0.875; patent_2 likewise through
    # filing_date_provided. Root = (1 + 0.875 + 0.875) / 3 = 0.91666...
    verdicts = all_pass(
        PATENT, patent_1_inventors_accurate="fail", patent_2_filing_date_provided="fail"
    )
    report = score_tree(PATENT, verdicts)
    assert report.score_of("patent_1_additional_info") == 0.75
    assert report.score_of("patent_1") == 0.875
    assert report.root_score == pytest.approx(2.75 / 3)


def test_golden_patent_tree_zeroes_a_patent_whose_first_critical_step_fails() -> None:
    report = score_tree(PATENT, all_pass(PATENT, patent_2_required_info="fail"))
    assert report.root_score == pytest.approx(2 / 3)
    assert report.status_of("patent_2_constraints") == "skipped"
    assert report.status_of("patent_2_additional_info") == "skipped"
    assert report.status_of("patent_2") == "failed"


def test_golden_patent_tree_brackets_a_judge_error_instead_of_failing_it() -> None:
    # pub_date_main gates on the errored leaf (0), additional_info = 0.75, patent_0 = 0.875,
    # root = (0.875 + 1 + 1) / 3; had the leaf passed, the root would be 1.
    report = score_tree(PATENT, all_pass(PATENT, patent_0_pub_date_accurate="error"))
    assert report.root_score == pytest.approx(2.875 / 3)
    assert report.root_score_lower == report.root_score
    assert report.root_score_upper == 1.0
    assert report.complete is False
    assert report.errored == ("patent_0_pub_date_accurate",)
    assert report.status_of("patent_0_pub_date_main") == "error"
    assert report.status_of("patent_0_pub_date_accurate") == "error"


def test_golden_patent_tree_with_no_verdicts_is_unverified_and_scores_0() -> None:
    report = score_tree(PATENT, {})
    assert (report.root_score, report.root_score_upper) == (0.0, 1.0)
    assert report.root_status == "unverified"
    assert len(report.unverified) == 36


# yu_lineage: root = sequential over generation_1..5 (non-critical), each a parallel of three
# critical leaves (exists, match, source).


def test_golden_lineage_tree_stops_counting_after_the_first_wrong_generation() -> None:
    # generation_3 fails; 4 and 5 are skipped: root = (1 + 1 + 0 + 0 + 0) / 5.
    report = score_tree(LINEAGE, all_pass(LINEAGE, generation_3_source="fail"))
    assert report.root_score == pytest.approx(0.4)
    assert [report.status_of(f"generation_{i}") for i in range(1, 6)] == [
        "passed",
        "passed",
        "failed",
        "skipped",
        "skipped",
    ]


def test_golden_lineage_tree_scores_0_when_the_first_generation_is_wrong() -> None:
    report = score_tree(LINEAGE, all_pass(LINEAGE, generation_1_match="fail"))
    assert (report.root_score, report.root_status) == (0.0, "failed")


def test_golden_lineage_tree_brackets_an_error_in_the_last_generation() -> None:
    report = score_tree(LINEAGE, all_pass(LINEAGE, generation_5_exists="error"))
    assert (report.root_score, report.root_score_upper) == (pytest.approx(0.8), 1.0)


# -- the rules one by one ----------------------------------------------------------------------


def test_critical_gate_zeroes_the_parent() -> None:
    t = tree(node("root", leaf("c", critical=True), leaf("a"), leaf("b")))
    assert score_tree(t, {"c": "fail", "a": "pass", "b": "pass"}).root_score == 0.0


def test_all_critical_children_passing_scores_1() -> None:
    t = tree(node("root", leaf("c1", critical=True), leaf("c2", critical=True)))
    assert score_tree(t, {"c1": "pass", "c2": "pass"}).root_score == 1.0


def test_passed_critical_children_are_left_out_of_the_mean() -> None:
    t = tree(node("root", leaf("c", critical=True), leaf("a"), leaf("b")))
    assert score_tree(t, {"c": "pass", "a": "pass", "b": "fail"}).root_score == 0.5


def test_sequential_short_circuit_zeroes_everything_after_the_first_miss() -> None:
    t = tree(
        node("root", leaf("a"), node("mid", leaf("m1"), leaf("m2")), leaf("c"), sequential=True)
    )
    report = score_tree(t, {"a": "pass", "m1": "pass", "m2": "fail", "c": "pass"})
    assert report.root_score == pytest.approx((1 + 0.5 + 0) / 3)
    assert (report.score_of("c"), report.status_of("c")) == (0.0, "skipped")
    assert report.status_of("mid") == "partial"


def test_a_skipped_critical_sibling_fails_the_gate() -> None:
    t = tree(node("root", leaf("a"), leaf("c", critical=True), sequential=True))
    assert score_tree(t, {"a": "fail", "c": "pass"}).root_score == 0.0


def test_statuses_follow_the_spec() -> None:
    t = tree(
        node(
            "root", node("x", leaf("x1"), leaf("x2")), node("y", leaf("y1")), node("z", leaf("z1"))
        )
    )
    report = score_tree(t, {"x1": "pass", "x2": "fail", "y1": "skipped", "z1": "fail"})
    assert [report.status_of(n) for n in ("x", "y", "z", "root")] == [
        "partial",
        "skipped",
        "failed",
        "partial",
    ]


def test_an_unverified_leaf_scores_0_and_makes_the_report_incomplete() -> None:
    t = tree(node("root", leaf("a"), leaf("b")))
    report = score_tree(t, {"a": "pass"})
    assert (report.root_score, report.root_score_upper, report.complete) == (0.5, 1.0, False)
    assert report.unverified == ("b",)
    assert report.status_of("b") == "unverified"


def test_a_zero_node_reports_failure_before_error_before_unverified_before_skip() -> None:
    t = tree(node("root", leaf("a"), leaf("b"), leaf("c"), leaf("d")))
    assert score_tree(t, {"a": "skipped", "b": "error", "c": "fail"}).root_status == "failed"
    assert score_tree(t, {"a": "skipped", "b": "error"}).root_status == "error"
    assert (
        score_tree(t, {"a": "skipped", "b": "skipped", "c": "skipped"}).root_status == "unverified"
    )
    verdicts = {x: "skipped" for x in "abcd"}
    assert score_tree(t, verdicts).root_status == "skipped"


def test_weighted_scoring_takes_a_weighted_mean_and_keeps_the_gate() -> None:
    t = tree(
        node("root", leaf("a", weight=3), leaf("b", weight=1), leaf("c", critical=True)),
        scoring="weighted",
    )
    assert score_tree(t, {"a": "pass", "b": "fail", "c": "pass"}).root_score == 0.75
    assert score_tree(t, {"a": "pass", "b": "pass", "c": "fail"}).root_score == 0.0


def test_points_scoring_divides_met_points_by_positive_points_and_clips() -> None:
    t = tree(
        node("root", leaf("good", weight=6), leaf("ok", weight=4), leaf("bad", weight=-5)),
        scoring="points",
    )
    assert score_tree(t, {"good": "pass", "ok": "fail", "bad": "fail"}).root_score == 0.6
    assert score_tree(t, {"good": "pass", "ok": "pass", "bad": "pass"}).root_score == 0.5
    assert score_tree(t, {"good": "fail", "ok": "fail", "bad": "pass"}).root_score == 0.0


def test_points_bracket_counts_an_undecided_negative_criterion_as_possibly_met() -> None:
    t = tree(node("root", leaf("good", weight=10), leaf("bad", weight=-5)), scoring="points")
    report = score_tree(t, {"good": "pass", "bad": "error"})
    assert (report.root_score_lower, report.root_score, report.root_score_upper) == (0.5, 1.0, 1.0)


def test_a_one_leaf_tree_scores_its_leaf() -> None:
    t = tree(leaf("only"))
    assert score_tree(t, {"only": "pass"}).root_score == 1.0
    assert score_tree(t, {}).root_score_upper == 1.0
    with pytest.raises(RubricError):
        score_tree(t, {"only": "maybe"})


# -- verdict input -----------------------------------------------------------------------------


def test_leaf_verdict_objects_are_accepted_and_kept_in_the_report() -> None:
    t = tree(node("root", leaf("a"), leaf("b")))
    verdict = LeafVerdict("pass", Evidence("https://x.org", "quote"), "because", "judge-x")
    report = score_tree(t, {"a": verdict, "b": "fail"})
    assert report.root_score == 0.5
    assert report.verdict_of("a") == verdict
    assert report.to_dict()["nodes"][1]["verdict"]["evidence"] == {
        "url": "https://x.org",
        "quote": "quote",
    }


@pytest.mark.parametrize(
    ("verdicts", "message"),
    [
        ({"nope": "pass"}, 'verdict given for an unknown node "nope"'),
        ({"root": "pass"}, 'verdict given for an internal node "root"'),
        ({"a": "PASS"}, 'a: verdict status "PASS" is not one of pass, fail, error, skipped'),
        ({"a": 1}, "a: verdict status integer is not one of"),
        ({"a": ["pass"]}, "a: verdict status array is not one of"),
        ({"a": None}, "a: verdict status null is not one of"),
    ],
)
def test_bad_verdicts_are_refused_with_the_leaf_named(verdicts: dict, message: str) -> None:
    t = tree(node("root", leaf("a"), leaf("b")))
    with pytest.raises(RubricError) as caught:
        score_tree(t, verdicts)
    assert caught.value.errors[0].startswith(message)


def test_a_compiled_tree_scores_many_verdict_sets_independently() -> None:
    compiled = compile_tree(LINEAGE)
    first = compiled.score(all_pass(LINEAGE))
    second = compiled.score(all_pass(LINEAGE, generation_2_exists="fail"))
    assert (first.root_score, second.root_score) == (1.0, pytest.approx(0.2))
    assert first.status_of("generation_3") == "passed"


def test_scoring_twice_gives_the_same_report() -> None:
    compiled = compile_tree(PATENT)
    verdicts = all_pass(PATENT, patent_1_inventors_accurate="fail", patent_2_required_info="error")
    assert compiled.score(verdicts).to_dict() == compiled.score(dict(verdicts)).to_dict()


def test_the_report_lists_nodes_in_file_order_with_paths() -> None:
    report = score_tree(LINEAGE, all_pass(LINEAGE))
    nodes = report.nodes()
    assert [n.path for n in nodes[:3]] == [
        "root",
        "root/generation_1",
        "root/generation_1/generation_1_exists",
    ]
    assert len(nodes) == 21


def test_compiling_an_invalid_tree_raises() -> None:
    bad = RubricTree(
        Node("root", "r", critical=True, children=(Node("a", "d", check=Check.judge("c")),))
    )
    with pytest.raises(RubricError, match="critical parent has non-critical child"):
        compile_tree(bad)
