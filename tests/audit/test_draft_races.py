"""Draft saves racing on the real PostgreSQL: many tabs of one annotator save at the same moment,
all based on the same revision, each from its own connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.accounts.models import User
from apps.audit.models import Assignment, Campaign, DraftRevision
from apps.audit.services import DraftConflict, assignment_claim_next, assignment_draft_save

pytestmark = pytest.mark.django_db(transaction=True)

TABS = 8


def test_of_many_saves_based_on_the_same_revision_exactly_one_wins(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    annotator = make_user("annotator")
    held = assignment_claim_next(user=annotator, campaign_id=campaign_of(tasks=1).pk)
    assert held is not None
    start = threading.Barrier(TABS)

    def save(tab: int) -> str:
        try:
            start.wait()
            assignment_draft_save(
                user=annotator,
                assignment_id=held.pk,
                base_revision=0,
                draft={"verdicts": {"root": {"comment": f"from tab {tab}"}}},
            )
            return f"tab {tab}"
        except DraftConflict as exc:
            assert exc.draft_revision == 1
            return "refused"
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=TABS) as pool:
        outcomes = list(pool.map(save, range(TABS)))
    winners = [o for o in outcomes if o != "refused"]
    assert len(winners) == 1 and outcomes.count("refused") == TABS - 1
    stored = Assignment.objects.get(pk=held.pk)
    assert stored.draft_revision == 1
    assert stored.draft["verdicts"]["root"]["comment"] == f"from {winners[0]}"
    assert list(DraftRevision.objects.values_list("number", flat=True)) == [0]
