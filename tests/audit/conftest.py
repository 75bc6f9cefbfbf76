from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.audit.models import Assignment, Campaign
from apps.audit.services import assignment_claim_next, assignment_submit, campaign_create
from apps.rubrics.models import Task
from apps.rubrics.services import task_prepare, tasks_write
from tests.rubrics.conftest import small_tree

NODES = ("root", "capital", "cited")


def make_tasks(count: int, **fields: Any) -> list[Task]:
    records = [
        task_prepare(
            {"question": f"Which city is capital number {i}?", "rubric": small_tree(), **fields}
        )
        for i in range(count)
    ]
    return tasks_write(user=None, prepared=records, note="test")


def post_edit(client: Any, assignment_id: int, headers: dict[str, str], **body: Any) -> Any:
    """POST an edit of the assignment's tree to the API."""
    return client.post(
        f"/api/audit/assignments/{assignment_id}/edits",
        data=body,
        content_type="application/json",
        headers=headers,
    )


def claim_over_api(client: Any, campaign: Campaign, headers: dict[str, str]) -> int:
    """Press "next" on the campaign through the REST API; the assignment's id."""
    return int(
        client.post(f"/api/audit/campaigns/{campaign.pk}/claim", headers=headers).json()["id"]
    )


def all_nodes(verdict: str = "correct", **overrides: Any) -> dict[str, Any]:
    return {node: overrides.get(node, verdict) for node in NODES}


@pytest.fixture(autouse=True)
def _exports_in_tmp(settings: Any, tmp_path: Path) -> None:
    settings.DATA_DIR = tmp_path


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin")


@pytest.fixture
def campaign_of(admin: User) -> Callable[..., Campaign]:
    def make(tasks: int = 3, **options: Any) -> Campaign:
        filters = options.pop("filters", {})
        if tasks:
            make_tasks(tasks, **options.pop("task_fields", {}))
        return campaign_create(user=admin, name="Audit round 1", filters=filters, **options)

    return make


@pytest.fixture
def audit() -> Callable[..., Assignment]:
    """Claim the next task of a campaign for `user` and submit it."""

    def run(
        user: User,
        campaign: Campaign,
        decision: str = "accept",
        verdicts: dict[str, Any] | None = None,
    ) -> Assignment:
        assignment = assignment_claim_next(user=user, campaign_id=campaign.pk)
        assert assignment is not None, "the queue was empty"
        version = assignment.item.task.current_version.number
        return assignment_submit(
            user=user,
            assignment_id=assignment.pk,
            version=version,
            decision=decision,
            verdicts=verdicts or all_nodes(),
        )

    return run


BIG_TREE = Path(__file__).resolve().parents[2] / "fixtures" / "quest-trees" / "ad_patent.json"


def big_tree_campaign(admin: User, annotators_per_task: int = 1) -> Campaign:
    """A campaign over one real QUEST task whose rubric tree has 58 nodes (ad_patent)."""
    record = {**json.loads(BIG_TREE.read_text()), "category": "big tree"}
    tasks_write(user=None, prepared=[task_prepare(record)], note="big tree")
    return campaign_create(
        user=admin,
        name="Big tree",
        filters={"category": "big tree"},
        annotators_per_task=annotators_per_task,
    )
