from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.models import Assignment, AssignmentStatus, Campaign
from apps.audit.services import assignment_claim_next, assignment_release
from apps.common.errors import Conflict, Forbidden, NotAuthenticated
from tests.audit.conftest import make_tasks

pytestmark = pytest.mark.django_db


def _claim(user: User, campaign: Campaign) -> Assignment | None:
    return assignment_claim_next(user=user, campaign_id=campaign.pk)


def _expire(assignment: Assignment) -> None:
    Assignment.objects.filter(pk=assignment.pk).update(
        lock_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_each_task_goes_to_n_different_annotators_and_then_to_nobody(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=2, annotators_per_task=2)
    people = [make_user("annotator") for _ in range(5)]
    claims = [_claim(user, campaign) for user in people]
    got = [c.item.task_id for c in claims if c is not None]
    assert len(got) == 4 and claims[4] is None
    assert sorted(got.count(task) for task in set(got)) == [2, 2]


def test_pressing_next_again_gives_back_the_task_you_hold(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=3)
    annotator = make_user("annotator")
    first = _claim(annotator, campaign)
    assert first is not None and _claim(annotator, campaign) == first


def test_an_expired_lock_frees_the_slot_for_another_annotator(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=1)
    slow, fast = make_user("annotator"), make_user("annotator")
    held = _claim(slow, campaign)
    assert held is not None and _claim(fast, campaign) is None
    _expire(held)
    taken = _claim(fast, campaign)
    assert taken is not None and taken.item_id == held.item_id
    assert _claim(slow, campaign) is None, "the slow annotator's slot is gone"
    assert Assignment.objects.get(pk=held.pk).status == AssignmentStatus.RELEASED


def test_an_annotator_whose_lock_expired_gets_the_same_task_back_with_its_draft(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=2, annotators_per_task=1)
    annotator = make_user("annotator")
    held = _claim(annotator, campaign)
    assert held is not None
    Assignment.objects.filter(pk=held.pk).update(draft={"verdicts": {"root": {"verdict": "wrong"}}})
    _expire(held)
    again = _claim(annotator, campaign)
    assert again is not None and again.pk == held.pk
    assert again.lock_expires_at > timezone.now()
    assert again.draft["verdicts"]["root"]["verdict"] == "wrong"


def test_a_skipped_task_goes_to_someone_else_and_never_back_to_you(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=2, annotators_per_task=1)
    annotator, other = make_user("annotator"), make_user("annotator")
    skipped = _claim(annotator, campaign)
    assert skipped is not None
    assignment_release(user=annotator, assignment_id=skipped.pk)
    following = _claim(annotator, campaign)
    assert following is not None and following.item_id != skipped.item_id
    given = _claim(other, campaign)
    assert given is not None and given.item_id == skipped.item_id


def test_a_campaign_for_named_annotators_refuses_the_others(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    chosen = [make_user("annotator"), make_user("annotator")]
    campaign = campaign_of(tasks=1, annotator_ids=[u.pk for u in chosen])
    assert _claim(chosen[0], campaign) is not None
    with pytest.raises(Forbidden):
        _claim(make_user("annotator"), campaign)
    with pytest.raises(Forbidden):
        _claim(make_user("viewer"), campaign)


def test_a_closed_campaign_hands_out_nothing(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    admin: User,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    closed = client.post(f"/api/audit/campaigns/{campaign.pk}/close", headers=bearer(admin))
    assert closed.json()["status"] == "closed"
    with pytest.raises(Conflict, match="closed"):
        _claim(make_user("annotator"), campaign)


def test_next_over_the_api_returns_the_task_then_204_when_the_queue_is_empty(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=1)
    first, second = bearer(make_user("annotator")), bearer(make_user("annotator"))
    claimed = client.post(f"/api/audit/campaigns/{campaign.pk}/claim", headers=first)
    assert claimed.status_code == 200 and claimed.json()["status"] == "active"
    assert (
        client.post(f"/api/audit/campaigns/{campaign.pk}/claim", headers=second).status_code == 204
    )
    assert client.post(f"/api/audit/campaigns/{campaign.pk}/claim").status_code == 401


def test_campaigns_are_created_from_a_task_filter_by_admins_only(
    client: Client, make_user: Callable[..., User], bearer: Any, admin: User
) -> None:
    make_tasks(3, category="Travel", provenance={"generator": "kg-v1", "batch": "b1"})
    make_tasks(2, category="Travel", provenance={"generator": "quest", "batch": "b1"})
    make_tasks(4, category="Films")
    body = {"name": "Travel from kg-v1", "filters": {"category": "Travel", "generator": "kg-v1"}}
    created = client.post(
        "/api/audit/campaigns", data=body, content_type="application/json", headers=bearer(admin)
    )
    assert created.status_code == 201
    assert (created.json()["total"], created.json()["annotators_per_task"]) == (3, 2)
    empty = client.post(
        "/api/audit/campaigns",
        content_type="application/json",
        data={"name": "x", "filters": {"category": "Nope"}},
        headers=bearer(admin),
    )
    assert empty.status_code == 422 and "no task" in empty.json()["detail"]
    refused = client.post(
        "/api/audit/campaigns",
        data=body,
        content_type="application/json",
        headers=bearer(make_user("reviewer")),
    )
    assert refused.status_code == 403
    bad = client.post(
        "/api/audit/campaigns",
        content_type="application/json",
        headers=bearer(admin),
        data={"name": "x", "filters": {"colour": "red"}},
    )
    assert bad.status_code == 422 and "unknown filter 'colour'" in bad.json()["detail"]


def test_annotators_see_only_their_own_assignments_and_reviewers_see_all(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=2)
    alice, bob = make_user("annotator"), make_user("annotator")
    mine = _claim(alice, campaign)
    theirs = _claim(bob, campaign)
    assert mine is not None and theirs is not None
    listed = client.get("/api/audit/assignments", headers=bearer(alice)).json()
    assert [a["id"] for a in listed["results"]] == [mine.pk]
    peek = client.get(f"/api/audit/assignments/{theirs.pk}", headers=bearer(alice))
    assert peek.status_code == 403
    everyone = client.get("/api/audit/assignments", headers=bearer(make_user("reviewer"))).json()
    assert {a["id"] for a in everyone["results"]} == {mine.pk, theirs.pk}


def test_without_an_account_nothing_is_claimed() -> None:
    from django.contrib.auth.models import AnonymousUser

    make_tasks(1)
    with pytest.raises(NotAuthenticated):
        assignment_claim_next(user=AnonymousUser(), campaign_id=1)  # type: ignore[arg-type]
