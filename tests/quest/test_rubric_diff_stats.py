from __future__ import annotations

import copy
from typing import Any

from quest.rubric.diff import diff_trees


def _tree() -> dict[str, Any]:
    return {
        "format": "questweb.rubric/1",
        "scoring": "quest",
        "root": {
            "id": "root",
            "description": "Find two things",
            "critical": False,
            "strategy": "parallel",
            "children": [
                {"id": "a", "description": "A exists", "critical": True,
                 "check": {"kind": "mentions", "value": "A"}},
                {"id": "b", "description": "B exists", "critical": False,
                 "check": {"kind": "mentions", "value": "B"}},
                {"id": "g", "description": "group", "critical": False, "strategy": "parallel",
                 "children": [{"id": "c", "description": "C", "critical": False,
                               "check": {"kind": "regex", "pattern": "c+"}}]},
            ],
        },
    }  # fmt: skip


def test_identical_trees_have_no_changes() -> None:
    assert diff_trees(_tree(), _tree()) == []


def test_it_reports_a_changed_field_with_before_and_after() -> None:
    after = _tree()
    after["root"]["children"][0]["critical"] = False
    [change] = diff_trees(_tree(), after)
    assert (change.op, change.node_id, change.path, change.field) == (
        "changed",
        "a",
        "root/a",
        "critical",
    )
    assert (change.before, change.after) == (True, False)


def test_it_reports_added_removed_and_moved_nodes_without_noise_from_shifted_positions() -> None:
    after = _tree()
    children = after["root"]["children"]
    children.insert(0, {"id": "n", "description": "new", "critical": False,
                        "check": {"kind": "mentions", "value": "N"}})  # fmt: skip
    del children[2]  # b removed
    c = children[2]["children"].pop()
    children.append(c)  # c moved from g to root
    ops = {(ch.op, ch.node_id) for ch in diff_trees(_tree(), after)}
    assert ("added", "n") in ops and ("removed", "b") in ops and ("moved", "c") in ops
    assert not any(op == "moved" and node != "c" for op, node in ops)
    assert not any(op == "reordered" for op, _ in ops)


def test_it_reports_reordered_children_once_on_the_parent() -> None:
    after = copy.deepcopy(_tree())
    after["root"]["children"].reverse()
    [change] = diff_trees(_tree(), after)
    assert change.op == "reordered" and change.node_id == "root"
    assert change.after == ["g", "b", "a"]


def test_it_reports_a_changed_check() -> None:
    after = _tree()
    after["root"]["children"][1]["check"] = {"kind": "mentions", "value": "Bee"}
    [change] = diff_trees(_tree(), after)
    assert change.field == "check" and change.after == {"kind": "mentions", "value": "Bee"}


def test_stats_count_layers_leaves_and_give_the_complexity_class() -> None:
    from quest.rubric.stats import complexity_class, tree_stats

    stats = tree_stats(_tree())
    assert stats == {
        "nodes": 5,
        "leaves": 3,
        "critical_leaves": 1,
        "sequential_nodes": 0,
        "depth": 3,
        "breadth": 3,
        "complexity": "C2",
    }
    assert complexity_class(breadth=12, depth=6) == "C9"
    assert complexity_class(breadth=4, depth=2) == "C4"
