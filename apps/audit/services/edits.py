"""Tree edits made while auditing: each saved edit is a new immutable rubric version.

Edits arrive as operations against the version the annotator sees. If someone saved a newer
version meanwhile the edit is refused with EditConflict (HTTP 409) naming that version and
saying whether a merge can work: the operations replay on the newer version only when they
touch none of the nodes the other edit changed. Asked again with `merge`, they are replayed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.services.claims import assignment_owned, ensure_in_progress, hold_slot
from apps.audit.services.submissions import task_version
from apps.common.errors import Conflict, Invalid
from apps.rubrics import services as rubric_services
from apps.rubrics.models import RubricVersion, Task
from quest.audit import EditError, MergeConflict, apply_ops, parse_ops, rebase_ops
from quest.audit.edits import EditOp
from quest.rubric.diff import Change, diff_trees


class EditConflict(Conflict):
    """The tree moved on since the edit's base version."""

    def __init__(
        self,
        message: str,
        *,
        current: RubricVersion,
        nodes: tuple[str, ...] = (),
        mergeable: bool = False,
    ):
        super().__init__(message)
        self.current_version = current.number
        self.current_author = current.author.username if current.author else None
        self.nodes = nodes
        # Whether asking again with `merge` would save the edit, so a page offers it only then.
        self.mergeable = mergeable


@dataclass(frozen=True)
class EditResult:
    version: RubricVersion
    changes: list[Change]
    merged: bool


def _note(ops: list[EditOp], note: str) -> str:
    if note.strip():
        return note.strip()[:500]
    described = "; ".join(
        f"{op.name} {getattr(op, 'node', getattr(op, 'parent', ''))}" for op in ops
    )
    return f"audit edit: {described}"[:500]


def _edited_tree(
    ops: list[EditOp], base: RubricVersion, current: RubricVersion, merge: bool
) -> dict[str, Any]:
    if current.pk == base.pk:
        return apply_ops(base.tree, ops)
    who = f" by {current.author.username}" if current.author else ""
    moved = f"version {current.number} was saved{who} while you edited version {base.number}"
    # The merge is tried before it is offered: offering one that then fails loses the user's
    # time and, in a page that forgets the form, their text.
    try:
        tree = rebase_ops(ops, base=base.tree, current=current.tree)
    except MergeConflict as exc:
        raise EditConflict(
            f"{moved}, and your edit cannot be merged into it ({exc.reason}): reload the tree "
            "and redo your edit",
            current=current,
            nodes=exc.nodes,
        ) from exc
    if not merge:
        raise EditConflict(
            f"{moved}; it changed other nodes than yours: merge your edit into it, or reload",
            current=current,
            mergeable=True,
        )
    return tree


def _locked_task(task_id: int) -> Task:
    return (
        Task.objects.select_for_update(of=("self",))
        .select_related("current_version__author")
        .get(pk=task_id)
    )


@transaction.atomic
def assignment_edit(
    *,
    user: User,
    assignment_id: int,
    base_version: int,
    ops: Any,
    note: str = "",
    merge: bool = False,
) -> EditResult:
    assignment = assignment_owned(user, assignment_id)
    ensure_in_progress(assignment)
    hold_slot(assignment, timezone.now())
    assignment.save(update_fields=["lock_expires_at"])
    try:
        parsed = parse_ops(ops)
    except EditError as exc:
        raise Invalid(str(exc)) from exc
    task = _locked_task(assignment.item.task_id)
    current = task.current_version
    assert current is not None  # campaign items are made only from tasks with a tree
    base = task_version(task.pk, base_version)
    try:
        tree = _edited_tree(parsed, base, current, merge)
    except EditError as exc:
        raise Invalid(f"the edit makes an invalid tree: {exc}") from exc
    version = rubric_services.version_create(
        user=user, task_id=task.pk, tree=tree, note=_note(parsed, note), base_number=current.number
    )
    return EditResult(version, diff_trees(current.tree, version.tree), current.pk != base.pk)


@transaction.atomic
def assignment_revert(
    *, user: User, assignment_id: int, base_version: int, to_version: int
) -> EditResult:
    """Undo an edit: save the tree of `to_version` again as a new version on top of
    `base_version`, refused if someone saved another version meanwhile."""
    assignment = assignment_owned(user, assignment_id)
    ensure_in_progress(assignment)
    task = _locked_task(assignment.item.task_id)
    current = task.current_version
    assert current is not None
    if current.number != base_version:
        raise EditConflict(
            f"version {current.number} was saved after yours; undoing now would discard it — "
            "reload and edit instead",
            current=current,
        )
    target = task_version(task.pk, to_version)
    version = rubric_services.version_create(
        user=user,
        task_id=task.pk,
        tree=target.tree,
        note=f"undo: back to version {to_version}",
        base_number=current.number,
    )
    return EditResult(version, diff_trees(current.tree, version.tree), False)
