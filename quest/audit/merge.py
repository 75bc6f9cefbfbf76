"""Replaying an edit on a version someone else saved meanwhile.

Two auditors may edit the same tree at once. The second save is refused (its base version is
no longer current) and offered a merge: its operations are replayed on the current version,
unless they touch a node the other auditor changed, in which case the merge is refused and the
conflicting nodes are named, so nobody's edit is silently overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quest.audit.edits import EditError, EditOp, RemoveNode, TreeIndex, apply_ops, subtree_ids
from quest.rubric.diff import diff_trees


class MergeConflict(ValueError):
    def __init__(self, nodes: Sequence[str], reason: str) -> None:
        self.nodes: tuple[str, ...] = tuple(nodes)
        self.reason = reason
        super().__init__(reason)


def _touched(ops: Sequence[EditOp], base: Mapping[str, Any]) -> set[str]:
    """Nodes the operations depend on. Removing a node also discards edits made below it."""
    index = TreeIndex(base["root"])
    touched: set[str] = set()
    for op in ops:
        touched |= op.touched()
        if isinstance(op, RemoveNode) and op.node in index.nodes:
            touched |= set(subtree_ids(index.nodes[op.node]))
    return touched


def rebase_ops(
    ops: Sequence[EditOp], *, base: Mapping[str, Any], current: Mapping[str, Any]
) -> dict[str, Any]:
    """`current` with `ops` (written against `base`) applied, or MergeConflict."""
    changed = {change.node_id for change in diff_trees(base, current) if change.node_id}
    clash = sorted(_touched(ops, base) & changed)
    if clash:
        shown = ", ".join(clash[:10])
        raise MergeConflict(clash, f"the other edit changed the same nodes: {shown}")
    try:
        return apply_ops(current, ops)
    except EditError as exc:
        raise MergeConflict([], f"your edit does not apply to the new version: {exc}") from None
