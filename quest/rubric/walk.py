"""Reading untrusted JSON trees without trusting their shape, size or depth.

Everything here is iterative: a 10,000-level nesting, a 100 MB string or a cycle built in
Python must end in a RubricError, never in a RecursionError or a hung process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from quest.rubric.errors import ErrorList
from quest.rubric.ids import slugify
from quest.rubric.model import (
    MAX_DEPTH,
    MAX_EXTRA_DEPTH,
    MAX_NODES,
    MAX_PAYLOAD_BYTES,
    Check,
    JSONValue,
    Strategy,
)


@dataclass
class NodeFields:
    """One node's fields, type-checked but not yet checked against the tree's rules."""

    label: str
    explicit_id: str | None = None
    name: str | None = None
    description: str = ""
    critical: bool = False
    strategy: Strategy | None = None
    weight: int | None = None
    check: Check | None = None
    extra: dict[str, JSONValue] = field(default_factory=dict)
    extra_size: int = 0


@dataclass
class RawNode:
    path: str
    fields: NodeFields
    children: list[RawNode] = field(default_factory=list)


ChildList = list[tuple[str | None, object]]
# (key under which the parent held it, node data, path, errors) -> fields or None when unusable
ReadFields = Callable[[str | None, Mapping[str, object], str, ErrorList], NodeFields | None]
# (node data, path, errors) -> children with their keys
ReadChildren = Callable[[Mapping[str, object], str, ErrorList], ChildList]


@dataclass
class Budget:
    """Approximate serialized size of everything read so far, against MAX_PAYLOAD_BYTES."""

    used: int = 0
    exceeded: bool = False

    def charge(self, size: int) -> bool:
        self.used += size
        self.exceeded = self.exceeded or self.used > MAX_PAYLOAD_BYTES
        return not self.exceeded


def measure(value: object, max_depth: int = MAX_EXTRA_DEPTH) -> tuple[int, bool, bool]:
    """(approximate JSON size, nested deeper than max_depth, contains a non-JSON value)."""
    size = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return size, True, False
        if isinstance(item, str):
            size += len(item) + 2
        elif item is None or isinstance(item, bool | int | float):
            size += 8
        elif isinstance(item, list | dict):
            if id(item) in seen:  # a container reachable twice is a cycle or a shared alias
                return size, True, False
            seen.add(id(item))
            size += 2
            if isinstance(item, dict):
                if not all(isinstance(key, str) for key in item):
                    return size, False, True
                size += sum(len(key) + 3 for key in item)
            values = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in values)
            if size > MAX_PAYLOAD_BYTES:
                return size, False, False
        else:
            return size, False, True
    return size, False, False


def shallow_size(data: Mapping[str, object]) -> int:
    """Size of a node's own scalar fields; nested containers are measured where they are read."""
    size = 2
    for key, value in data.items():
        size += len(key) + 3 + (len(value) if isinstance(value, str) else 8)
    return size


def walk(
    root: tuple[str | None, object],
    root_path: str,
    read_fields: ReadFields,
    read_children: ReadChildren,
    errors: ErrorList,
) -> RawNode | None:
    """Read a tree breadth of any shape into RawNodes, iteratively, stopping at the limits."""
    budget = Budget()
    holder = RawNode(path="", fields=NodeFields(label=""))
    stack: list[tuple[RawNode, str | None, object, int, str]] = [
        (holder, root[0], root[1], 1, root_path)
    ]
    seen: set[int] = set()
    count = 0
    while stack and not errors.full:
        parent, key, data, depth, parent_path = stack.pop()
        count += 1
        if count > MAX_NODES:
            errors.add(f"tree has more than {MAX_NODES} nodes")
            break
        node = _read_node(key, data, depth, parent_path, read_fields, errors, seen)
        if node is None:
            continue
        if not budget.charge(_node_size(data) + node.fields.extra_size):
            errors.add(f"payload is larger than {MAX_PAYLOAD_BYTES} bytes")
            break
        parent.children.append(node)
        assert isinstance(data, Mapping)  # _read_node returned a node, so data is a mapping
        for child_key, child in reversed(read_children(data, node.path, errors)):
            stack.append((node, child_key, child, depth + 1, node.path))
    return holder.children[0] if holder.children and not errors else None


def _read_node(
    key: str | None,
    data: object,
    depth: int,
    parent_path: str,
    read_fields: ReadFields,
    errors: ErrorList,
    seen: set[int],
) -> RawNode | None:
    guess = slugify(key) if key else "?"
    where = f"{parent_path}/{guess}" if parent_path else guess
    if depth > MAX_DEPTH:
        errors.add(f"{parent_path}: tree is deeper than {MAX_DEPTH} levels")
        return None
    if not isinstance(data, Mapping):
        errors.add(f"{where}: node must be an object, got {type_name(data)}")
        return None
    if id(data) in seen:
        errors.add(f"{parent_path}: node appears twice (a cycle or a shared subtree)")
        return None
    seen.add(id(data))
    fields = read_fields(key, data, parent_path, errors)
    if fields is None:
        return None
    return RawNode(path=node_path(parent_path, fields), fields=fields)


def node_path(parent_path: str, fields: NodeFields) -> str:
    label = fields.explicit_id or slugify(fields.label)
    return f"{parent_path}/{label}" if parent_path else label


def _node_size(data: object) -> int:
    return shallow_size(data) if isinstance(data, Mapping) else 8


def type_name(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "object"
    return names.get(type(value), type(value).__name__)


def preorder(root: RawNode) -> list[RawNode]:
    out: list[RawNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out
