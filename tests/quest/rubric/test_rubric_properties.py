"""Properties of scoring and import/export, checked on random trees."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from quest.rubric import Check, Node, RubricTree, compile_tree, export_quest, import_tree

STATUSES = ("pass", "fail", "error", "skipped", None)


@st.composite
def trees(draw: st.DrawFn, scoring: str = "quest") -> RubricTree:
    counter = iter(range(10_000))

    def build(depth: int, critical: bool) -> Node:
        node_id = f"n{next(counter)}"
        weight = draw(st.integers(0, 5)) if scoring == "weighted" else None
        if depth >= 4 or draw(st.booleans()):
            return Node(
                node_id, f"leaf {node_id}", critical=critical, weight=weight, check=Check.judge("c")
            )
        kids = [
            build(depth + 1, critical or draw(st.booleans()))
            for _ in range(draw(st.integers(1, 4)))
        ]
        if scoring == "weighted" and not any(k.weight for k in kids if not k.critical):
            kids = [k if k.critical else Node(**{**k.__dict__, "weight": 1}) for k in kids]
        strategy = draw(st.sampled_from(["parallel", "sequential"]))
        return Node(
            node_id,
            f"node {node_id}",
            critical=critical,
            strategy=strategy,
            weight=weight,
            children=tuple(kids),
        )

    return RubricTree(build(1, False), scoring=scoring)  # type: ignore[arg-type]


@st.composite
def scored(draw: st.DrawFn, scoring: str = "quest") -> tuple[RubricTree, dict[str, str]]:
    tree = draw(trees(scoring))
    verdicts = {}
    for leaf in tree.leaves():
        status = draw(st.sampled_from(STATUSES))
        if status is not None:
            verdicts[leaf.id] = status
    return tree, verdicts


def reference_score(node: Node, verdicts: Mapping[str, str], weighted: bool) -> float:
    """QUEST-SPEC §1.1 read literally, recursively: the oracle for the compiled scorer."""
    if node.is_leaf:
        return 1.0 if verdicts.get(node.id) == "pass" else 0.0
    scores = [reference_score(child, verdicts, weighted) for child in node.children]
    if node.strategy == "sequential":
        for index, score in enumerate(scores):
            if score < 1:
                scores[index + 1 :] = [0.0] * (len(scores) - index - 1)
                break
    pairs = list(zip(node.children, scores, strict=True))
    if any(child.critical and score < 1 for child, score in pairs):
        return 0.0
    rest = [(child, score) for child, score in pairs if not child.critical]
    if not rest:
        return 1.0
    if weighted:
        weights = [1 if c.weight is None else c.weight for c, _ in rest]
        return sum(w * s for w, (_, s) in zip(weights, rest, strict=True)) / sum(weights)
    return sum(s for _, s in rest) / len(rest)


@settings(max_examples=300, deadline=None)
@given(scored())
def test_the_compiled_scorer_agrees_with_the_spec_read_literally(
    case: tuple[RubricTree, dict[str, str]],
) -> None:
    tree, verdicts = case
    report = compile_tree(tree).score(verdicts)
    assert report.root_score == reference_score(tree.root, verdicts, weighted=False)
    for node in tree.nodes():
        assert 0.0 <= report.score_of(node.id) <= 1.0


@settings(max_examples=200, deadline=None)
@given(scored("weighted"))
def test_weighted_scoring_agrees_with_a_weighted_reading_of_the_spec(
    case: tuple[RubricTree, dict[str, str]],
) -> None:
    tree, verdicts = case
    assert compile_tree(tree).score(verdicts).root_score == reference_score(
        tree.root, verdicts, weighted=True
    )


@settings(max_examples=300, deadline=None)
@given(scored(), st.data())
def test_turning_a_leaf_from_fail_to_pass_never_lowers_the_root(
    case: tuple[RubricTree, dict[str, str]], data: st.DataObject
) -> None:
    tree, verdicts = case
    compiled = compile_tree(tree)
    leaf = data.draw(st.sampled_from([leaf.id for leaf in tree.leaves()]))
    worse = compiled.score({**verdicts, leaf: "fail"}).root_score
    better = compiled.score({**verdicts, leaf: "pass"}).root_score
    assert better >= worse


@settings(max_examples=300, deadline=None)
@given(scored())
def test_the_bracket_holds_every_way_the_undecided_leaves_could_go(
    case: tuple[RubricTree, dict[str, str]],
) -> None:
    tree, verdicts = case
    compiled = compile_tree(tree)
    report = compiled.score(verdicts)
    undecided = [leaf.id for leaf in tree.leaves() if verdicts.get(leaf.id) in (None, "error")]
    for outcome in ("pass", "fail"):
        resolved = compiled.score({**verdicts, **dict.fromkeys(undecided, outcome)}).root_score
        assert report.root_score_lower <= resolved <= report.root_score_upper
    assert report.complete == (not undecided)


@settings(max_examples=200, deadline=None)
@given(trees())
def test_import_export_import_is_identity(tree: RubricTree) -> None:
    assert import_tree(tree.to_dict()).tree == tree
    assert import_tree(export_quest(tree)).tree == tree
    once = import_tree(export_quest(tree)).tree
    assert import_tree(export_quest(once)).tree == once
