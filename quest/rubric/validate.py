"""The rules every rubric tree must satisfy, with errors named by node path.

validate_tree() walks iteratively and stops descending past MAX_DEPTH, so it is safe on trees
built in Python as well as on imported ones. It returns at most MAX_ERRORS messages such as
`root/patent_0/patent_0_constraints: critical parent has non-critical child "x"`.
"""

from __future__ import annotations

from collections.abc import Mapping

from quest.rubric.checkspec import check_problems
from quest.rubric.errors import ErrorList, RubricError, quoted
from quest.rubric.ids import is_valid_id
from quest.rubric.model import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_TASK_TEXT,
    MAX_TEXT,
    POINTS_RANGE,
    SCORING_MODES,
    STRATEGIES,
    Check,
    Node,
    RubricTree,
)
from quest.rubric.walk import measure, type_name


def validate_tree(tree: RubricTree) -> list[str]:
    errors = ErrorList()
    if tree.scoring not in SCORING_MODES:
        errors.add(f"scoring {str(tree.scoring)[:40]!r} is not one of {', '.join(SCORING_MODES)}")
    if not isinstance(tree.task_description, str) or len(tree.task_description) > MAX_TASK_TEXT:
        errors.add(f"task_description must be a string of at most {MAX_TASK_TEXT} characters")
    if not isinstance(tree.root, Node):
        errors.add(f"root must be a Node, got {type_name(tree.root)}")
        return errors.items
    _walk(tree, errors)
    if tree.scoring == "points" and not errors:
        _points_rules(tree.root, errors)
    return errors.items


def check_tree(tree: RubricTree) -> None:
    problems = validate_tree(tree)
    if problems:
        raise RubricError(problems)


def _walk(tree: RubricTree, errors: ErrorList) -> None:
    first_seen: dict[str, str] = {}
    seen_objects: set[int] = set()
    stack: list[tuple[Node, str, int]] = [(tree.root, "", 1)]
    count = 0
    while stack and not errors.full:
        node, parent_path, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            errors.add(f"tree has more than {MAX_NODES} nodes")
            return
        if not isinstance(node, Node):
            errors.add(f"{parent_path}: child must be a Node, got {type_name(node)}")
            continue
        path = f"{parent_path}/{node.id}" if parent_path else str(node.id)
        if id(node) in seen_objects:
            errors.add(f"{path}: node appears twice (a cycle or a shared subtree)")
            continue
        seen_objects.add(id(node))
        if depth > MAX_DEPTH:
            errors.add(f"{parent_path}: tree is deeper than {MAX_DEPTH} levels")
            continue
        _node_rules(node, path, tree.scoring, errors, first_seen)
        stack.extend((child, path, depth + 1) for child in reversed(node.children))


def _node_rules(
    node: Node, path: str, scoring: str, errors: ErrorList, first_seen: dict[str, str]
) -> None:
    _identity(node, path, errors, first_seen)
    _text_fields(node, path, errors)
    if not isinstance(node.critical, bool):
        errors.add(f"{path}: critical must be true or false, got {type_name(node.critical)}")
    if node.strategy not in STRATEGIES:
        shown = str(node.strategy)[:40]
        errors.add(f"{path}: unknown strategy {quoted(shown)} (expected parallel or sequential)")
    _weight(node, path, scoring, errors)
    if node.children:
        _internal(node, path, scoring, errors)
    else:
        _leaf(node, path, errors)
    if node.extra:
        _, too_deep, foreign = measure(dict(node.extra))
        if too_deep or foreign:
            errors.add(f"{path}: extra fields must be JSON nested at most a few levels")


def _identity(node: Node, path: str, errors: ErrorList, first_seen: dict[str, str]) -> None:
    if not isinstance(node.id, str) or not is_valid_id(node.id):
        shown = quoted(node.id, 70)
        errors.add(
            f"{path}: id {shown} must be 1-64 characters of a-z, 0-9, _ or -, starting alnum"
        )
        return
    if node.id in first_seen:
        errors.add(f"{path}: duplicate id {quoted(node.id)} (also at {first_seen[node.id]})")
    else:
        first_seen[node.id] = path


def _text_fields(node: Node, path: str, errors: ErrorList) -> None:
    if not isinstance(node.description, str):
        errors.add(f"{path}: description must be a string, got {type_name(node.description)}")
    elif not node.description.strip():
        errors.add(f"{path}: description is empty")
    elif len(node.description) > MAX_TEXT:
        errors.add(f"{path}: description is longer than {MAX_TEXT} characters")
    if node.name is not None and (not isinstance(node.name, str) or len(node.name) > MAX_TEXT):
        errors.add(f"{path}: name must be a string of at most {MAX_TEXT} characters")


def _weight(node: Node, path: str, scoring: str, errors: ErrorList) -> None:
    weight = node.weight
    if weight is None:
        return
    if isinstance(weight, bool) or not isinstance(weight, int):
        errors.add(f"{path}: weight must be an integer, got {type_name(weight)}")
    elif scoring == "quest":
        errors.add(f"{path}: weight given but scoring is quest (use weighted or points)")
    elif scoring == "weighted" and weight < 0:
        errors.add(f"{path}: weight must not be negative, got {weight}")


def _internal(node: Node, path: str, scoring: str, errors: ErrorList) -> None:
    if node.check is not None:
        errors.add(f"{path}: internal node has a check (only leaves are checked)")
    children = [child for child in node.children if isinstance(child, Node)]
    if node.critical is True:
        for child in children:
            if child.critical is not True:
                errors.add(f"{path}: critical parent has non-critical child {quoted(child.id)}")
    if scoring == "weighted":
        light = [c for c in children if not c.critical and isinstance(c.weight, int)]
        scored = [c for c in children if not c.critical]
        if scored and len(light) == len(scored) and sum(c.weight or 0 for c in light) == 0:
            errors.add(f"{path}: non-critical children all have weight 0")


def _leaf(node: Node, path: str, errors: ErrorList) -> None:
    if node.check is None:
        errors.add(f"{path}: leaf has no check")
        return
    if not isinstance(node.check, Check) or not isinstance(node.check.params, Mapping):
        errors.add(f"{path}: check must be a Check, got {type_name(node.check)}")
        return
    for problem in check_problems(node.check):
        errors.add(f"{path}: {problem}")


def _points_rules(root: Node, errors: ErrorList) -> None:
    """Points trees are flat criteria lists: the HealthBench formula has no notion of depth,
    criticality or order, so refuse trees that would need one."""
    if root.is_leaf or root.strategy != "parallel":
        errors.add(f"{root.id}: a points tree needs a parallel root with criteria as leaves")
        return
    low, high = POINTS_RANGE
    for child in root.children:
        path = f"{root.id}/{child.id}"
        if not child.is_leaf:
            errors.add(f"{path}: points trees are flat; criteria cannot have children")
        if child.critical:
            errors.add(f"{path}: points criteria cannot be critical")
        if child.weight is None or not low <= child.weight <= high or child.weight == 0:
            errors.add(f"{path}: points must be a non-zero integer from {low} to {high}")
    if sum(max(child.weight or 0, 0) for child in root.children) <= 0:
        errors.add(f"{root.id}: a points tree needs at least one criterion with positive points")
