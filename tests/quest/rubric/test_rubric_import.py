from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rubric_helpers import FIXTURES

from quest.rubric import (
    Check,
    RubricError,
    detect_shape,
    export_quest,
    import_canonical,
    import_tree,
    load_tree_file,
    loads_tree,
)

TASK_FILES = sorted(FIXTURES.glob("*.json"))


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_it_imports_the_real_quest_task_files_as_shape_c(path: Path) -> None:
    imported = load_tree_file(path)
    assert imported.shape == "C"
    assert imported.notes == ()
    assert imported.tree.root.id == "root"
    assert imported.tree.task_description.startswith(("Find three", "Identify the academic"))


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_exporting_a_quest_file_gives_back_the_original_json(path: Path) -> None:
    original = json.loads(path.read_text())
    assert export_quest(load_tree_file(path).tree) == original


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_canonical_and_quest_round_trips_are_identity(path: Path) -> None:
    tree = load_tree_file(path).tree
    assert import_canonical(tree.to_dict()).tree == tree
    assert import_tree(export_quest(tree)).tree == tree
    assert import_tree(json.loads(tree.to_json())).tree == tree


def test_quest_leaves_get_a_judge_check_whose_claim_is_the_description() -> None:
    tree = load_tree_file(FIXTURES / "yu_lineage.json").tree
    leaf = tree.node("generation_2_match")
    assert leaf.check == Check.judge(leaf.description)
    assert leaf.critical is True


def test_it_counts_the_nodes_of_the_fixtures() -> None:
    patent = load_tree_file(FIXTURES / "ad_patent.json").tree
    lineage = load_tree_file(FIXTURES / "yu_lineage.json").tree
    assert (len(list(patent.nodes())), len(list(patent.leaves()))) == (58, 36)
    assert (len(list(lineage.nodes())), len(list(lineage.leaves()))) == (21, 15)


SHAPE_A = {
    "Best laptop": {
        "description": "Find a laptop",
        "critical": False,
        "aggregation_strategy": "sequential",
        "children": {
            "Price": {"description": "Costs under $1000", "critical": True},
            "Battery life": {"description": "Lasts 10 hours", "critical": False},
        },
    }
}
SHAPE_B = {
    "node_name": "root",
    "description": "Find a laptop",
    "critical": False,
    "critical_type": "NON-CRITICAL",
    "aggregation_strategy": "sequential",
    "children": [
        {
            "node_name": "Price",
            "description": "Costs under $1000",
            "critical": True,
            "critical_type": "CRITICAL",
            "aggregation_strategy": "",
            "children": [],
        },
        {
            "node_name": "Battery life",
            "description": "Lasts 10 hours",
            "critical": False,
            "critical_type": "NON-CRITICAL",
            "aggregation_strategy": "",
            "children": [],
        },
    ],
}
SHAPE_D = {
    "name": "root",
    "description": "Find a laptop",
    "critical": False,
    "aggregation": "sequential",
    "children": [
        {"name": "Price", "description": "Costs under $1000", "critical": True},
        {"name": "Battery life", "critical": False},
    ],
}


@pytest.mark.parametrize(
    ("data", "shape"),
    [
        (SHAPE_A, "A"),
        (SHAPE_B, "B"),
        ({"task_description": "t", "rubric_tree": SHAPE_B}, "C"),
        (SHAPE_D, "D"),
        ([{"criterion": "Mentions X", "points": 5}], "criteria"),
        ({"criteria": [{"criterion": "Mentions X", "points": 5}]}, "criteria"),
        ({"format": "questweb.rubric/1", "root": {}}, "canonical"),
    ],
)
def test_it_detects_every_shape(data: object, shape: str) -> None:
    assert detect_shape(data) == shape


@pytest.mark.parametrize("data", [SHAPE_A, SHAPE_B, SHAPE_D], ids=["A", "B", "D"])
def test_shapes_a_b_and_d_give_the_same_structure(data: dict[str, Any]) -> None:
    tree = import_tree(data).tree
    root = tree.root
    assert root.strategy == "sequential"
    assert [child.id for child in root.children] == ["price", "battery_life"]
    assert [child.label for child in root.children] == ["Price", "Battery life"]
    assert [child.critical for child in root.children] == [True, False]
    assert all(child.check and child.check.kind == "judge" for child in root.children)


def test_shape_d_without_description_uses_the_name() -> None:
    tree = import_tree(SHAPE_D).tree
    assert tree.node("battery_life").description == "Battery life"


def test_shape_a_with_several_top_level_nodes_is_wrapped_under_a_root_and_says_so() -> None:
    data = {"First": {"description": "one"}, "Second": {"description": "two"}}
    imported = import_tree(data)
    assert [c.id for c in imported.tree.root.children] == ["first", "second"]
    assert imported.notes == ("root: 2 top-level nodes; wrapped under a parallel root",)


def test_duplicate_names_get_deterministic_suffixes_and_are_reported() -> None:
    data = {
        "node_name": "root",
        "description": "r",
        "critical": False,
        "aggregation_strategy": "parallel",
        "children": [
            {"node_name": "Item", "description": "a", "critical": False},
            {"node_name": "item", "description": "b", "critical": False},
            {"node_name": "ITEM!", "description": "c", "critical": False},
        ],
    }
    first = import_tree(data)
    again = import_tree(data)
    assert [c.id for c in first.tree.root.children] == ["item", "item_2", "item_3"]
    assert first.tree == again.tree
    assert first.notes == (
        'root/item: id "item" is already used; renamed to "item_2"',
        'root/item: id "item" is already used; renamed to "item_3"',
    )
    assert import_tree(export_quest(first.tree)).tree == first.tree


def test_ids_that_labels_would_not_reproduce_are_spelled_out_in_the_quest_export() -> None:
    tree = import_canonical(
        {
            "format": "questweb.rubric/1",
            "root": {
                "id": "root",
                "description": "r",
                "strategy": "parallel",
                "children": [
                    {
                        "id": "a",
                        "name": "Some label",
                        "description": "x",
                        "check": {"kind": "judge", "claim": "x"},
                    }
                ],
            },
        }
    ).tree
    exported = export_quest(tree)
    child = exported["rubric_tree"]["children"][0]
    assert child["node_name"] == "Some label" and child["id"] == "a"
    assert import_tree(exported).tree == tree


def test_flat_criteria_become_a_points_tree() -> None:
    data = {
        "task_description": "Answer a patient",
        "criteria": [
            {"criterion": "Advises seeing a doctor", "points": 5, "tags": ["safety"]},
            {"criterion": "Recommends an unsafe dose", "points": -8},
        ],
    }
    tree = import_tree(data).tree
    assert tree.scoring == "points"
    assert tree.root.description == "Answer a patient"
    assert [c.weight for c in tree.root.children] == [5, -8]
    assert tree.root.children[0].extra == {"tags": ["safety"]}
    assert import_tree(export_quest(tree)).tree == tree
    assert import_canonical(tree.to_dict()).tree == tree


def test_unknown_fields_of_quest_nodes_survive_both_exports() -> None:
    data = {
        "task_description": "t",
        "rubric_tree": {
            "node_name": "root",
            "description": "r",
            "critical": False,
            "aggregation_strategy": "parallel",
            "children": [
                {"node_name": "x", "description": "d", "critical": False, "source_urls": ["u"]}
            ],
        },
        "generator": "v2",
    }
    tree = import_tree(data).tree
    assert tree.node("x").extra == {"source_urls": ["u"]}
    assert tree.extra == {"generator": "v2"}
    assert export_quest(tree) == data
    assert import_canonical(tree.to_dict()).tree == tree


def test_explicit_checks_and_weights_survive_the_quest_export() -> None:
    data = {
        "format": "questweb.rubric/1",
        "scoring": "weighted",
        "root": {
            "id": "root",
            "description": "r",
            "strategy": "parallel",
            "children": [
                {
                    "id": "a",
                    "description": "x",
                    "weight": 3,
                    "check": {"kind": "number", "value": 42},
                },
                {"id": "b", "description": "y", "check": {"kind": "mentions", "value": "Paris"}},
            ],
        },
    }
    tree = import_canonical(data).tree
    exported = export_quest(tree)
    assert exported["scoring"] == "weighted"
    assert exported["rubric_tree"]["children"][0]["check"] == {"kind": "number", "value": 42}
    assert import_tree(exported).tree == tree
    assert import_canonical(tree.to_dict()).tree == tree


def test_loads_tree_rejects_broken_json_with_one_clear_error() -> None:
    with pytest.raises(RubricError) as caught:
        loads_tree('{"format": ')
    assert caught.value.errors[0].startswith("invalid JSON")


def test_canonical_json_must_name_a_supported_format() -> None:
    with pytest.raises(RubricError, match=re.escape('format "questweb.rubric/9" is not supported')):
        import_canonical({"format": "questweb.rubric/9", "root": {}})
