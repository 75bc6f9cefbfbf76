"""Drafts: an annotator's unsubmitted verdicts, comments and decision, kept on the server as they
work (which also keeps their lock alive).

A draft has a revision, raised by every accepted save, and every save names the revision it was
based on. The check and the write happen under the assignment's row lock, so of two saves based
on the same revision exactly one is accepted. The other, like any save or submission from a tab
or device that fell behind, is refused with DraftConflict (HTTP 409) carrying the stored draft
and a three-way comparison against the revision it was based on, for the page to merge node by
node: nobody's work is overwritten without them seeing it.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.models import Assignment, DraftRevision
from apps.audit.services.claims import assignment_owned, ensure_in_progress, hold_slot
from apps.audit.services.draft_merge import DraftComparison, compare_drafts
from apps.common.errors import Conflict, Invalid
from quest.audit.labels import MAX_COMMENT, parse_draft_label
from quest.audit.taxonomy import DECISIONS

MAX_DRAFT_BYTES = 2_000_000
# Earlier revisions kept for three-way merges. A tab further behind than this still merges, but
# every difference becomes the annotator's call.
KEPT_REVISIONS = 50


class DraftConflict(Conflict):
    """The draft was saved elsewhere after the revision a save or submission was based on."""

    def __init__(
        self, assignment: Assignment, base_revision: int, comparison: DraftComparison
    ) -> None:
        super().__init__(
            f"revision {assignment.draft_revision} of this draft was saved in another tab or on "
            f"another device while you worked on revision {base_revision}: merge your "
            "changes into it"
        )
        self.draft_revision = assignment.draft_revision
        self.base_revision = base_revision
        self.draft = assignment.draft
        self.comparison = comparison


def clean_draft(draft: Any) -> dict[str, Any]:
    """A draft may be incomplete, but what it holds must be well formed and bounded."""
    if not isinstance(draft, dict):
        raise Invalid("the draft must be an object")
    if len(json.dumps(draft)) > MAX_DRAFT_BYTES:
        raise Invalid("the draft is too large")
    verdicts = draft.get("verdicts") or {}
    if not isinstance(verdicts, dict):
        raise Invalid("draft verdicts must be an object")
    try:
        labels = {str(k)[:64]: parse_draft_label(v, f"node {k!r}") for k, v in verdicts.items()}
    except ValueError as exc:
        raise Invalid(str(exc)) from exc
    decision = draft.get("decision") or ""
    if decision and decision not in DECISIONS:
        raise Invalid(f"decision must be one of {', '.join(DECISIONS)}")
    comment = draft.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise Invalid(f"the comment must be text of at most {MAX_COMMENT} characters")
    version = draft.get("version")
    return {
        "verdicts": labels,
        "decision": decision,
        "comment": comment,
        "version": version if isinstance(version, int) else None,
    }


def _draft_at(assignment: Assignment, revision: int) -> dict[str, Any] | None:
    """The draft as it was at `revision`, while it is still kept."""
    if revision == assignment.draft_revision:
        draft: dict[str, Any] = assignment.draft
        return draft
    if revision > assignment.draft_revision:
        return None
    kept = DraftRevision.objects.filter(assignment=assignment, number=revision)
    return kept.values_list("draft", flat=True).first()


def ensure_draft_revision(assignment: Assignment, base_revision: Any, mine: Any) -> None:
    """Refuse work (`mine`, a draft) based on anything but the stored revision. The caller holds
    the assignment's row lock, so nothing can be saved between this check and its write."""
    if isinstance(base_revision, bool) or not isinstance(base_revision, int) or base_revision < 0:
        raise Invalid("base_revision must be a whole number, 0 or more")
    if base_revision == assignment.draft_revision:
        return
    base = _draft_at(assignment, base_revision)
    comparison = compare_drafts(base=base, mine=clean_draft(mine), theirs=assignment.draft)
    raise DraftConflict(assignment, base_revision, comparison)


@transaction.atomic
def assignment_draft_save(
    *, user: User, assignment_id: int, base_revision: int, draft: Any
) -> Assignment:
    """Keep unsubmitted work on the server (and the lock alive) as the annotator goes, if it was
    based on the stored revision; the saved draft gets the next one."""
    assignment = assignment_owned(user, assignment_id)
    ensure_in_progress(assignment)
    cleaned = clean_draft(draft)
    ensure_draft_revision(assignment, base_revision, cleaned)
    now = timezone.now()
    hold_slot(assignment, now)
    DraftRevision.objects.create(
        assignment=assignment, number=assignment.draft_revision, draft=assignment.draft
    )
    assignment.draft = {**cleaned, "saved_at": now.isoformat()}
    assignment.draft_revision += 1
    assignment.save(update_fields=["draft", "draft_revision", "lock_expires_at"])
    DraftRevision.objects.filter(
        assignment=assignment, number__lte=assignment.draft_revision - KEPT_REVISIONS
    ).delete()
    return assignment


def draft_history_clear(assignment: Assignment) -> None:
    """A submitted task has no draft left to merge into."""
    DraftRevision.objects.filter(assignment=assignment).delete()
