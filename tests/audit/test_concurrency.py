"""Claims racing on the real PostgreSQL: every thread has its own connection and all of them
press "next" at the same moment."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from apps.accounts.models import User
from apps.audit.models import Assignment, AssignmentStatus, Campaign
from apps.audit.services import assignment_claim_next

pytestmark = pytest.mark.django_db(transaction=True)


def _race(people: list[User], campaign: Campaign, rounds: int = 1) -> list[int | None]:
    start = threading.Barrier(len(people))

    def claim(user: User) -> list[int | None]:
        try:
            start.wait()
            got = []
            for _ in range(rounds):
                assignment = assignment_claim_next(user=user, campaign_id=campaign.pk)
                got.append(assignment.item_id if assignment else None)
            return got
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=len(people)) as pool:
        results = list(pool.map(claim, people))
    return [item for got in results for item in got]


def test_fifty_simultaneous_claims_never_give_a_task_to_more_than_n_people(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=20, annotators_per_task=2)
    people = [make_user("annotator", password=None) for _ in range(50)]
    claimed = _race(people, campaign)
    per_item = Counter(item for item in claimed if item is not None)
    assert max(per_item.values()) == 2, "no task went to a third annotator"
    assert len(per_item) == 20 and sum(per_item.values()) == 40, "every slot was filled"
    assert claimed.count(None) == 10
    holders = Assignment.objects.filter(status=AssignmentStatus.ACTIVE)
    assert holders.count() == 40
    assert len(set(holders.values_list("item_id", "annotator_id"))) == 40


def test_one_person_pressing_next_in_many_tabs_at_once_holds_one_task(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=10, annotators_per_task=1)
    annotator = make_user("annotator")
    claimed = _race([annotator] * 8, campaign)
    assert len(set(claimed)) == 1 and None not in claimed
    assert Assignment.objects.filter(annotator=annotator).count() == 1
