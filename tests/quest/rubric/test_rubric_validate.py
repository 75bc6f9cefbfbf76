from __future__ import annotations

import copy
import json
import time

import pytest

from quest.rubric import (
    Check,
    Node,
    RubricError,
    RubricTree,
    import_tree,
    loads_tree,
    validate_tree,
)
from quest.rubric.errors import MAX_ERRORS
from quest.rubric.model import FORMAT
from quest.rubric.regex_guard import pattern_problem


def canonical(root: dict, scoring: str = "quest") -> dict:
    return {"format": FORMAT, "scoring": scoring, "root": root}


def judge_leaf(node_id: str, **fields: object) -> dict:
    return {
        "id": node_id,
        "description": f"leaf {node_id}",
        "check": {"kind": "judge", "claim": "c"},
        **fields,
    }


def errors_of(data: object) -> tuple[str, ...]:
    with pytest.raises(RubricError) as caught:
        import_tree(data)
    return caught.value.errors


def test_it_rejects_a_critical_parent_with_a_non_critical_child() -> None:
    data = {
        "task_description": "t",
        "rubric_tree": {
            "node_name": "root",
            "description": "r",
            "critical": False,
            "aggregation_strategy": "parallel",
            "children": [
                {
                    "node_name": "patent_0",
                    "description": "p",
                    "critical": False,
                    "aggregation_strategy": "sequential",
                    "children": [
                        {
                            "node_name": "patent_0_constraints",
                            "description": "c",
                            "critical": True,
                            "aggregation_strategy": "parallel",
                            "children": [{"node_name": "x", "description": "d", "critical": False}],
                        }
                    ],
                }
            ],
        },
    }
    assert errors_of(data) == (
        'root/patent_0/patent_0_constraints: critical parent has non-critical child "x"',
    )


def test_it_rejects_duplicate_ids_in_canonical_json_naming_both_places() -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [judge_leaf("a"), judge_leaf("a")],
    }
    assert errors_of(canonical(root)) == ('root/a: duplicate id "a" (also at root/a)',)


def test_it_rejects_an_internal_node_without_children() -> None:
    root = {"id": "root", "description": "r", "strategy": "parallel", "children": []}
    assert "root: internal node has no children" in errors_of(canonical(root))


def test_it_rejects_is_leaf_false_without_children_in_quest_files() -> None:
    data = {"node_name": "root", "description": "r", "critical": False, "is_leaf": False}
    assert errors_of(data) == ("root: internal node has no children",)


def test_it_rejects_an_unknown_strategy() -> None:
    root = {"id": "root", "description": "r", "strategy": "diagonal", "children": [judge_leaf("a")]}
    assert errors_of(canonical(root)) == (
        'root: unknown strategy "diagonal" (expected parallel or sequential)',
    )


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        (True, "root/a: weight must be an integer, got boolean"),
        (1.5, "root/a: weight must be an integer, got number"),
        ("3", "root/a: weight must be an integer, got string"),
        (-2, "root/a: weight must not be negative, got -2"),
    ],
)
def test_it_rejects_bad_weights(weight: object, message: str) -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [judge_leaf("a", weight=weight)],
    }
    assert errors_of(canonical(root, "weighted")) == (message,)


def test_it_rejects_weights_under_quest_scoring() -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [judge_leaf("a", weight=2)],
    }
    assert errors_of(canonical(root)) == (
        "root/a: weight given but scoring is quest (use weighted or points)",
    )


def test_it_rejects_a_weighted_node_whose_children_all_weigh_nothing() -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [judge_leaf("a", weight=0), judge_leaf("b", weight=0)],
    }
    assert errors_of(canonical(root, "weighted")) == (
        "root: non-critical children all have weight 0",
    )


def test_it_rejects_a_leaf_without_a_check_in_canonical_json() -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [{"id": "a", "description": "d"}],
    }
    assert errors_of(canonical(root)) == ("root/a: leaf has no check",)


@pytest.mark.parametrize(
    ("check", "message"),
    [
        ({"kind": "telepathy"}, "unknown check kind 'telepathy'"),
        ({"kind": "number", "value": "lots"}, "check.value must be a number"),
        ({"kind": "number"}, "check.value is required for number"),
        (
            {"kind": "mentions", "value": "x", "colour": "red"},
            "check.colour is not a parameter of mentions",
        ),
        ({"kind": "date", "value": "next Tuesday"}, "check.value must be a date"),
        (
            {"kind": "date", "after": "2024", "before": "2020"},
            "check.after is later than check.before",
        ),
        ({"kind": "regex", "pattern": r"(\w)\1"}, "regex backreferences are not allowed"),
        ({"kind": "regex", "pattern": r"(?P<x>\w)(?P=x)"}, "regex backreferences are not allowed"),
        ({"kind": "regex", "pattern": "(unclosed"}, "invalid regex"),
        ({"kind": "regex", "pattern": "x" * 201}, "regex is longer than 200 characters"),
        (
            {"kind": "judge", "claim": "c", "sources": ["ftp://x"]},
            "check.sources must be http(s) URLs",
        ),
        ({"kind": "one_of", "values": []}, "check.values must not be empty"),
    ],
)
def test_it_rejects_bad_check_params(check: dict, message: str) -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [{"id": "a", "description": "d", "check": check}],
    }
    (error,) = errors_of(canonical(root))
    assert error.startswith("root/a: ") and message in error


def test_it_names_the_wrong_type_and_the_path() -> None:
    root = {
        "id": "root",
        "description": "r",
        "strategy": "parallel",
        "children": [
            {
                "id": "a",
                "description": 7,
                "critical": "yes",
                "check": {"kind": "judge", "claim": "c"},
            }
        ],
    }
    assert errors_of(canonical(root)) == (
        "root/a: description must be a string, got integer",
        "root/a: critical must be true or false, got string",
    )


def test_it_reports_every_error_not_just_the_first() -> None:
    children = [{"id": f"n{i}", "description": "d"} for i in range(5)]
    root = {"id": "root", "description": "r", "strategy": "parallel", "children": children}
    assert len(errors_of(canonical(root))) == 5


def test_the_error_list_is_bounded() -> None:
    children = [{"id": f"n{i}", "description": "d"} for i in range(500)]
    root = {"id": "root", "description": "r", "strategy": "parallel", "children": children}
    assert len(errors_of(canonical(root))) == MAX_ERRORS


def test_critical_type_must_agree_with_critical() -> None:
    data = {
        "node_name": "root",
        "description": "r",
        "critical": True,
        "critical_type": "NON-CRITICAL",
    }
    assert errors_of(data) == ('root: critical_type "NON-CRITICAL" contradicts critical=true',)


def test_points_trees_must_be_flat_with_points_in_range() -> None:
    data = [
        {"criterion": "a", "points": 11},
        {"criterion": "b", "points": 0},
        {"criterion": "c", "points": -3},
    ]
    assert errors_of(data) == (
        "root/a: points must be a non-zero integer from -10 to 10",
        "root/b: points must be a non-zero integer from -10 to 10",
    )


def test_points_trees_need_a_positive_criterion() -> None:
    assert errors_of([{"criterion": "bad", "points": -3}]) == (
        "root: a points tree needs at least one criterion with positive points",
    )


# -- hostile input ---------------------------------------------------------------------------


def chain(depth: int) -> dict:
    """A canonical node nested `depth` levels deep, built without recursion."""
    node: dict = judge_leaf("n0")
    for level in range(1, depth):
        node = {"id": f"n{level}", "description": "d", "strategy": "parallel", "children": [node]}
    return node


def test_it_rejects_a_tree_deeper_than_16_levels_with_the_path() -> None:
    errors = errors_of(canonical(chain(17)))
    assert len(errors) == 1
    assert errors[0].endswith(": tree is deeper than 16 levels")
    assert errors[0].startswith("n16/n15/")


def test_it_accepts_exactly_16_levels() -> None:
    assert import_tree(canonical(chain(16))).tree.root.id == "n15"


def test_ten_thousand_levels_of_python_objects_fail_fast_without_recursion() -> None:
    started = time.perf_counter()
    errors = errors_of(canonical(chain(10_000)))
    assert errors[0].endswith("tree is deeper than 16 levels")
    assert time.perf_counter() - started < 2


def test_ten_thousand_levels_of_json_text_fail_cleanly() -> None:
    text = (
        '{"format": "questweb.rubric/1", "root": ' + '{"children": [' * 10_000 + "]}" * 10_000 + "}"
    )
    with pytest.raises(RubricError):
        loads_tree(text)


def test_deeply_nested_extra_fields_are_refused() -> None:
    value: object = 1
    for _ in range(50):
        value = [value]
    data = {"node_name": "root", "description": "r", "critical": False, "junk": value}
    assert errors_of(data) == ('root: field "junk" is nested too deeply',)


def test_a_huge_description_is_refused_without_copying_it() -> None:
    data = {"node_name": "root", "description": "x" * 5_000_000, "critical": False}
    assert "root: description is longer than 10000 characters" in errors_of(data)


def test_a_payload_over_5_mb_is_refused() -> None:
    with pytest.raises(RubricError, match="payload is larger than 5000000 bytes"):
        loads_tree(" " * 5_000_001)


def test_more_than_5000_nodes_are_refused() -> None:
    children = [judge_leaf(f"n{i}") for i in range(5_000)]
    root = {"id": "root", "description": "r", "strategy": "parallel", "children": children}
    assert "tree has more than 5000 nodes" in errors_of(canonical(root))


def test_a_cycle_built_in_python_is_reported_not_followed() -> None:
    root: dict = {"node_name": "root", "description": "r", "critical": False, "children": []}
    root["children"].append(root)
    assert errors_of(root) == ("root: node appears twice (a cycle or a shared subtree)",)


@pytest.mark.parametrize(
    "data", [None, 3, "tree", True, [1, 2], {"rubric_tree": 5}, {"format": FORMAT, "root": []}]
)
def test_wrong_types_anywhere_give_a_rubric_error(data: object) -> None:
    with pytest.raises(RubricError):
        import_tree(data)


def test_non_json_values_are_refused() -> None:
    data = {"node_name": "root", "description": "r", "critical": False, "when": object()}
    assert errors_of(data) == ('root: field "when" is not JSON',)


def test_validate_tree_checks_trees_built_in_python() -> None:
    bad = RubricTree(
        Node("root", "r", critical=True, children=(Node("Bad Id", "d", check=Check.judge("c")),))
    )
    assert validate_tree(bad) == [
        'root: critical parent has non-critical child "Bad Id"',
        'root/Bad Id: id "Bad Id" must be 1-64 characters of a-z, 0-9, _ or -, starting alnum',
    ]


def test_validate_tree_walks_a_deep_python_tree_without_recursion() -> None:
    node = Node("n0", "d", check=Check.judge("c"))
    for level in range(1, 5_000):
        node = Node(f"n{level}", "d", children=(node,))
    errors = validate_tree(RubricTree(node))
    path = "/".join(f"n{level}" for level in range(4999, 4983, -1))
    assert errors == [f"{path}: tree is deeper than 16 levels"]


def test_importing_does_not_mutate_its_input() -> None:
    data = {
        "task_description": "t",
        "rubric_tree": {"node_name": "root", "description": "r", "critical": False},
    }
    before = copy.deepcopy(data)
    import_tree(data)
    assert data == before
    assert json.dumps(data) == json.dumps(before)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (r"(a+)+b", "nests unbounded repeats"),
        (r"(\w+\s?)*!", "nests unbounded repeats"),
        (r"(x+x+)+y", "nests unbounded repeats"),
        (r"(a|aa)*c", "alternatives that can start alike"),
        (r"(?:x|y|xy)+", "alternatives that can start alike"),
    ],
)
def test_catastrophic_regexes_are_refused_at_validation(pattern: str, problem: str) -> None:
    assert problem in (pattern_problem(pattern) or "")


@pytest.mark.parametrize(
    "pattern", [r"(cool|cold) (running )?water", r"(cat|dog)s*", r"(a|b)*c", r"US\s[\d,]+\sB\d"]
)
def test_ordinary_regexes_pass_validation(pattern: str) -> None:
    assert pattern_problem(pattern) is None
