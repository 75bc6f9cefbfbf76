"""The audit browser tests' shared setup: one demo task in a campaign, claimed by an annotator."""

from __future__ import annotations

from collections.abc import Callable

from apps.accounts.models import User
from apps.audit.models import Assignment
from apps.audit.services import assignment_claim_next, campaign_create
from apps.rubrics.services import demo_tasks_load
from tests.rubrics.conftest import ROOT


def demo_assignment(make_user: Callable[..., User], name: str) -> tuple[User, Assignment]:
    """An annotator and their assignment on the first demo task of a new campaign `name`."""
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    campaign = campaign_create(
        user=make_user("admin"),
        name=name,
        filters={"generator": "questweb demo"},
        annotators_per_task=1,
        limit=1,
    )
    annotator = make_user("annotator")
    assignment = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert assignment is not None
    return annotator, assignment
