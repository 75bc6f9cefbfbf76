"""The web app's doorway to the rubric engine: canonical dicts in and out, engine errors as
domain errors (so the API and pages report them the same way)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apps.common.errors import Invalid
from apps.common.storable import unstorable
from quest.rubric.errors import RubricError
from quest.rubric.importers import import_canonical
from quest.rubric.importers import import_tree as _import_tree
from quest.rubric.model import RubricTree
from quest.rubric.stats import tree_stats as _tree_stats

ERRORS_IN_MESSAGE = 5


class InvalidTree(Invalid):
    def __init__(self, errors: tuple[str, ...]) -> None:
        shown = "; ".join(errors[:ERRORS_IN_MESSAGE])
        more = len(errors) - ERRORS_IN_MESSAGE
        super().__init__(
            f"invalid rubric tree: {shown}" + (f" (and {more} more)" if more > 0 else "")
        )
        self.errors = errors


@dataclass(frozen=True)
class Checked:
    tree: dict[str, Any]
    shape: str
    notes: tuple[str, ...]


def check_tree(raw: Any) -> Checked:
    """Import a tree in any supported shape and validate it."""
    # NaN, Infinity, lone surrogates and NUL pass the engine but not PostgreSQL.
    problem = unstorable(raw, field="tree")
    if problem is not None:
        raise InvalidTree((problem,))
    try:
        imported = _import_tree(raw)
    except RubricError as exc:
        raise InvalidTree(exc.errors) from exc
    return Checked(tree=imported.tree.to_dict(), shape=imported.shape, notes=imported.notes)


def import_tree(raw: Any) -> dict[str, Any]:
    return check_tree(raw).tree


def load(tree: dict[str, Any]) -> RubricTree:
    """A stored canonical tree back as the engine's model."""
    return import_canonical(tree).tree


def tree_stats(tree: dict[str, Any]) -> dict[str, Any]:
    return _tree_stats(tree)
