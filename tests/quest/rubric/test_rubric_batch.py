"""The numpy batch scorer gives exactly what CompiledTree.score gives, tree by tree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rubric_helpers import FIXTURES, leaf, node, tree

from quest.rubric import (
    Check,
    CompiledTree,
    LeafVerdict,
    Node,
    RubricError,
    RubricTree,
    compile_tree,
    load_tree_file,
)
from quest.rubric.batch import BatchScores, compile_forest, score_group
from quest.rubric.model import STRATEGIES

STATUSES = ("pass", "fail", "error", "skipped", None)
Verdicts = Mapping[str, "str | LeafVerdict"]


@st.composite
def rubric_trees(draw: st.DrawFn) -> RubricTree:
    scoring = draw(st.sampled_from(["quest", "weighted", "points"]))
    counter = iter(range(10_000))
    if scoring == "points":
        points = draw(st.lists(st.integers(-10, 10).filter(bool), min_size=1, max_size=12))
        if max(points) < 0:
            points[0] = -points[0]
        criteria = tuple(
            Node(f"c{n}", f"criterion {n}", weight=p, check=Check.judge("c"))
            for n, p in enumerate(points)
        )
        return RubricTree(Node("root", "root", children=criteria), scoring="points")

    def build(depth: int, critical: bool) -> Node:
        node_id = f"n{next(counter)}"
        weight = draw(st.none() | st.integers(0, 5)) if scoring == "weighted" else None
        if depth >= 5 or draw(st.integers(0, 2)) == 0:
            return Node(node_id, "leaf", critical=critical, weight=weight, check=Check.judge("c"))
        kids = [
            build(depth + 1, critical or draw(st.booleans()))
            for _ in range(draw(st.integers(1, 6)))
        ]
        if scoring == "weighted" and all(k.weight == 0 for k in kids if not k.critical):
            kids = [k if k.critical else Node(**{**k.__dict__, "weight": 1}) for k in kids]
        strategy = draw(st.sampled_from(STRATEGIES))
        return Node(
            node_id,
            "node",
            critical=critical,
            strategy=strategy,
            weight=weight,
            children=tuple(kids),
        )

    return RubricTree(build(1, False), scoring=scoring)  # type: ignore[arg-type]


@st.composite
def verdicts_for(draw: st.DrawFn, compiled: CompiledTree) -> dict[str, str | LeafVerdict]:
    verdicts: dict[str, str | LeafVerdict] = {}
    for leaf_id in compiled.leaf_ids:
        status = draw(st.sampled_from(STATUSES))
        if status is not None:
            wrapped = draw(st.integers(0, 9)) == 0  # now and then a full LeafVerdict
            verdicts[leaf_id] = LeafVerdict(status) if wrapped else status  # type: ignore[arg-type]
    return verdicts


@st.composite
def forests(draw: st.DrawFn) -> tuple[list[CompiledTree], list[dict[str, str | LeafVerdict]]]:
    distinct = [compile_tree(t) for t in draw(st.lists(rubric_trees(), min_size=1, max_size=4))]
    picks = draw(st.lists(st.sampled_from(distinct), min_size=1, max_size=8))  # repeats too
    return picks, [draw(verdicts_for(compiled)) for compiled in picks]


def assert_same_as_compiled_scorer(
    trees: Sequence[CompiledTree], verdict_sets: Sequence[Verdicts], batch: BatchScores
) -> None:
    assert len(batch) == len(trees)
    for number, (compiled, verdicts) in enumerate(zip(trees, verdict_sets, strict=True)):
        report = compiled.score(verdicts)
        got = (
            float(batch.root_score[number]),
            float(batch.root_score_lower[number]),
            float(batch.root_score_upper[number]),
            bool(batch.complete[number]),
            batch.root_statuses()[number],
        )
        expected = (
            report.root_score,
            report.root_score_lower,
            report.root_score_upper,
            report.complete,
            report.root_status,
        )
        assert got == expected  # exact: the same float operations in the same order
        assert batch.node_scores(number) == [report.score_of(i) for i in compiled.ids]
        assert batch.node_statuses(number) == [report.status_of(i) for i in compiled.ids]


@settings(max_examples=400, deadline=None)
@given(forests())
def test_batch_scores_equal_the_compiled_scorer_on_random_forests(
    case: tuple[list[CompiledTree], list[dict[str, str | LeafVerdict]]],
) -> None:
    trees, verdict_sets = case
    batch = compile_forest(trees).score(verdict_sets)
    assert_same_as_compiled_scorer(trees, verdict_sets, batch)


@settings(max_examples=150, deadline=None)
@given(rubric_trees().map(compile_tree).flatmap(lambda c: st.tuples(st.just(c), st.data())))
def test_a_grpo_group_scores_each_answer_like_the_compiled_scorer(
    case: tuple[CompiledTree, st.DataObject],
) -> None:
    compiled, data = case
    group = [data.draw(verdicts_for(compiled)) for _ in range(8)]
    assert_same_as_compiled_scorer([compiled] * 8, group, score_group(compiled, group))


PATENT = compile_tree(load_tree_file(FIXTURES / "ad_patent.json").tree)
LINEAGE = compile_tree(load_tree_file(FIXTURES / "yu_lineage.json").tree)


def all_pass(compiled: CompiledTree, **changes: str) -> dict[str, str]:
    return {**dict.fromkeys(compiled.leaf_ids, "pass"), **changes}


def test_the_quest_fixtures_score_as_worked_out_by_hand_in_one_batch() -> None:
    trees = [PATENT, PATENT, PATENT, LINEAGE, LINEAGE, PATENT]
    verdict_sets: list[dict[str, str]] = [
        all_pass(PATENT),
        all_pass(PATENT, patent_0_title_url_match="fail"),
        all_pass(PATENT, patent_0_pub_date_accurate="error"),
        all_pass(LINEAGE, generation_3_source="fail"),
        all_pass(LINEAGE, generation_5_exists="error"),
        {},
    ]
    batch = compile_forest(trees).score(verdict_sets)
    assert batch.root_score.tolist() == pytest.approx([1.0, 2 / 3, 2.875 / 3, 0.4, 0.8, 0.0])
    assert batch.root_score_upper.tolist() == pytest.approx([1.0, 2 / 3, 1.0, 0.4, 1.0, 1.0])
    assert batch.complete.tolist() == [True, True, False, True, False, False]
    statuses = ["passed", "partial", "partial", "partial", "partial", "unverified"]
    assert batch.root_statuses() == statuses
    assert batch.status_of(1, "patent_0_additional_info") == "skipped"
    assert batch.score_of(1, "patent_0_additional_info") == 0.0
    assert [batch.status_of(3, f"generation_{i}") for i in range(1, 6)] == [
        "passed",
        "passed",
        "failed",
        "skipped",
        "skipped",
    ]
    assert_same_as_compiled_scorer(trees, verdict_sets, batch)


def test_leaf_verdict_objects_are_read_like_plain_statuses() -> None:
    verdicts: dict[str, str | LeafVerdict] = {**all_pass(LINEAGE)}
    verdicts["generation_2_match"] = LeafVerdict("fail", reasoning="wrong person")
    batch = score_group(LINEAGE, [verdicts, all_pass(LINEAGE)])
    assert batch.root_score.tolist() == pytest.approx([0.2, 1.0])


def test_a_bad_verdict_set_is_named_in_the_error() -> None:
    forest = compile_forest([LINEAGE, LINEAGE, LINEAGE])
    good = all_pass(LINEAGE)
    with pytest.raises(RubricError, match=r"verdict set 1: .*not one of"):
        forest.score([good, {**good, "generation_1_match": "maybe"}, good])
    with pytest.raises(RubricError, match=r"verdict set 2: .*internal node"):
        forest.score([good, good, {**good, "generation_1": "pass"}])
    with pytest.raises(RubricError, match=r"verdict set 0: .*unknown node"):
        forest.score([{**good, "nope": "pass"}, good, good])
    with pytest.raises(RubricError, match=r"verdict set 0: "):
        forest.score([{**good, "generation_1_match": ["unhashable"]}, good, good])  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="2 verdict sets for 3 trees"):
        forest.score([good, good])


def test_a_one_leaf_tree_and_an_empty_forest_score() -> None:
    single = compile_tree(tree(leaf("only")))
    batch = compile_forest([single, single]).score([{"only": "pass"}, {"only": "error"}])
    assert batch.root_score.tolist() == [1.0, 0.0]
    assert batch.root_score_upper.tolist() == [1.0, 1.0]
    assert batch.root_statuses() == ["passed", "error"]
    assert len(compile_forest([]).score([])) == 0


def test_a_forest_mixes_scoring_modes() -> None:
    quest = compile_tree(tree(node("root", leaf("a"), leaf("b"), sequential=True)))
    weighted = compile_tree(
        tree(node("root", leaf("a", weight=3), leaf("b", weight=1)), scoring="weighted")
    )
    points = compile_tree(
        tree(node("root", leaf("a", weight=5), leaf("b", weight=-3)), scoring="points")
    )
    trees = [quest, weighted, points]
    verdict_sets = [{"a": "fail", "b": "pass"}, {"a": "pass", "b": "fail"}, {"a": "pass"}]
    batch = compile_forest(trees).score(verdict_sets)
    assert batch.root_score.tolist() == [0.0, 0.75, 1.0]
    assert batch.root_score_lower.tolist() == [0.0, 0.75, 0.4]
    assert batch.status_of(0, "b") == "skipped"
    assert_same_as_compiled_scorer(trees, verdict_sets, batch)
