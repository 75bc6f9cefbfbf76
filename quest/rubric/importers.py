"""Import every rubric shape of QUEST-SPEC §1.2 (plus canonical JSON and flat criteria lists)
into one RubricTree, and export canonical JSON or QUEST's task-file shape C.

Shapes (auto-detected):
  canonical  {"format": "questweb.rubric/1", "scoring", "task_description"?, "root": {id, ...}}
  A          {"Name": {"description", "critical", "aggregation_strategy"?, "children": {...}}}
  B          {"node_name", "description", "critical", "critical_type", "aggregation_strategy",
              "children"}
  C          {"task_description", "rubric_tree": <B-like node>}
  D          {"name", "critical", "aggregation", "children"}
  criteria   [{"criterion", "points"}] or {"criteria": [...], "task_description"?}

Leaves from the QUEST shapes carry no check; like QUEST, they get a `judge` check whose claim
is the description. Ids come from the labels, made unique by suffixes, and every rename is
reported in `ImportedTree.notes`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from quest.rubric import readers
from quest.rubric.errors import ErrorList, RubricError, quoted
from quest.rubric.ids import derive_ids, slugify
from quest.rubric.model import (
    FORMAT,
    MAX_NODES,
    MAX_PAYLOAD_BYTES,
    MAX_TASK_TEXT,
    MAX_TEXT,
    SCORING_MODES,
    Check,
    JSONValue,
    Node,
    RubricTree,
    Scoring,
)
from quest.rubric.validate import validate_tree
from quest.rubric.walk import (
    NodeFields,
    RawNode,
    ReadChildren,
    ReadFields,
    preorder,
    type_name,
    walk,
)

Shape: TypeAlias = Literal["canonical", "A", "B", "C", "D", "criteria"]
SHAPES: tuple[Shape, ...] = ("canonical", "A", "B", "C", "D", "criteria")

CANONICAL_TOP_KEYS = frozenset({"format", "scoring", "task_description", "root", "extra"})
TASK_FILE_KEYS = ("task_description", "rubric_tree", "scoring")


@dataclass(frozen=True)
class ImportedTree:
    tree: RubricTree
    shape: Shape
    notes: tuple[str, ...] = ()


def loads_tree(text: str | bytes) -> ImportedTree:
    """Parse JSON text of any supported shape. Raises RubricError, never RecursionError."""
    if len(text) > MAX_PAYLOAD_BYTES:
        raise RubricError([f"payload is larger than {MAX_PAYLOAD_BYTES} bytes"])
    try:
        data = json.loads(text)
    except RecursionError:
        raise RubricError(["JSON is nested too deeply"]) from None
    except ValueError as exc:
        raise RubricError([f"invalid JSON: {exc}"]) from None
    return import_tree(data)


def load_tree_file(path: str | Path) -> ImportedTree:
    return loads_tree(read_capped(Path(path)))


def read_capped(path: Path, limit: int = MAX_PAYLOAD_BYTES) -> bytes:
    """Read at most limit bytes; a bigger file is refused without loading it whole."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise RubricError([f"payload is larger than {limit} bytes"])
    return data


# (test, shape) in order: the first matching test names the shape of a JSON object.
_SHAPE_TESTS: tuple[tuple[Callable[[Mapping[str, object]], bool], Shape], ...] = (
    (lambda data: "format" in data, "canonical"),
    (lambda data: "rubric_tree" in data, "C"),
    (lambda data: isinstance(data.get("criteria"), list), "criteria"),
    (lambda data: "node_name" in data, "B"),
    (lambda data: isinstance(data.get("name"), str), "D"),
    (lambda data: bool(data) and all(isinstance(v, Mapping) for v in data.values()), "A"),
)


def detect_shape(data: object) -> Shape:
    if isinstance(data, list):
        return "criteria"
    if not isinstance(data, Mapping):
        raise RubricError([f"expected a JSON object or array, got {type_name(data)}"])
    for test, shape in _SHAPE_TESTS:
        if test(data):
            return shape
    raise RubricError(
        ["unrecognised rubric shape (expected canonical JSON, QUEST shapes A-D or a criteria list)"]
    )


def import_tree(data: object) -> ImportedTree:
    """Import any supported shape; raises RubricError listing every problem found."""
    shape = detect_shape(data)
    if shape == "canonical":
        return import_canonical(data)
    if shape == "criteria":
        return _import_criteria(data)
    if shape == "C":
        assert isinstance(data, Mapping)
        return _import_task_file(data)
    if shape == "A":
        assert isinstance(data, Mapping)
        root, notes = _keyed_root(data)
        return _finish(shape, root, readers.read_keyed, readers.children_keyed, notes=notes)
    reader = readers.read_quest_node if shape == "B" else readers.read_refined
    return _finish(shape, (None, data), reader, readers.children_quest)


def import_canonical(data: object) -> ImportedTree:
    if not isinstance(data, Mapping):
        raise RubricError([f"expected a JSON object, got {type_name(data)}"])
    errors = ErrorList()
    if data.get("format") != FORMAT:
        shown = quoted(data.get("format"), 60)
        errors.add(f"format {shown} is not supported (expected {FORMAT!r})")
    for unknown in sorted(str(key)[:60] for key in data if key not in CANONICAL_TOP_KEYS)[:5]:
        errors.add(f"unknown top-level field {quoted(unknown)}")
    extra = data.get("extra", {})
    if not isinstance(extra, Mapping):
        errors.add(f"extra must be an object, got {type_name(extra)}")
        extra = {}
    top_extra, _ = readers.extra_fields(extra, (), "extra", errors)
    errors.raise_if_any()
    return _finish(
        "canonical",
        (None, data.get("root")),
        readers.read_canonical,
        readers.children_canonical,
        scoring=data.get("scoring", "quest"),
        task=data.get("task_description", ""),
        top_extra=top_extra,
        default_checks=False,
    )


def _import_task_file(data: Mapping[str, object]) -> ImportedTree:
    errors = ErrorList()
    top_extra, _ = readers.extra_fields(data, TASK_FILE_KEYS, "task file", errors)
    errors.raise_if_any()
    rubric = data.get("rubric_tree")
    reader: ReadFields = readers.read_quest_node
    if isinstance(rubric, Mapping) and "node_name" not in rubric and "name" in rubric:
        reader = readers.read_refined
    return _finish(
        "C",
        (None, rubric),
        reader,
        readers.children_quest,
        scoring=data.get("scoring", "quest"),
        task=data.get("task_description", ""),
        top_extra=top_extra,
    )


def _keyed_root(data: Mapping[str, object]) -> tuple[tuple[str | None, object], list[str]]:
    if len(data) == 1:
        ((key, value),) = data.items()
        return (str(key), value), []
    wrapper = {"description": "root", "children": data}
    return ("root", wrapper), [f"root: {len(data)} top-level nodes; wrapped under a parallel root"]


def _import_criteria(data: object) -> ImportedTree:
    errors = ErrorList()
    task: object = ""
    items = data
    if isinstance(data, Mapping):
        task = data.get("task_description", "")
        items = data.get("criteria")
    assert isinstance(items, list)
    if len(items) >= MAX_NODES:
        raise RubricError([f"tree has more than {MAX_NODES} nodes"])
    leaves = [leaf for i, item in enumerate(items) if (leaf := _criterion(i, item, errors))]
    errors.raise_if_any()
    description = task if isinstance(task, str) and task else "Rubric criteria"
    root_fields = NodeFields(label="root", description=description[:MAX_TEXT], strategy="parallel")
    root = RawNode(path="root", fields=root_fields, children=leaves)
    return _build("criteria", root, scoring="points", task=task, top_extra={}, default_checks=True)


CRITERION_KEYS = frozenset({"criterion", "points", "id", "check"})


def _criterion(index: int, item: object, errors: ErrorList) -> RawNode | None:
    where = f"root/criteria[{index}]"
    if not isinstance(item, Mapping):
        errors.add(f"{where}: criterion must be an object, got {type_name(item)}")
        return None
    text = readers.text_field(item, "criterion", where, errors)
    if text is None:
        return None
    fields = NodeFields(label=text, name=text, description=text)
    raw_id = item.get("id")
    fields.explicit_id = raw_id if isinstance(raw_id, str) else None
    path = f"root/{fields.explicit_id or slugify(text)}"
    fields.weight = readers.weight_field(item.get("points"), path, errors, key="points")
    if fields.weight is None and "points" not in item:
        errors.add(f"{path}: points are missing")
    fields.check = readers.check_field(item.get("check"), path, errors)
    fields.extra, fields.extra_size = readers.extra_fields(item, CRITERION_KEYS, path, errors)
    return RawNode(path=path, fields=fields)


def _finish(
    shape: Shape,
    root: tuple[str | None, object],
    read_fields: ReadFields,
    read_children: ReadChildren,
    *,
    scoring: object = "quest",
    task: object = "",
    top_extra: dict[str, JSONValue] | None = None,
    default_checks: bool = True,
    notes: list[str] | None = None,
) -> ImportedTree:
    errors = ErrorList()
    raw = walk(root, "", read_fields, read_children, errors)
    errors.raise_if_any()
    assert raw is not None
    imported = _build(
        shape,
        raw,
        scoring=scoring,
        task=task,
        top_extra=top_extra or {},
        default_checks=default_checks,
    )
    return ImportedTree(imported.tree, shape, tuple(notes or ()) + imported.notes)


def _build(
    shape: Shape,
    raw_root: RawNode,
    *,
    scoring: object,
    task: object,
    top_extra: dict[str, JSONValue],
    default_checks: bool,
) -> ImportedTree:
    errors = ErrorList()
    mode = _scoring(scoring, errors)
    if not isinstance(task, str) or len(task) > MAX_TASK_TEXT:
        errors.add(f"task_description must be a string of at most {MAX_TASK_TEXT} characters")
        task = ""
    errors.raise_if_any()
    root, notes = _nodes(raw_root, default_checks)
    tree = RubricTree(root=root, scoring=mode, task_description=str(task), extra=top_extra)
    problems = validate_tree(tree)
    if problems:
        raise RubricError(problems)
    return ImportedTree(tree, shape, tuple(notes))


def _scoring(value: object, errors: ErrorList) -> Scoring:
    for mode in SCORING_MODES:
        if value == mode:
            return mode
    shown = quoted(value, 60) if isinstance(value, str) else type_name(value)
    errors.add(f"scoring {shown} is not one of {', '.join(SCORING_MODES)}")
    return "quest"


def _nodes(raw_root: RawNode, default_checks: bool) -> tuple[Node, list[str]]:
    """Build Nodes bottom-up over the (depth-checked) raw tree, deriving unique ids."""
    order = preorder(raw_root)
    ids, renamed = derive_ids(
        [raw.fields.label for raw in order], [raw.fields.explicit_id for raw in order]
    )
    notes = [
        f"{order[pos].path}: id {quoted(base)} is already used; renamed to {quoted(ids[pos])}"
        for pos, base in renamed
    ]
    position = {id(raw): pos for pos, raw in enumerate(order)}
    built: list[Node | None] = [None] * len(order)
    for pos in reversed(range(len(order))):
        raw = order[pos]
        children = tuple(_built(built, position[id(child)]) for child in raw.children)
        built[pos] = _node(raw.fields, ids[pos], children, default_checks)
    return _built(built, 0), notes


def _built(built: list[Node | None], pos: int) -> Node:
    node = built[pos]
    assert node is not None  # children come after their parent in pre-order
    return node


def _node(
    fields: NodeFields, node_id: str, children: tuple[Node, ...], default_checks: bool
) -> Node:
    check = fields.check
    if check is None and not children and default_checks:
        check = Check.judge(fields.description)
    return Node(
        id=node_id,
        description=fields.description,
        critical=fields.critical,
        strategy=fields.strategy or "parallel",
        weight=fields.weight,
        children=children,
        check=check,
        name=fields.name if fields.name != node_id else None,
        extra=fields.extra,
    )


# -- export ------------------------------------------------------------------------------------


def export_canonical(tree: RubricTree) -> dict[str, JSONValue]:
    return tree.to_dict()


def export_quest(tree: RubricTree) -> dict[str, JSONValue]:
    """QUEST's task-file shape C. Fields QUEST does not know (non-default checks, weights,
    ids that the labels would not reproduce, the scoring mode) are added as extra keys so that
    importing the result gives back the same tree."""
    explicit = _ids_to_spell_out(tree)
    out: dict[str, JSONValue] = {
        "task_description": tree.task_description,
        "rubric_tree": _export_node(tree.root, explicit),
    }
    if tree.scoring != "quest":
        out["scoring"] = tree.scoring
    for key, value in tree.extra.items():
        out.setdefault(key, value)
    return out


def _ids_to_spell_out(tree: RubricTree) -> set[str]:
    nodes = list(tree.nodes())
    labels = [node.label for node in nodes]
    derived, _ = derive_ids(labels, [None] * len(nodes))
    spelled = {node.id for node, got in zip(nodes, derived, strict=True) if got != node.id}
    if not spelled:
        return spelled
    derived, _ = derive_ids(labels, [node.id if node.id in spelled else None for node in nodes])
    if any(got != node.id for node, got in zip(nodes, derived, strict=True)):
        return {node.id for node in nodes}
    return spelled


def _export_node(node: Node, explicit: set[str]) -> dict[str, JSONValue]:
    out: dict[str, JSONValue] = {
        "node_name": node.label,
        "description": node.description,
        "critical": node.critical,
    }
    if node.children:
        out["aggregation_strategy"] = node.strategy
        out["children"] = [_export_node(child, explicit) for child in node.children]
    elif node.check is not None and node.check != Check.judge(node.description):
        out["check"] = node.check.to_dict()
    if node.weight is not None:
        out["weight"] = node.weight
    if node.id in explicit:
        out["id"] = node.id
    for key, value in node.extra.items():
        out.setdefault(key, value)
    return out
