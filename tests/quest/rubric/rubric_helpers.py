"""Small builders shared by the rubric tests (no Django anywhere)."""

from __future__ import annotations

from pathlib import Path

from quest.rubric import Check, Node, RubricTree

FIXTURES = Path(__file__).parent / "fixtures"


def leaf(
    node_id: str, *, critical: bool = False, check: Check | None = None, weight: int | None = None
) -> Node:
    return Node(
        node_id,
        f"leaf {node_id}",
        critical=critical,
        check=check or Check.judge(f"claim {node_id}"),
        weight=weight,
    )


def node(
    node_id: str,
    *children: Node,
    critical: bool = False,
    sequential: bool = False,
    weight: int | None = None,
) -> Node:
    return Node(
        node_id,
        f"node {node_id}",
        critical=critical,
        strategy="sequential" if sequential else "parallel",
        children=children,
        weight=weight,
    )


def tree(root: Node, scoring: str = "quest") -> RubricTree:
    return RubricTree(root, scoring=scoring)  # type: ignore[arg-type]
