"""Edit operations on a canonical rubric tree, as an auditor makes them.

An edit is a short list of operations (set a node's description, critical flag, strategy or
check; add, remove or move a node) applied to one version of a tree. The result is validated
with quest.rubric, so an edit can never store a tree the engine would refuse. Expressing edits
as operations, rather than as a whole new tree, lets a client undo them one by one and lets
merge.py replay them on a version someone else saved meanwhile.

Structure stays valid by construction: a leaf that receives a child becomes an internal node
(its check is dropped, the diff shows it), and an internal node that loses its last child
becomes a leaf judged on its own description, as QUEST judges every leaf.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from quest.rubric.errors import RubricError
from quest.rubric.ids import is_valid_id, slugify
from quest.rubric.importers import import_canonical
from quest.rubric.model import MAX_ID_LENGTH, STRATEGIES

MAX_OPS = 200
NodeDict: TypeAlias = dict[str, Any]


class EditError(ValueError):
    """An edit that cannot be applied; `errors` lists every problem, each readable alone."""

    def __init__(self, errors: Sequence[str]) -> None:
        self.errors: tuple[str, ...] = tuple(errors) or ("invalid edit",)
        super().__init__("; ".join(self.errors[:5]))


def subtree_ids(node: Mapping[str, Any]) -> Iterator[str]:
    """Ids of a node and all its descendants, without recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield str(current["id"])
        stack.extend(current.get("children") or [])


class TreeIndex:
    """Node dicts of a tree being edited, by id, with each node's parent id."""

    def __init__(self, root: NodeDict) -> None:
        self.root = root
        self.nodes: dict[str, NodeDict] = {}
        self.parent: dict[str, str | None] = {}
        self._register(root, None)

    def _register(self, node: NodeDict, parent_id: str | None) -> None:
        stack = [(node, parent_id)]
        while stack:
            current, parent = stack.pop()
            self.nodes[str(current["id"])] = current
            self.parent[str(current["id"])] = parent
            stack.extend((child, str(current["id"])) for child in current.get("children") or [])

    def get(self, node_id: str) -> NodeDict:
        node = self.nodes.get(node_id)
        if node is None:
            raise EditError([f"no node {node_id!r} in this version"])
        return node

    def subtree_ids(self, node_id: str) -> Iterator[str]:
        return subtree_ids(self.get(node_id))

    def attach(self, node: NodeDict, parent_id: str, position: int | None) -> None:
        parent = self.get(parent_id)
        if "children" not in parent or not parent["children"]:
            # A leaf that receives a child becomes a group: it keeps no check of its own.
            parent.pop("check", None)
            parent["strategy"] = parent.get("strategy") or "parallel"
            parent["children"] = []
        children: list[NodeDict] = parent["children"]
        at = len(children) if position is None else max(0, min(position, len(children)))
        children.insert(at, node)
        self._register(node, parent_id)

    def detach(self, node_id: str) -> NodeDict:
        parent_id = self.parent.get(node_id)
        if parent_id is None:
            raise EditError(["the root cannot be removed or moved"])
        node = self.get(node_id)
        parent = self.nodes[parent_id]
        parent["children"] = [c for c in parent["children"] if str(c["id"]) != node_id]
        if not parent["children"]:
            # Left without children, the group becomes a leaf judged on its description.
            del parent["children"]
            parent.pop("strategy", None)
            parent["check"] = {"kind": "judge", "claim": parent["description"]}
        for removed in list(subtree_ids(node)):
            self.nodes.pop(removed, None)
            self.parent.pop(removed, None)
        return node

    def fresh_id(self, description: str) -> str:
        base = slugify(description)[:40]
        candidate, suffix = base, 2
        while candidate in self.nodes:
            tail = f"_{suffix}"
            candidate = base[: MAX_ID_LENGTH - len(tail)] + tail
            suffix += 1
        return candidate


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EditError([f"{what} must be a non-empty string"])
    return value.strip()


@dataclass(frozen=True)
class _NodeEdit:
    """An edit of one existing node (its fields or its place): it touches that node."""

    node: str

    def touched(self) -> set[str]:
        return {self.node}


@dataclass(frozen=True)
class SetDescription(_NodeEdit):
    description: str
    name = "set_description"

    def apply(self, index: TreeIndex) -> None:
        index.get(self.node)["description"] = _text(self.description, "description")


@dataclass(frozen=True)
class SetCritical(_NodeEdit):
    critical: bool
    name = "set_critical"

    def apply(self, index: TreeIndex) -> None:
        if not isinstance(self.critical, bool):
            raise EditError(["critical must be true or false"])
        index.get(self.node)["critical"] = self.critical


@dataclass(frozen=True)
class SetStrategy(_NodeEdit):
    strategy: str
    name = "set_strategy"

    def apply(self, index: TreeIndex) -> None:
        node = index.get(self.node)
        if not node.get("children"):
            raise EditError([f"{self.node!r} is a leaf: only groups have a strategy"])
        if self.strategy not in STRATEGIES:
            raise EditError([f"strategy must be one of {', '.join(STRATEGIES)}"])
        node["strategy"] = self.strategy


@dataclass(frozen=True)
class SetCheck(_NodeEdit):
    check: Mapping[str, Any]
    name = "set_check"

    def apply(self, index: TreeIndex) -> None:
        node = index.get(self.node)
        if node.get("children"):
            raise EditError([f"{self.node!r} is a group: only leaves have a check"])
        if not isinstance(self.check, Mapping) or not isinstance(self.check.get("kind"), str):
            raise EditError(["check must be an object with a kind"])
        node["check"] = copy.deepcopy(dict(self.check))


@dataclass(frozen=True)
class AddNode:
    parent: str
    description: str
    critical: bool = False
    check: Mapping[str, Any] | None = None
    position: int | None = None
    id: str | None = None
    name = "add_node"

    def apply(self, index: TreeIndex) -> None:
        description = _text(self.description, "description")
        node_id = self.id or index.fresh_id(description)
        if not is_valid_id(node_id):
            raise EditError([f"id {node_id[:70]!r} must be 1-64 characters of a-z, 0-9, _ or -"])
        if node_id in index.nodes:
            raise EditError([f"a node {node_id!r} already exists"])
        check = dict(self.check) if self.check else {"kind": "judge", "claim": description}
        node = {"id": node_id, "description": description, "critical": self.critical}
        index.attach({**node, "check": check}, self.parent, self.position)

    def touched(self) -> set[str]:
        return {self.id} if self.id else set()


@dataclass(frozen=True)
class RemoveNode(_NodeEdit):
    name = "remove_node"

    def apply(self, index: TreeIndex) -> None:
        index.detach(self.node)


@dataclass(frozen=True)
class MoveNode(_NodeEdit):
    parent: str
    position: int | None = None
    name = "move_node"

    def apply(self, index: TreeIndex) -> None:
        index.get(self.parent)
        if self.parent in set(index.subtree_ids(self.node)):
            raise EditError([f"cannot move {self.node!r} under itself or its own descendant"])
        index.attach(index.detach(self.node), self.parent, self.position)


EditOp: TypeAlias = (
    SetDescription | SetCritical | SetStrategy | SetCheck | AddNode | RemoveNode | MoveNode
)


def _field(raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], optional: bool) -> Any:
    value = raw.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise EditError([f"{key} is missing or has the wrong type"])
    return value


_PARSERS: dict[str, Callable[[Mapping[str, Any]], EditOp]] = {
    "set_description": lambda r: SetDescription(
        _field(r, "node", str, False), _field(r, "description", str, False)
    ),
    "set_critical": lambda r: SetCritical(
        _field(r, "node", str, False), _field(r, "critical", bool, False)
    ),
    "set_strategy": lambda r: SetStrategy(
        _field(r, "node", str, False), _field(r, "strategy", str, False)
    ),
    "set_check": lambda r: SetCheck(_field(r, "node", str, False), _field(r, "check", dict, False)),
    "add_node": lambda r: AddNode(
        parent=_field(r, "parent", str, False),
        description=_field(r, "description", str, False),
        critical=bool(_field(r, "critical", bool, True)),
        check=_field(r, "check", dict, True),
        position=_field(r, "position", int, True),
        id=_field(r, "id", str, True),
    ),
    "remove_node": lambda r: RemoveNode(_field(r, "node", str, False)),
    "move_node": lambda r: MoveNode(
        _field(r, "node", str, False),
        _field(r, "parent", str, False),
        _field(r, "position", int, True),
    ),
}
OP_NAMES = tuple(_PARSERS)


def parse_ops(raw: object) -> list[EditOp]:
    """Operations from JSON: `[{"op": "set_critical", "node": "a", "critical": true}, ...]`."""
    if not isinstance(raw, list) or not raw:
        raise EditError(["ops must be a non-empty list"])
    if len(raw) > MAX_OPS:
        raise EditError([f"at most {MAX_OPS} operations per edit"])
    ops: list[EditOp] = []
    for number, item in enumerate(raw, start=1):
        if not isinstance(item, Mapping) or item.get("op") not in _PARSERS:
            raise EditError([f"edit {number}: op must be one of {', '.join(OP_NAMES)}"])
        try:
            ops.append(_PARSERS[item["op"]](item))
        except EditError as exc:
            raise EditError([f"edit {number} ({item['op']}): {exc}"]) from None
    return ops


def op_to_dict(op: EditOp) -> dict[str, Any]:
    fields = {key: value for key, value in op.__dict__.items() if value is not None}
    return {"op": op.name, **fields}


def apply_ops(tree: Mapping[str, Any], ops: Sequence[EditOp]) -> dict[str, Any]:
    """The canonical tree that `ops` make of `tree`; raises EditError, never touches `tree`."""
    work: dict[str, Any] = copy.deepcopy(dict(tree))
    index = TreeIndex(work["root"])
    for number, op in enumerate(ops, start=1):
        try:
            op.apply(index)
        except EditError as exc:
            raise EditError([f"edit {number} ({op.name}): {exc}"]) from None
    try:
        return import_canonical(work).tree.to_dict()
    except RubricError as exc:
        raise EditError(exc.errors) from None
