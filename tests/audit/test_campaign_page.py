"""The campaign page says what a person can do there: the judge button is disabled with its
reason when no judge model is configured, the "press Next task" hint is shown only to whoever
has that button, and κ comes with what it means beside raw agreement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign

pytestmark = pytest.mark.django_db


def _page(client: Client, user: User, campaign: Campaign) -> str:
    client.force_login(user)
    response = client.get(f"/audit/campaigns/{campaign.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_without_a_judge_the_judge_button_is_disabled_with_its_reason(
    client: Client, admin: User, campaign_of: Callable[..., Campaign], settings: Any
) -> None:
    settings.LLM_JUDGE_MODEL = ""
    page = _page(client, admin, campaign_of(tasks=1))
    assert 'data-testid="judge-disabled"' in page and "set QUESTWEB_JUDGE_MODEL" in page
    settings.LLM_JUDGE_MODEL = "http://judge:8000|qwen"
    page = _page(client, admin, campaign_of(tasks=1))
    assert "judge-disabled" not in page and "Judge reference solutions</button>" in page


def test_the_next_task_hint_goes_with_the_next_task_button(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1)
    page = _page(client, make_user("annotator"), campaign)
    assert "Next task</button>" in page and "press “Next task”" in page
    campaign.status = "closed"
    campaign.save()
    page = _page(client, make_user("annotator"), campaign)
    assert "Next task</button>" not in page and "press “Next task”" not in page


def test_kappa_is_explained_beside_the_agreement_table(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1)
    _page(client, make_user("reviewer"), campaign)
    # The page loads its agreement section from here once it is shown.
    part = client.get(f"/audit/campaigns/{campaign.pk}/agreement/").content.decode()
    assert 'data-testid="kappa-note"' in part and "beyond chance" in part
