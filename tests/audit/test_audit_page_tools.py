"""The audit page on a big tree: every group row has a collapse toggle, the decision sits in its
own panel, times read the same on every audit page, and fix-and-accept is offered (and
accepted by the server) only on a tree that differs from the one the audit started from."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign
from apps.audit.services import assignment_claim_next, assignment_edit, assignment_revert
from tests.audit.conftest import all_nodes, big_tree_campaign

pytestmark = pytest.mark.django_db

TIME = re.compile(r'<time id="lock" datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>')


def test_times_on_audit_pages_have_one_format() -> None:
    rendered = Template("{% load audit_format %}{{ when|audit_time }} {{ none|audit_time }}")
    when = datetime(2026, 11, 25, 17, 50, 31, tzinfo=UTC)
    assert rendered.render(Context({"when": when, "none": None})) == (
        '<time datetime="2026-11-25T17:50:31+00:00">2026-11-25 17:50 UTC</time> —'
    )


def test_a_big_tree_has_a_toggle_per_group_and_the_decision_in_its_panel(
    client: Client, admin: User, make_user: Callable[..., User]
) -> None:
    campaign = big_tree_campaign(admin)
    annotator = make_user("annotator")
    held = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert held is not None
    client.force_login(annotator)
    page = client.get(f"/audit/a/{held.pk}/").content.decode()
    rows = page.count('class="anode')
    groups = page.count('class="anode group')
    assert rows >= 58 and groups > 5
    assert page.count("data-toggle aria-expanded") == groups
    assert 'data-collapse-all="1"' in page and 'data-collapse-all="0"' in page
    assert 'data-testid="decision-panel"' in page and TIME.search(page)
    listing = client.get("/audit/").content.decode()
    assert re.search(
        r"locked until <time datetime=\S+>\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>", listing
    )


def _edited_flag(client: Client, assignment: int) -> str:
    tree = client.get(f"/audit/a/{assignment}/tree/").content.decode()
    found = re.search(r'data-edited="(\d)"', tree)
    assert found
    return found.group(1)


def test_fix_and_accept_is_offered_after_an_edit_and_refused_once_it_is_undone(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    bearer: Any,
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=1)
    annotator = make_user("annotator")
    held = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert held is not None
    client.force_login(annotator)
    assert _edited_flag(client, held.pk) == "0"
    page = client.get(f"/audit/a/{held.pk}/").content.decode()
    assert "only after an edit" in page
    assignment_edit(
        user=annotator,
        assignment_id=held.pk,
        base_version=1,
        ops=[{"op": "set_critical", "node": "cited", "critical": True}],
    )
    assert _edited_flag(client, held.pk) == "1"
    assignment_revert(user=annotator, assignment_id=held.pk, base_version=2, to_version=1)
    assert _edited_flag(client, held.pk) == "0", "an undone edit leaves the tree as it was"
    refused = client.post(
        f"/api/audit/assignments/{held.pk}/submit",
        {"version": 3, "decision": "fix_accept", "verdicts": all_nodes()},
        content_type="application/json",
        headers=bearer(annotator),
    )
    assert (
        refused.status_code == 422
        and "fix-and-accept needs a fixed tree" in (refused.json()["detail"])
    )
