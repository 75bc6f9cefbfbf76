"""A batch's "Create an audit campaign" button is idempotent: pressed again (on the page, over
REST, or twice at once) it reuses the batch's campaign and adds only the undecided tasks it
lacks; a second campaign is asked for explicitly; tasks an audit decided are never offered."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Assignment, Campaign, CampaignTask
from apps.audit.services import assignment_claim_next, campaign_close, campaign_create
from apps.audit.services.decisions import item_decide
from apps.common.errors import Conflict, Forbidden, Invalid, NotFound
from apps.synthesis.models import BatchCampaign, SynthesisBatch, SynthesisCandidate
from apps.synthesis.services import BatchCampaignResult, batch_campaign_create, candidate_accept
from tests.factories import SynthesisBatchFactory, SynthesisCandidateFactory
from tests.synthesis.conftest import task_record

pytestmark = pytest.mark.django_db


def _candidate(batch: SynthesisBatch) -> SynthesisCandidate:
    number = batch.candidates.count()
    record = task_record(f"Which city is capital number {number}?")
    candidate: SynthesisCandidate = SynthesisCandidateFactory(
        batch=batch, index=number, record=record
    )
    return candidate


def _accept_new(admin: User, batch: SynthesisBatch) -> int:
    """One more accepted candidate of the batch (a hand acceptance): its new task's id."""
    candidate = candidate_accept(user=admin, candidate_id=_candidate(batch).pk)
    assert candidate.task_id is not None
    return candidate.task_id


@pytest.fixture
def batch(admin: User) -> SynthesisBatch:
    """A finished batch of admin's with three accepted candidates, each with its task."""
    made: SynthesisBatch = SynthesisBatchFactory(created_by=admin)
    for _ in range(3):
        _accept_new(admin, made)
    made.refresh_from_db()
    return made


def _decide(campaign: Campaign, task_id: int, decision: str, admin: User) -> None:
    item = campaign.items.select_related("start_version").get(task_id=task_id)
    item_decide(item, decision=decision, version=item.start_version, by=admin)


def _tasks(campaign: Campaign) -> list[int]:
    return list(campaign.items.order_by("position").values_list("task_id", flat=True))


def _batch_tasks(batch: SynthesisBatch) -> list[int]:
    rows = batch.candidates.filter(accepted=True).order_by("index").values_list("task_id")
    return [task_id for (task_id,) in rows]


def test_pressing_twice_makes_one_campaign_and_then_adds_only_new_undecided_tasks(
    admin: User, make_user: Callable[..., User], batch: SynthesisBatch
) -> None:
    first = batch_campaign_create(user=admin, batch_id=batch.pk)
    assert (first.created, first.added) == (True, 3)
    assert first.message == f"Campaign “Synthesis batch {batch.pk}” created with 3 undecided tasks."
    campaign = first.campaign
    assert BatchCampaign.objects.get().campaign == campaign, "the campaign remembers its batch"

    again = batch_campaign_create(user=admin, batch_id=batch.pk)
    assert (again.campaign, again.created, again.added) == (campaign, False, 0)
    assert again.message == (
        f"Campaign “Synthesis batch {batch.pk}” already exists for this batch: nothing new to add."
    )

    # Work goes on in the campaign while the batch gains tasks by hand.
    annotator = make_user("annotator")
    claimed = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert claimed is not None
    _decide(campaign, _batch_tasks(batch)[1], "reject", admin)
    new_tasks = [_accept_new(admin, batch), _accept_new(admin, batch)]

    added = batch_campaign_create(user=admin, batch_id=batch.pk, annotators_per_task=5)
    assert (added.campaign, added.created, added.added) == (campaign, False, 2)
    assert "already exists for this batch: added 2 new undecided tasks." in added.message
    assert Campaign.objects.count() == 1
    assert _tasks(campaign) == [*_batch_tasks(batch)[:3], *new_tasks], "appended, never twice"
    assert list(campaign.items.values_list("position", flat=True).order_by("position")) == [
        0,
        1,
        2,
        3,
        4,
    ]
    assert Assignment.objects.get() == claimed, "the assignments are left as they were"
    campaign.refresh_from_db()
    assert campaign.annotators_per_task == 2, "a press that reuses it changes no setting"


def test_tasks_an_audit_already_decided_are_not_offered_even_to_a_first_campaign(
    admin: User, batch: SynthesisBatch
) -> None:
    # An earlier campaign made on the audit page from the batch's filter decided two tasks.
    earlier = campaign_create(
        user=admin, name="By hand", filters={"batch": batch.provenance_batch, "category": "Misc."}
    )
    accepted, rejected, undecided = _batch_tasks(batch)
    _decide(earlier, accepted, "accept", admin)
    _decide(earlier, rejected, "reject", admin)

    result = batch_campaign_create(user=admin, batch_id=batch.pk)
    assert (result.created, result.added) == (True, 1)
    assert _tasks(result.campaign) == [undecided]

    _decide(earlier, undecided, "fix_accept", admin)
    with pytest.raises(Invalid, match=f"every task of batch {batch.pk} has been decided"):
        batch_campaign_create(user=admin, batch_id=batch.pk, new=True)


def test_a_second_campaign_is_made_only_when_asked_for_and_its_name_says_which(
    admin: User, batch: SynthesisBatch
) -> None:
    first = batch_campaign_create(user=admin, batch_id=batch.pk).campaign
    _decide(first, _batch_tasks(batch)[0], "reject", admin)

    second = batch_campaign_create(user=admin, batch_id=batch.pk, new=True, annotators_per_task=1)
    assert second.created and second.campaign != first
    assert second.campaign.name == f"Synthesis batch {batch.pk} (2)"
    assert second.campaign.annotators_per_task == 1
    assert _tasks(second.campaign) == _batch_tasks(batch)[1:], "the decided one is left out"

    named = batch_campaign_create(user=admin, batch_id=batch.pk, new=True, name="Geo round")
    assert named.campaign.name == "Geo round", "a name no campaign of the batch has is kept"

    # A plain press adds to the newest open campaign of the batch.
    task = _accept_new(admin, batch)
    again = batch_campaign_create(user=admin, batch_id=batch.pk)
    assert (again.campaign, again.created, again.added) == (named.campaign, False, 1)
    assert _tasks(named.campaign)[-1] == task
    assert set(BatchCampaign.objects.values_list("batch", flat=True)) == {batch.pk}
    assert BatchCampaign.objects.count() == Campaign.objects.count() == 3


def test_a_closed_campaign_takes_no_new_tasks_and_a_new_one_is_asked_for(
    admin: User, batch: SynthesisBatch
) -> None:
    first = batch_campaign_create(user=admin, batch_id=batch.pk).campaign
    campaign_close(user=admin, campaign_id=first.pk)
    _accept_new(admin, batch)
    with pytest.raises(Conflict, match="is closed: ask for a new campaign"):
        batch_campaign_create(user=admin, batch_id=batch.pk)
    assert first.items.count() == 3

    second = batch_campaign_create(user=admin, batch_id=batch.pk, new=True)
    assert (second.created, second.added) == (True, 4)


def test_only_admins_make_or_fill_a_batchs_campaign(
    admin: User, make_user: Callable[..., User], batch: SynthesisBatch
) -> None:
    batch_campaign_create(user=admin, batch_id=batch.pk)
    _accept_new(admin, batch)
    for role in ("viewer", "annotator", "reviewer"):
        with pytest.raises(Forbidden):
            batch_campaign_create(user=make_user(role), batch_id=batch.pk)
        with pytest.raises(Forbidden):
            batch_campaign_create(user=make_user(role), batch_id=batch.pk, new=True)
    with pytest.raises(NotFound):
        batch_campaign_create(user=admin, batch_id=batch.pk + 1000)
    assert Campaign.objects.get().items.count() == 3


@pytest.mark.django_db(transaction=True)
def test_two_presses_at_the_same_moment_make_one_campaign(admin: User) -> None:
    batch: SynthesisBatch = SynthesisBatchFactory(created_by=admin)
    for _ in range(3):
        _accept_new(admin, batch)
    start = threading.Barrier(4)

    def press(_: int) -> BatchCampaignResult:
        try:
            start.wait()
            return batch_campaign_create(user=admin, batch_id=batch.pk)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(press, range(4)))
    assert sorted(r.created for r in results) == [False, False, False, True]
    assert Campaign.objects.count() == BatchCampaign.objects.count() == 1
    assert CampaignTask.objects.count() == 3
    assert sum(r.added for r in results) == 3


def _post(client: Client, path: str, body: Any, headers: dict[str, str]) -> Any:
    data = "" if body is None else json.dumps(body)
    return client.post(path, data, content_type="application/json", headers=headers)


def test_over_rest_a_second_press_is_a_200_saying_what_it_added(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    bearer: Any,
    batch: SynthesisBatch,
) -> None:
    headers = bearer(admin)
    url = f"/api/synthesis/batches/{batch.pk}/campaign"
    created = _post(client, url, {"annotators_per_task": 1}, headers)
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["created"], body["added"], body["total"]) == (True, 3, 3)

    _accept_new(admin, batch)
    again = _post(client, url, None, headers)
    assert again.status_code == 200, again.content
    assert (again.json()["id"], again.json()["created"], again.json()["added"]) == (
        body["id"],
        False,
        1,
    )
    assert again.json()["total"] == 4
    assert again.json()["message"] == (
        f"Campaign “Synthesis batch {batch.pk}” already exists for this batch: "
        "added 1 new undecided task."
    )
    nothing = _post(client, url, None, headers).json()
    assert (nothing["added"], nothing["message"].endswith("nothing new to add.")) == (0, True)

    another = _post(client, url, {"new": True}, headers)
    assert another.status_code == 201
    assert another.json()["name"] == f"Synthesis batch {batch.pk} (2)"
    assert Campaign.objects.count() == 2

    for role in ("viewer", "annotator", "reviewer"):
        refused = _post(client, url, {"new": True}, bearer(make_user(role)))
        assert refused.status_code == 403
    assert _post(client, url, {"new": "maybe"}, headers).status_code == 422
    assert Campaign.objects.count() == 2


def test_the_batch_page_links_its_campaigns_and_says_what_a_second_press_did(
    client: Client, admin: User, batch: SynthesisBatch
) -> None:
    client.force_login(admin)
    page = client.get(f"/synthesis/{batch.pk}/").content.decode()
    assert 'data-testid="campaign">Create an audit campaign</button>' in page
    assert "3 undecided tasks" in page
    assert 'data-testid="batch-campaigns"' not in page

    url = f"/synthesis/{batch.pk}/campaign/"
    first = client.post(url, {"annotators_per_task": "1"})
    campaign = Campaign.objects.get()
    assert first["Location"] == f"/audit/campaigns/{campaign.pk}/"
    second = client.post(url, {"annotators_per_task": "1"}, follow=True)
    assert second.redirect_chain == [(f"/audit/campaigns/{campaign.pk}/", 302)]
    assert (
        f"Campaign “Synthesis batch {batch.pk}” already exists for this batch: nothing new to add."
        in second.content.decode()
    )
    assert Campaign.objects.count() == 1

    _accept_new(admin, batch)
    page = client.get(f"/synthesis/{batch.pk}/").content.decode()
    listed = page.split('data-testid="batch-campaigns"')[1]
    assert f'<a href="/audit/campaigns/{campaign.pk}/">Synthesis batch {batch.pk}</a>' in listed
    assert "0 of 3 tasks decided" in listed
    assert f"Add undecided tasks to “Synthesis batch {batch.pk}”" in page
    assert "1 undecided task not in it yet" in page
    assert 'data-testid="campaign-new">Create a new campaign anyway</button>' in page

    added = client.post(url, follow=True).content.decode()
    assert "already exists for this batch: added 1 new undecided task." in added
    new = client.post(url, {"new": "1", "annotators_per_task": "1"}, follow=True)
    assert f"Campaign “Synthesis batch {batch.pk} (2)” created with 4 undecided tasks." in (
        new.content.decode()
    )
    page = client.get(f"/synthesis/{batch.pk}/").content.decode()
    assert page.count('<a href="/audit/campaigns/') == 2
    assert f"Add undecided tasks to “Synthesis batch {batch.pk} (2)”" in page


def test_only_admins_see_the_buttons_and_annotators_see_only_campaigns_open_to_them(
    client: Client, admin: User, make_user: Callable[..., User], batch: SynthesisBatch
) -> None:
    pooled = make_user("annotator")
    outsider = make_user("annotator")
    campaign = batch_campaign_create(user=admin, batch_id=batch.pk).campaign
    campaign.annotators.set([pooled])
    link = f'<a href="/audit/campaigns/{campaign.pk}/">'
    for user, sees in ((pooled, True), (outsider, False), (make_user("viewer"), True)):
        client.force_login(user)
        page = client.get(f"/synthesis/{batch.pk}/").content.decode()
        assert (link in page) is sees, user
        assert 'data-testid="campaign' not in page
        assert client.post(f"/synthesis/{batch.pk}/campaign/", {"new": "1"}).status_code == 403
    assert Campaign.objects.count() == 1
    client.force_login(admin)
    assert client.post("/synthesis/999999/campaign/").status_code == 404
