"""A tree as the flat list of rows the audit pages render: tree order, depth for indentation,
and each node's judge suggestion. Flat rows keep j/k navigation to DOM order and let a 300-node
tree render in one loop."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from apps.rubrics.tree_view import describe_check


@dataclass(frozen=True)
class AuditRow:
    id: str
    depth: int
    description: str
    critical: bool
    is_leaf: bool
    strategy: str
    check: str
    check_json: str
    suggestion: Mapping[str, Any] | None
    # What the annotator said about the node, drawn by the server on a read-only page.
    label: Mapping[str, str] | None = None


def audit_rows(
    tree: Mapping[str, Any],
    suggestions: Mapping[str, Mapping[str, Any]] | None = None,
    labels: Mapping[str, Mapping[str, str]] | None = None,
) -> list[AuditRow]:
    rows: list[AuditRow] = []
    stack: list[tuple[Mapping[str, Any], int]] = [(tree["root"], 0)]
    while stack:
        node, depth = stack.pop()
        children = node.get("children") or []
        node_id = str(node["id"])
        rows.append(
            AuditRow(
                id=node_id,
                depth=depth,
                description=str(node.get("description", "")),
                critical=bool(node.get("critical")),
                is_leaf=not children,
                strategy=str(node.get("strategy", "")) if children else "",
                check="" if children else describe_check(node.get("check")),
                check_json="" if children else json.dumps(node.get("check"), ensure_ascii=False),
                suggestion=(suggestions or {}).get(node_id),
                label=(labels or {}).get(node_id),
            )
        )
        stack.extend((child, depth + 1) for child in reversed(children))
    return rows
