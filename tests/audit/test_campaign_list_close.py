"""The campaign list shows open campaigns unless asked for closed ones or all; closing a
campaign goes through a confirmation page and the server refuses a close without it; reviewers
see every task of a campaign with who holds it, how far each got and what was decided."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign, CampaignStatus
from apps.audit.services import assignment_claim_next, campaign_close

pytestmark = pytest.mark.django_db


def _names(html: str) -> list[str]:
    return re.findall(r'<a href="/audit/campaigns/\d+/">([^<]+)</a>', html)


def test_the_list_shows_open_campaigns_by_default_and_closed_or_all_on_request(
    client: Client, admin: User, campaign_of: Callable[..., Campaign]
) -> None:
    Campaign.objects.filter(pk=campaign_of(tasks=1).pk).update(name="Still open")
    finished = campaign_of(tasks=0)
    Campaign.objects.filter(pk=finished.pk).update(name="Finished")
    campaign_close(user=admin, campaign_id=finished.pk)
    client.force_login(admin)
    assert _names(client.get("/audit/").content.decode()) == ["Still open"]
    closed = client.get("/audit/?status=closed").content.decode()
    assert _names(closed) == ["Finished"]
    assert '<a href="?status=closed" aria-current="page">' in closed
    assert sorted(_names(client.get("/audit/?status=all").content.decode())) == [
        "Finished",
        "Still open",
    ]
    refused = client.get("/audit/?status=archived")
    assert refused.status_code == 422 and "status must be one of open, closed, all" in (
        refused.content.decode()
    )


def test_a_closed_campaigns_breadcrumb_returns_to_the_closed_list(
    client: Client, admin: User, campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1)
    campaign_close(user=admin, campaign_id=campaign.pk)
    client.force_login(admin)
    page = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    assert '<a href="/audit/?status=closed">Audit</a>' in page


def test_closing_asks_for_confirmation_first_and_says_what_it_cuts_short(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=2)
    assignment_claim_next(user=make_user("annotator"), campaign_id=campaign.pk)
    client.force_login(admin)
    detail = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    assert f'href="/audit/campaigns/{campaign.pk}/close/" data-testid="close-link"' in detail
    asked = client.get(f"/audit/campaigns/{campaign.pk}/close/").content.decode()
    assert "<strong>2</strong> of 2 tasks are not decided yet" in asked
    assert "<strong>1</strong> annotator holds a task now" in asked
    assert 'name="confirm" value="close"' in asked
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.OPEN, "asking closes nothing"


def test_the_server_refuses_a_close_without_the_confirmation(
    client: Client, admin: User, campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1)
    client.force_login(admin)
    refused = client.post(f"/audit/campaigns/{campaign.pk}/close/")
    assert refused.status_code == 400
    assert "Not closed: confirm on this page" in refused.content.decode()
    wrong = client.post(f"/audit/campaigns/{campaign.pk}/close/", {"confirm": "yes please"})
    assert wrong.status_code == 400
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.OPEN
    closed = client.post(f"/audit/campaigns/{campaign.pk}/close/", {"confirm": "close"})
    assert closed.status_code == 302
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.CLOSED
    again = client.get(f"/audit/campaigns/{campaign.pk}/close/").content.decode()
    assert "already closed" in again and 'name="confirm"' not in again


def test_only_admins_may_close_a_campaign(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1)
    client.force_login(make_user("reviewer"))
    assert client.get(f"/audit/campaigns/{campaign.pk}/close/").status_code == 403
    posted = client.post(f"/audit/campaigns/{campaign.pk}/close/", {"confirm": "close"})
    assert posted.status_code == 403
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.OPEN


def test_reviewers_see_each_task_with_its_annotators_their_state_and_the_decision(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    audit: Any,
) -> None:
    campaign = campaign_of(tasks=2, annotators_per_task=1)
    audit(make_user("annotator", username="ann"), campaign, "accept")
    assignment_claim_next(user=make_user("annotator", username="bea"), campaign_id=campaign.pk)
    client.force_login(make_user("reviewer"))
    page = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    table = page.split('data-testid="task-table"')[1].split("</table>")[0]
    first, second = table.split("<tr data-item=")[1:]
    assert "ann</a>" in first and "Submitted" in first and "Accept" in first
    assert 'data-state="decided"' in first
    assert "bea</a>" in second and "In progress" in second and "claimed " in second
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>", second)
    client.force_login(make_user("annotator"))
    mine = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    assert "task-table" not in mine, "annotators see only their own tasks"


def test_the_task_table_pages_through_a_big_campaign(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=52)
    client.force_login(make_user("reviewer"))
    first = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    assert first.count("<tr data-item=") == 50 and "page 1 of 2" in first
    last = client.get(f"/audit/campaigns/{campaign.pk}/?page=2").content.decode()
    assert last.count("<tr data-item=") == 2 and "capital number 51" in last
    beyond = client.get(f"/audit/campaigns/{campaign.pk}/?page=zz").content.decode()
    assert "page 1 of 2" in beyond


def test_the_rest_api_lists_campaigns_by_status_too(
    client: Client, admin: User, bearer: Any, campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1)
    campaign_close(user=admin, campaign_id=campaign.pk)
    campaign_of(tasks=1)
    headers = bearer(admin)
    assert client.get("/api/audit/campaigns", headers=headers).json()["count"] == 2
    closed = client.get("/api/audit/campaigns?status=closed", headers=headers).json()
    assert [c["id"] for c in closed["results"]] == [campaign.pk]
    assert client.get("/api/audit/campaigns?status=gone", headers=headers).status_code == 422
