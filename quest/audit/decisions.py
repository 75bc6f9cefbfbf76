"""How the task-level decisions of a task's N annotators become one final decision.

Annotators see the task's current tree, which another annotator's fix may already have changed,
so each decision names the version it was made on. The task is decided without a reviewer only
when every annotator rejected it, or every annotator accepted the same version (then it is a
fix-and-accept when that version is newer than the one the audit started from). Anything else
is a dispute for a reviewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from quest.audit.taxonomy import Decision

State: TypeAlias = Literal["open", "agreed", "disputed"]


@dataclass(frozen=True)
class Submission:
    decision: Decision
    version: int


@dataclass(frozen=True)
class Outcome:
    state: State
    decision: Decision | None = None
    version: int | None = None


def combine_decisions(
    submissions: Sequence[Submission], *, needed: int, start_version: int
) -> Outcome:
    if len(submissions) < needed:
        return Outcome("open")
    decisions = {s.decision for s in submissions}
    if decisions == {"reject"}:
        return Outcome("agreed", "reject", start_version)
    versions = {s.version for s in submissions}
    if "reject" in decisions or len(versions) != 1:
        return Outcome("disputed")
    [version] = versions
    return Outcome("agreed", "accept" if version == start_version else "fix_accept", version)


def node_consensus(labels: Sequence[str]) -> str | None:
    """The label every annotator gave a node, or None when they differ (or nobody rated it)."""
    distinct = set(labels)
    return next(iter(distinct)) if len(distinct) == 1 else None
