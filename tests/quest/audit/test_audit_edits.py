from __future__ import annotations

import copy
from typing import Any

import pytest

from quest.audit import EditError, MergeConflict, apply_ops, parse_ops, rebase_ops
from quest.audit.edits import op_to_dict
from quest.rubric.diff import diff_trees


def _tree() -> dict[str, Any]:
    return {
        "format": "questweb.rubric/1",
        "scoring": "quest",
        "root": {
            "id": "root",
            "description": "Find the patent",
            "critical": False,
            "strategy": "parallel",
            "children": [
                {
                    "id": "inventor",
                    "description": "Names the inventor",
                    "critical": True,
                    "check": {"kind": "mentions", "value": "Ada"},
                },
                {
                    "id": "year",
                    "description": "Gives the year",
                    "critical": False,
                    "check": {"kind": "number", "value": 1843},
                },
                {
                    "id": "extra",
                    "description": "Extras",
                    "critical": False,
                    "strategy": "sequential",
                    "children": [
                        {
                            "id": "cited",
                            "description": "Cites a source",
                            "critical": False,
                            "check": {"kind": "cites_url"},
                        }
                    ],
                },
            ],
        },
    }


def _ops(*raw: dict[str, Any]) -> list[Any]:
    return parse_ops(list(raw))


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c.op, c.node_id, c.field) for c in diff_trees(before, after)]


def test_field_edits_make_a_valid_tree_whose_diff_names_each_change() -> None:
    tree = _tree()
    edited = apply_ops(
        tree,
        _ops(
            {"op": "set_description", "node": "year", "description": "Gives the filing year"},
            {"op": "set_critical", "node": "year", "critical": True},
            {"op": "set_strategy", "node": "extra", "strategy": "parallel"},
            {
                "op": "set_check",
                "node": "cited",
                "check": {"kind": "cites_url", "urls": ["patents.google.com"]},
            },
        ),
    )
    assert _changes(tree, edited) == [
        ("changed", "year", "description"),
        ("changed", "year", "critical"),
        ("changed", "extra", "strategy"),
        ("changed", "cited", "check"),
    ]
    assert tree == _tree(), "the original version is never modified"


def test_adding_a_node_gives_it_a_readable_unique_id_and_a_judge_check() -> None:
    edited = apply_ops(
        _tree(),
        _ops(
            {"op": "add_node", "parent": "root", "description": "Names the year", "position": 0},
            {"op": "add_node", "parent": "root", "description": "Names the year"},
        ),
    )
    children = edited["root"]["children"]
    assert [c["id"] for c in children] == [
        "names_the_year",
        "inventor",
        "year",
        "extra",
        "names_the_year_2",
    ]
    assert children[0]["check"] == {"kind": "judge", "claim": "Names the year", "sources": []}


def test_a_leaf_that_receives_a_child_becomes_a_group_and_an_emptied_group_a_leaf() -> None:
    tree = _tree()
    edited = apply_ops(
        tree,
        _ops(
            {"op": "add_node", "parent": "year", "description": "Year is 1843", "id": "y1843"},
            {"op": "remove_node", "node": "cited"},
        ),
    )
    year = edited["root"]["children"][1]
    assert "check" not in year and year["strategy"] == "parallel"
    assert [c["id"] for c in year["children"]] == ["y1843"]
    extra = edited["root"]["children"][2]
    assert "children" not in extra
    assert extra["check"] == {"kind": "judge", "claim": "Extras", "sources": []}
    assert ("removed", "cited", "") in _changes(tree, edited)


def test_moving_a_node_shows_as_a_move_and_never_into_its_own_subtree() -> None:
    tree = _tree()
    edited = apply_ops(tree, _ops({"op": "move_node", "node": "year", "parent": "extra"}))
    assert ("moved", "year", "") in _changes(tree, edited)
    with pytest.raises(EditError, match="under itself"):
        apply_ops(tree, _ops({"op": "move_node", "node": "extra", "parent": "cited"}))
    with pytest.raises(EditError, match="root cannot"):
        apply_ops(tree, _ops({"op": "remove_node", "node": "root"}))


def test_an_edit_that_breaks_a_rubric_rule_is_refused_with_the_engines_message() -> None:
    with pytest.raises(EditError) as info:
        apply_ops(_tree(), _ops({"op": "set_critical", "node": "root", "critical": True}))
    assert "critical parent has non-critical child" in str(info.value)
    with pytest.raises(EditError, match=r"check\.value is required"):
        apply_ops(_tree(), _ops({"op": "set_check", "node": "year", "check": {"kind": "number"}}))
    with pytest.raises(EditError, match="only leaves have a check"):
        apply_ops(_tree(), _ops({"op": "set_check", "node": "extra", "check": {"kind": "x"}}))


def test_malformed_operations_are_refused_with_their_position() -> None:
    with pytest.raises(EditError, match="non-empty list"):
        parse_ops([])
    with pytest.raises(EditError, match="edit 2: op must be one of"):
        parse_ops([{"op": "remove_node", "node": "a"}, {"op": "explode"}])
    with pytest.raises(EditError, match=r"edit 1 \(set_critical\): critical"):
        parse_ops([{"op": "set_critical", "node": "a", "critical": "yes"}])
    with pytest.raises(EditError, match="no node 'ghost'"):
        apply_ops(_tree(), _ops({"op": "set_critical", "node": "ghost", "critical": True}))


def test_operations_round_trip_through_json() -> None:
    raw = [
        {"op": "move_node", "node": "year", "parent": "extra", "position": 0},
        {"op": "add_node", "parent": "root", "description": "New", "critical": False},
    ]
    assert [op_to_dict(op) for op in parse_ops(raw)] == raw


def test_an_edit_on_an_old_version_merges_when_it_touches_other_nodes() -> None:
    base = _tree()
    theirs = apply_ops(
        base,
        _ops(
            {
                "op": "set_description",
                "node": "inventor",
                "description": "Names the inventor, Ada Lovelace",
            }
        ),
    )
    mine = _ops({"op": "set_critical", "node": "year", "critical": True})
    merged = rebase_ops(mine, base=base, current=theirs)
    assert merged["root"]["children"][0]["description"].endswith("Ada Lovelace")
    assert merged["root"]["children"][1]["critical"] is True


def test_an_edit_that_touches_a_node_the_other_person_changed_is_a_named_conflict() -> None:
    base = _tree()
    theirs = apply_ops(
        base,
        _ops(
            {"op": "set_check", "node": "cited", "check": {"kind": "cites_url", "urls": ["a.org"]}}
        ),
    )
    with pytest.raises(MergeConflict) as info:
        rebase_ops(_ops({"op": "remove_node", "node": "extra"}), base=base, current=theirs)
    assert info.value.nodes == ("cited",)
    gone = apply_ops(base, _ops({"op": "remove_node", "node": "year"}))
    with pytest.raises(MergeConflict, match="year"):
        rebase_ops(
            _ops({"op": "set_critical", "node": "year", "critical": True}),
            base=copy.deepcopy(base),
            current=gone,
        )
