"""Shape statistics of a canonical tree and its QUEST complexity class (QUEST-SPEC §3).

Breadth is the widest layer: B1 1-3 nodes, B2 4-11, B3 ≥12. Depth counts layers with the root
as one: D1 up to 2, D2 3-4, D3 5 or more. Class C = 3·(B-1) + D, so C1 = B1·D1 … C9 = B3·D3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def tree_stats(tree: Mapping[str, Any]) -> dict[str, Any]:
    layers: list[int] = []
    nodes = leaves = critical_leaves = sequential = 0
    stack: list[tuple[Mapping[str, Any], int]] = [(tree["root"], 0)]
    while stack:
        node, depth = stack.pop()
        if depth == len(layers):
            layers.append(0)
        layers[depth] += 1
        nodes += 1
        children = node.get("children") or []
        if children:
            sequential += node.get("strategy") == "sequential"
            stack.extend((child, depth + 1) for child in children)
        else:
            leaves += 1
            critical_leaves += bool(node.get("critical"))
    breadth = max(layers)
    return {
        "nodes": nodes,
        "leaves": leaves,
        "critical_leaves": critical_leaves,
        "sequential_nodes": sequential,
        "depth": len(layers),
        "breadth": breadth,
        "complexity": complexity_class(breadth=breadth, depth=len(layers)),
    }


def complexity_class(*, breadth: int, depth: int) -> str:
    b = 1 if breadth <= 3 else 2 if breadth <= 11 else 3
    d = 1 if depth <= 2 else 2 if depth <= 4 else 3
    return f"C{3 * (b - 1) + d}"
