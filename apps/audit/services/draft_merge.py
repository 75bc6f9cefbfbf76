"""Comparing two drafts of one audit against the revision both started from.

Pure (no Django): a draft here is `{"verdicts": {node: label}, "decision": str, "comment": str}`
as `drafts.clean_draft` leaves it. A node (or the task's decision or comment) is *changed here*
when the incoming draft differs from the base revision, *changed elsewhere* when the stored one
does. One-sided changes merge by themselves; a change on both sides is a conflict the annotator
settles. Without the base revision (too old to be kept) every difference counts as a conflict:
guessing could drop someone's work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

TASK_FIELDS = ("decision", "comment")


@dataclass(frozen=True)
class Difference:
    """One node's label, or one task field, that differs between the two drafts. A label is a
    dict (`{verdict, error_type?, comment?}`) or None for "nothing said"."""

    key: str
    mine: Any
    theirs: Any
    changed_here: bool
    changed_elsewhere: bool

    @property
    def conflict(self) -> bool:
        return self.changed_here and self.changed_elsewhere

    def to_dict(self, name: str) -> dict[str, Any]:
        return {
            name: self.key,
            "mine": self.mine,
            "theirs": self.theirs,
            "changed_here": self.changed_here,
            "changed_elsewhere": self.changed_elsewhere,
            "conflict": self.conflict,
        }


@dataclass(frozen=True)
class DraftComparison:
    nodes: tuple[Difference, ...]
    fields: tuple[Difference, ...]
    # Theirs with every one-sided change of mine applied; conflicts keep theirs until settled.
    merged: dict[str, Any]

    @property
    def conflicts(self) -> tuple[Difference, ...]:
        return tuple(d for d in (*self.nodes, *self.fields) if d.conflict)


def _keys(*maps: Mapping[str, Any]) -> list[str]:
    """Every key, in order of first appearance."""
    return list(dict.fromkeys(key for m in maps for key in m))


def _differences(
    keys: Iterable[str],
    mine: Mapping[str, Any],
    theirs: Mapping[str, Any],
    base: Mapping[str, Any] | None,
) -> tuple[Difference, ...]:
    found = []
    for key in keys:
        m, t = mine.get(key), theirs.get(key)
        if m == t:
            continue
        here = base is None or m != base.get(key)
        elsewhere = base is None or t != base.get(key)
        found.append(Difference(key, m, t, here, elsewhere))
    return tuple(found)


def _task_fields(draft: Mapping[str, Any]) -> dict[str, str]:
    return {name: draft.get(name) or "" for name in TASK_FIELDS}


def _merged(
    theirs: Mapping[str, Any], nodes: Iterable[Difference], fields: Iterable[Difference]
) -> dict[str, Any]:
    verdicts = dict(theirs.get("verdicts") or {})
    for node in nodes:
        if node.changed_here and not node.changed_elsewhere:
            if node.mine is None:
                verdicts.pop(node.key, None)
            else:
                verdicts[node.key] = node.mine
    task = _task_fields(theirs)
    for field in fields:
        if field.changed_here and not field.changed_elsewhere:
            task[field.key] = field.mine
    return {"verdicts": verdicts, **task, "version": theirs.get("version")}


def compare_drafts(
    *, base: Mapping[str, Any] | None, mine: Mapping[str, Any], theirs: Mapping[str, Any]
) -> DraftComparison:
    """What differs between `mine` (a save based on `base`) and `theirs` (the stored draft)."""
    mine_v, theirs_v = mine.get("verdicts") or {}, theirs.get("verdicts") or {}
    base_v = None if base is None else base.get("verdicts") or {}
    nodes = _differences(_keys(mine_v, theirs_v), mine_v, theirs_v, base_v)
    base_f = None if base is None else _task_fields(base)
    fields = _differences(TASK_FIELDS, _task_fields(mine), _task_fields(theirs), base_f)
    return DraftComparison(nodes, fields, _merged(theirs, nodes, fields))
