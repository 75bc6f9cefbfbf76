"""A finished audit reopens as it was submitted: every node's verdict and comment, the decision
and the overall comment, on the tree version the verdicts were given on."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign
from apps.audit.services import assignment_claim_next, assignment_edit, assignment_submit

pytestmark = pytest.mark.django_db

VERDICTS = {
    "root": "correct",
    "capital": {"verdict": "wrong", "error_type": "not_atomic", "comment": "checks two facts"},
    "cited": {"verdict": "unverifiable", "comment": "no page says so"},
}


def _text(html: str) -> str:
    """The page's words, without tags and with single spaces."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_submitted_audit_reopens_with_its_verdicts_comments_and_decision(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=2)
    annotator, other = make_user("annotator"), make_user("annotator")
    assignment = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert assignment is not None
    assignment_submit(
        user=annotator,
        assignment_id=assignment.pk,
        version=1,
        decision="reject",
        verdicts=VERDICTS,
        comment="The tree never asks for the year.",
    )
    # After the submission someone else removes a node: the page still shows the tree judged.
    later = assignment_claim_next(user=other, campaign_id=campaign.pk)
    assert later is not None
    assignment_edit(
        user=other,
        assignment_id=later.pk,
        base_version=1,
        ops=[{"op": "remove_node", "node": "cited"}],
    )
    client.force_login(annotator)
    html = client.get(f"/audit/a/{assignment.pk}/").content.decode()
    text = _text(html)
    assert "3 of 3 nodes judged" in text
    assert "✓ correct" in text and "✗ wrong · Not atomic" in text and "? unverifiable" in text
    assert "checks two facts" in text and "no page says so" in text
    assert "Decision: Reject" in text
    assert "The tree never asks for the year." in text
    assert "The verdicts were given on version 1; the task is now at version 2" in text


def test_an_audit_left_unsubmitted_shows_its_draft_as_not_submitted(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    admin: User,
) -> None:
    campaign = campaign_of(tasks=1)
    annotator = make_user("annotator")
    assignment = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert assignment is not None
    assignment.draft = {"verdicts": {"root": {"verdict": "correct"}}, "decision": "accept"}
    assignment.save(update_fields=["draft"])
    client.force_login(admin)  # a reviewer looks over the annotator's shoulder
    text = _text(client.get(f"/audit/a/{assignment.pk}/").content.decode())
    assert "1 of 3 nodes judged" in text
    assert "✓ correct" in text
    assert "not submitted" in text and "Decision: Accept" in text
