"""A readable diff between two versions of a rubric tree, matched by node id.

Nodes keep their ids across edits, so a diff says which nodes were added, removed, moved (new
parent or position) and which fields changed, instead of a line diff of the JSON.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from quest.rubric.model import attributes

Op = Literal["added", "removed", "moved", "reordered", "changed"]
FIELDS = ("description", "critical", "strategy", "weight", "check", "name")


@dataclass(frozen=True)
class Change:
    op: Op
    node_id: str
    path: str
    field: str = ""
    before: Any = None
    after: Any = None

    def to_dict(self) -> dict[str, Any]:
        return attributes(self, "op node_id path field before after")


@dataclass(frozen=True)
class _Placed:
    node: Mapping[str, Any]
    path: str
    parent: str | None


def _walk(root: Mapping[str, Any]) -> Iterator[_Placed]:
    stack: list[_Placed] = [_Placed(root, str(root["id"]), None)]
    while stack:
        placed = stack.pop()
        yield placed
        for child in reversed(placed.node.get("children") or []):
            stack.append(_Placed(child, f"{placed.path}/{child['id']}", str(placed.node["id"])))


def _index(tree: Mapping[str, Any]) -> dict[str, _Placed]:
    return {str(p.node["id"]): p for p in _walk(tree["root"])}


def diff_trees(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Change]:
    """Changes that turn canonical tree `before` into canonical tree `after`, in tree order."""
    old, new = _index(before), _index(after)
    changes: list[Change] = []
    for node_id, placed in new.items():
        previous = old.get(node_id)
        if previous is None:
            changes.append(Change("added", node_id, placed.path, after=_summary(placed.node)))
            continue
        if previous.parent != placed.parent:
            changes.append(
                Change("moved", node_id, placed.path, before=previous.path, after=placed.path)
            )
        reordered = _reordered(previous.node, placed.node)
        if reordered:
            changes.append(Change("reordered", node_id, placed.path, "children", *reordered))
        for name in FIELDS:
            was, now = previous.node.get(name), placed.node.get(name)
            if was != now:
                changes.append(Change("changed", node_id, placed.path, name, was, now))
    for node_id, placed in old.items():
        if node_id not in new:
            changes.append(Change("removed", node_id, placed.path, before=_summary(placed.node)))
    for name in ("scoring", "task_description"):
        if before.get(name) != after.get(name):
            changes.append(Change("changed", "", "", name, before.get(name), after.get(name)))
    return changes


def _reordered(
    was: Mapping[str, Any], now: Mapping[str, Any]
) -> tuple[list[str], list[str]] | None:
    """Children present in both versions whose relative order changed (inserts don't count)."""
    old_ids = [str(c["id"]) for c in was.get("children") or []]
    new_ids = [str(c["id"]) for c in now.get("children") or []]
    kept = set(old_ids) & set(new_ids)
    old_order = [i for i in old_ids if i in kept]
    new_order = [i for i in new_ids if i in kept]
    return (old_order, new_order) if old_order != new_order else None


def _summary(node: Mapping[str, Any]) -> dict[str, Any]:
    return {key: node.get(key) for key in ("description", "critical") if key in node}
