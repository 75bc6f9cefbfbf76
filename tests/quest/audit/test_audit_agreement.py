from __future__ import annotations

import pytest

from quest.audit import (
    Submission,
    cohen_kappa,
    combine_decisions,
    krippendorff_alpha,
    node_consensus,
    percent_agreement,
    wilson_interval,
)


def test_cohen_kappa_matches_the_hand_computed_two_by_two_table() -> None:
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7, p_e = 0.5*0.6 + 0.5*0.4 = 0.5.
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_cohen_kappa_with_three_verdicts_matches_hand_computation() -> None:
    # Rater A: c c c w w u ; rater B: c c w w u u. p_o = 4/6.
    # p_e = (3*2 + 2*2 + 1*2) / 36 = 12/36, so kappa = (4/6 - 1/3) / (2/3) = 0.5.
    a = ["correct"] * 3 + ["wrong"] * 2 + ["unverifiable"]
    b = ["correct"] * 2 + ["wrong"] * 2 + ["unverifiable"] * 2
    assert cohen_kappa(zip(a, b, strict=True)) == pytest.approx(0.5)


def test_kappa_is_undefined_rather_than_perfect_when_everyone_said_correct_throughout() -> None:
    assert cohen_kappa([("correct", "correct")] * 5) is None
    assert cohen_kappa([]) is None


def test_alpha_matches_krippendorffs_published_example_with_missing_labels() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 coders, 12 units,
    # nominal alpha = 0.743.
    coders = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = list(zip(*coders, strict=True))
    assert krippendorff_alpha(units) == pytest.approx(0.743, abs=5e-4)


def test_alpha_for_two_raters_matches_hand_computation() -> None:
    # Units (c,c) (c,w) (w,w) (w,w): o_cc = 2, o_cw = o_wc = 1, o_ww = 4; n_c = 3, n_w = 5.
    # alpha = 1 - (n - 1) * 2 / (n^2 - 9 - 25) = 1 - 7 * 2 / 30 = 0.5333...
    units = [("c", "c"), ("c", "w"), ("w", "w"), ("w", "w")]
    assert krippendorff_alpha(units) == pytest.approx(1 - 14 / 30)


def test_alpha_ignores_units_rated_once_and_is_undefined_without_variation() -> None:
    assert krippendorff_alpha([("c", None), (None, "w")]) is None
    assert krippendorff_alpha([("c", "c"), ("c", "c", "c")]) is None
    assert krippendorff_alpha([("c", "c"), ("w", "w"), ("x", None)]) == pytest.approx(1.0)


def test_percent_agreement_counts_units_where_all_raters_agree() -> None:
    units = [("c", "c"), ("c", "w"), ("w", "w", "w"), ("w", None)]
    assert percent_agreement(units) == pytest.approx(2 / 3)
    assert percent_agreement([("c", None)]) is None


def test_the_papers_six_wrong_trees_in_fifty_give_a_wide_wilson_interval() -> None:
    interval = wilson_interval(6, 50)
    assert interval.rate == pytest.approx(0.12)
    assert (interval.low, interval.high) == (
        pytest.approx(0.0562, abs=1e-4),
        pytest.approx(0.2380, abs=1e-4),
    )


def test_wilson_interval_stays_inside_zero_and_one_at_the_extremes() -> None:
    none_wrong = wilson_interval(0, 12)
    assert none_wrong.low == 0.0 and none_wrong.high == pytest.approx(0.2425, abs=1e-4)
    all_wrong = wilson_interval(12, 12)
    assert all_wrong.high == 1.0 and all_wrong.low == pytest.approx(0.7575, abs=1e-4)
    unknown = wilson_interval(0, 0)
    assert (unknown.rate, unknown.low, unknown.high) == (None, 0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_a_task_stays_open_until_every_annotator_has_submitted() -> None:
    outcome = combine_decisions([Submission("accept", 1)], needed=2, start_version=1)
    assert outcome.state == "open"


def test_unanimous_accepts_of_the_start_version_accept_it() -> None:
    subs = [Submission("accept", 1), Submission("accept", 1)]
    outcome = combine_decisions(subs, needed=2, start_version=1)
    assert (outcome.state, outcome.decision, outcome.version) == ("agreed", "accept", 1)


def test_accepting_the_same_fixed_version_is_a_fix_and_accept_of_that_version() -> None:
    subs = [Submission("fix_accept", 3), Submission("accept", 3)]
    outcome = combine_decisions(subs, needed=2, start_version=1)
    assert (outcome.state, outcome.decision, outcome.version) == ("agreed", "fix_accept", 3)


def test_unanimous_rejects_reject_and_any_mix_goes_to_a_reviewer() -> None:
    rejected = combine_decisions([Submission("reject", 1)] * 3, needed=3, start_version=1)
    assert (rejected.state, rejected.decision) == ("agreed", "reject")
    mixed = combine_decisions(
        [Submission("reject", 1), Submission("accept", 1)], needed=2, start_version=1
    )
    assert mixed.state == "disputed" and mixed.decision is None
    versions = combine_decisions(
        [Submission("accept", 1), Submission("fix_accept", 2)], needed=2, start_version=1
    )
    assert versions.state == "disputed"


def test_node_consensus_is_the_shared_label_or_nothing() -> None:
    assert node_consensus(["wrong", "wrong"]) == "wrong"
    assert node_consensus(["wrong", "correct"]) is None
    assert node_consensus([]) is None


def test_labels_need_a_known_node_a_known_verdict_and_a_sensible_error_type() -> None:
    from quest.audit.labels import NodeLabel, parse_labels

    nodes = ["root", "a", "b"]
    labels = parse_labels(
        {"root": "correct", "a": {"verdict": "wrong", "error_type": "duplicate", "comment": " x "}},
        nodes=nodes,
        complete=False,
    )
    assert labels["a"] == NodeLabel("wrong", "duplicate", "x")
    with pytest.raises(ValueError, match="1 node\\(s\\) have no verdict yet: b"):
        parse_labels({"root": "correct", "a": "wrong"}, nodes=nodes, complete=True)
    with pytest.raises(ValueError, match="no node 'zzz'"):
        parse_labels({"zzz": "correct"}, nodes=nodes, complete=False)
    with pytest.raises(ValueError, match="verdict must be one of"):
        parse_labels({"a": "maybe"}, nodes=nodes, complete=False)
    with pytest.raises(ValueError, match="a correct node has no error type"):
        parse_labels(
            {"a": {"verdict": "correct", "error_type": "other"}}, nodes=nodes, complete=False
        )
