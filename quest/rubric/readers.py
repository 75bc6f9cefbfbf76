"""Field readers for each JSON shape of QUEST-SPEC §1.2 and for canonical JSON.

A reader turns one node's mapping into NodeFields, reporting every wrong type with the node's
path; it never looks below the node itself (the walker does that, iteratively).
"""

from __future__ import annotations

from collections.abc import Mapping

from quest.rubric.errors import ErrorList, quoted
from quest.rubric.model import (
    MAX_EXTRA_DEPTH,
    MAX_NODES,
    MAX_TEXT,
    STRATEGIES,
    Check,
    JSONValue,
    ParamValue,
    Strategy,
)
from quest.rubric.walk import ChildList, NodeFields, measure, node_path, type_name

CANONICAL_KEYS = frozenset(
    {"id", "description", "critical", "strategy", "weight", "children", "check", "name", "extra"}
)
# Keys our QUEST-shape export adds so that a round trip through shape C loses nothing.
QUEST_EXTENSION_KEYS = ("id", "weight", "check")
MAX_PARAM_ITEMS = 200


def text_field(
    data: Mapping[str, object], key: str, path: str, errors: ErrorList, *, cap: int = MAX_TEXT
) -> str | None:
    value = data.get(key)
    if not isinstance(value, str):
        errors.add(f"{path}: {key} must be a string, got {type_name(value)}")
        return None
    if len(value) > cap:
        errors.add(f"{path}: {key} is longer than {cap} characters")
        return None
    return value


def bool_field(data: Mapping[str, object], key: str, path: str, errors: ErrorList) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        errors.add(f"{path}: {key} must be true or false, got {type_name(value)}")
        return False
    return value


def strategy_field(
    value: object, path: str, errors: ErrorList, *, blank_ok: bool
) -> Strategy | None:
    if value is None or (blank_ok and value == ""):
        return None
    for strategy in STRATEGIES:
        if value == strategy:
            return strategy
    shown = quoted(value, 60) if isinstance(value, str) else type_name(value)
    errors.add(f"{path}: unknown strategy {shown} (expected parallel or sequential)")
    return None


def weight_field(value: object, path: str, errors: ErrorList, *, key: str = "weight") -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errors.add(f"{path}: {key} must be an integer, got {type_name(value)}")
        return None
    return value


def check_field(value: object, path: str, errors: ErrorList) -> Check | None:
    """Structure only (a kind and scalar or list-of-scalar params); what each kind needs is
    checked by validate.py, so hand-built trees get the same checks."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        errors.add(f"{path}: check must be an object, got {type_name(value)}")
        return None
    kind = value.get("kind")
    if not isinstance(kind, str) or not kind:
        errors.add(f"{path}: check.kind must be a non-empty string, got {type_name(kind)}")
        return None
    params: dict[str, ParamValue] = {}
    for key, raw in value.items():
        if key == "kind":
            continue
        param = _param(raw)
        if param is None and raw is not None:
            errors.add(f"{path}: check.{key} must be a scalar or a list of scalars")
            continue
        params[str(key)] = param
    if kind == "judge":
        params.setdefault("sources", ())  # so a judge check reads the same with or without it
    return Check(kind, params)


def _param(raw: object) -> ParamValue:
    if raw is None or isinstance(raw, str | bool | int | float):
        return raw
    if isinstance(raw, list) and len(raw) <= MAX_PARAM_ITEMS:
        items = tuple(raw)
        if all(item is None or isinstance(item, str | bool | int | float) for item in items):
            return items
    return None


def extra_fields(
    data: Mapping[str, object],
    known: frozenset[str] | tuple[str, ...],
    path: str,
    errors: ErrorList,
) -> tuple[dict[str, JSONValue], int]:
    """Unknown fields, kept verbatim for lossless export, after a depth and size check."""
    extra: dict[str, JSONValue] = {}
    total = 0
    for key, value in data.items():
        if key in known:
            continue
        size, too_deep, foreign = measure(value, MAX_EXTRA_DEPTH)
        total += size
        if too_deep or foreign:
            why = "nested too deeply" if too_deep else "not JSON"
            errors.add(f"{path}: field {quoted(key, 60)} is {why}")
            continue
        extra[str(key)] = value  # type: ignore[assignment]  # measure() proved it is JSON
    return extra, total


def child_list(value: object, path: str, errors: ErrorList) -> ChildList:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.add(f"{path}: children must be an array, got {type_name(value)}")
        return []
    if len(value) > MAX_NODES:
        errors.add(f"{path}: has more than {MAX_NODES} children")
        return []
    return [(None, child) for child in value]


# -- canonical ---------------------------------------------------------------------------------


def read_canonical(
    key: str | None, data: Mapping[str, object], parent: str, errors: ErrorList
) -> NodeFields | None:
    raw_id = data.get("id")
    if not isinstance(raw_id, str):
        errors.add(f"{parent or 'root'}: id must be a string, got {type_name(raw_id)}")
        return None
    fields = NodeFields(label=raw_id[:200], explicit_id=raw_id[:200])
    path = node_path(parent, fields)
    for unknown in sorted(str(k)[:60] for k in data if k not in CANONICAL_KEYS)[:5]:
        errors.add(f"{path}: unknown field {quoted(unknown)}")
    fields.description = text_field(data, "description", path, errors) or ""
    fields.critical = bool_field(data, "critical", path, errors)
    fields.strategy = strategy_field(data.get("strategy"), path, errors, blank_ok=False)
    fields.weight = weight_field(data.get("weight"), path, errors)
    fields.check = check_field(data.get("check"), path, errors)
    if "name" in data:
        fields.name = text_field(data, "name", path, errors)
    _canonical_shape_rules(data, fields, path, errors)
    extra = data.get("extra", {})
    if not isinstance(extra, Mapping):
        errors.add(f"{path}: extra must be an object, got {type_name(extra)}")
    else:
        fields.extra, fields.extra_size = extra_fields(extra, (), path, errors)
    return fields


def _canonical_shape_rules(
    data: Mapping[str, object], fields: NodeFields, path: str, errors: ErrorList
) -> None:
    if "children" in data:
        if data["children"] == []:
            errors.add(f"{path}: internal node has no children")
        if fields.check is not None:
            errors.add(f"{path}: internal node has a check (only leaves are checked)")
    elif "strategy" in data:
        errors.add(f"{path}: leaf has a strategy (only internal nodes aggregate)")


def children_canonical(data: Mapping[str, object], path: str, errors: ErrorList) -> ChildList:
    return child_list(data.get("children"), path, errors)


# -- shapes B and C (node_name, aggregation_strategy) ------------------------------------------

QUEST_NODE_KEYS = frozenset(
    {
        "node_name",
        "description",
        "critical",
        "aggregation_strategy",
        "children",
        *QUEST_EXTENSION_KEYS,
    }
)


def read_quest_node(
    key: str | None, data: Mapping[str, object], parent: str, errors: ErrorList
) -> NodeFields | None:
    name = data.get("node_name")
    if not isinstance(name, str) or not name.strip():
        errors.add(
            f"{parent or 'root'}: node_name must be a non-empty string, got {type_name(name)}"
        )
        return None
    fields, path = _quest_common(name[:MAX_TEXT], data, parent, errors)
    fields.description = text_field(data, "description", path, errors) or ""
    fields.strategy = strategy_field(data.get("aggregation_strategy"), path, errors, blank_ok=True)
    _check_quest_flags(data, fields, path, errors)
    fields.extra, fields.extra_size = extra_fields(data, QUEST_NODE_KEYS, path, errors)
    return fields


def _quest_common(
    label: str, data: Mapping[str, object], parent: str, errors: ErrorList
) -> tuple[NodeFields, str]:
    fields = NodeFields(label=label, name=label)
    raw_id = data.get("id")
    if raw_id is not None:
        if isinstance(raw_id, str):
            fields.explicit_id = raw_id[:200]
        else:
            errors.add(f"{parent or 'root'}: id must be a string, got {type_name(raw_id)}")
    path = node_path(parent, fields)
    fields.critical = bool_field(data, "critical", path, errors)
    fields.weight = weight_field(data.get("weight"), path, errors)
    fields.check = check_field(data.get("check"), path, errors)
    return fields, path


def _check_quest_flags(
    data: Mapping[str, object], fields: NodeFields, path: str, errors: ErrorList
) -> None:
    """is_leaf and critical_type are kept as extras (QUEST files carry them) but must agree
    with the structure and with `critical`, or the file says two different things."""
    has_children = bool(data.get("children"))
    is_leaf = data.get("is_leaf")
    if is_leaf is not None and not isinstance(is_leaf, bool):
        errors.add(f"{path}: is_leaf must be true or false, got {type_name(is_leaf)}")
    elif is_leaf is True and has_children:
        errors.add(f"{path}: is_leaf is true but the node has children")
    elif is_leaf is False and not has_children:
        errors.add(f"{path}: internal node has no children")
    critical_type = data.get("critical_type")
    if critical_type is not None:
        expected = "CRITICAL" if fields.critical else "NON-CRITICAL"
        if critical_type != expected:
            shown = (
                quoted(critical_type, 40)
                if isinstance(critical_type, str)
                else type_name(critical_type)
            )
            errors.add(
                f"{path}: critical_type {shown} contradicts critical={str(fields.critical).lower()}"
            )


def children_quest(data: Mapping[str, object], path: str, errors: ErrorList) -> ChildList:
    return child_list(data.get("children"), path, errors)


# -- shape D (name, aggregation) ---------------------------------------------------------------

REFINED_KEYS = frozenset(
    {"name", "description", "critical", "aggregation", "children", *QUEST_EXTENSION_KEYS}
)


def read_refined(
    key: str | None, data: Mapping[str, object], parent: str, errors: ErrorList
) -> NodeFields | None:
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.add(f"{parent or 'root'}: name must be a non-empty string, got {type_name(name)}")
        return None
    fields, path = _quest_common(name[:MAX_TEXT], data, parent, errors)
    if "description" in data:
        fields.description = text_field(data, "description", path, errors) or ""
    else:
        fields.description = name[:MAX_TEXT]
    fields.strategy = strategy_field(data.get("aggregation"), path, errors, blank_ok=True)
    fields.extra, fields.extra_size = extra_fields(data, REFINED_KEYS, path, errors)
    return fields


# -- shape A (keyed by name) -------------------------------------------------------------------

KEYED_KEYS = frozenset(
    {"description", "critical", "aggregation_strategy", "children", *QUEST_EXTENSION_KEYS}
)


def read_keyed(
    key: str | None, data: Mapping[str, object], parent: str, errors: ErrorList
) -> NodeFields | None:
    label = (key or "root")[:MAX_TEXT]
    fields, path = _quest_common(label, data, parent, errors)
    if "description" in data:
        fields.description = text_field(data, "description", path, errors) or ""
    else:
        fields.description = label
    fields.strategy = strategy_field(data.get("aggregation_strategy"), path, errors, blank_ok=True)
    fields.extra, fields.extra_size = extra_fields(data, KEYED_KEYS, path, errors)
    return fields


def children_keyed(data: Mapping[str, object], path: str, errors: ErrorList) -> ChildList:
    value = data.get("children")
    if value is None or value == []:
        return []
    if not isinstance(value, Mapping):
        errors.add(f"{path}: children must be an object keyed by name, got {type_name(value)}")
        return []
    if len(value) > MAX_NODES:
        errors.add(f"{path}: has more than {MAX_NODES} children")
        return []
    return [(str(key), child) for key, child in value.items()]
