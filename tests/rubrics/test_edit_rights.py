"""Who may save a new current version of a task's tree over REST (issue 11, item 5a)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.services import (
    assignment_claim_next,
    assignment_release,
    campaign_close,
    campaign_create,
)
from apps.rubrics.models import Task
from apps.rubrics.services import task_prepare, tasks_write
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db


@pytest.fixture
def task() -> Task:
    record = {"question": "Which city is the capital of Australia?", "rubric": small_tree()}
    [task] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    return task


def _save(client: Client, task: Task, headers: dict[str, str], **body: Any) -> Any:
    tree = copy.deepcopy(task.current_version.tree)
    tree["root"]["children"][1]["critical"] = True
    return client.post(
        f"/api/tasks/{task.pk}/versions",
        data={"tree": tree, **body},
        content_type="application/json",
        headers=headers,
    )


def _claimed(make_user: Callable[..., User], task: Task) -> tuple[User, int]:
    """An annotator holding an open assignment on `task`, and the campaign's id."""
    campaign = campaign_create(user=make_user("admin"), name="round 1", filters={})
    annotator = make_user("annotator")
    assignment = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert assignment is not None and assignment.item.task_id == task.pk
    return annotator, campaign.pk


def test_an_annotator_without_an_assignment_cannot_save_a_version(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    response = _save(client, task, bearer(make_user("annotator")), base_version=1)
    assert response.status_code == 403
    assert response.json()["detail"] == (
        f"annotators may save versions of task {task.pk} only while they hold an open audit "
        "assignment on it; claim it in an audit campaign or ask a reviewer"
    )
    assert task.versions.count() == 1


def test_an_annotator_holding_an_assignment_on_the_task_saves_a_version(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    annotator, _ = _claimed(make_user, task)
    response = _save(client, task, bearer(annotator), base_version=1)
    assert response.status_code == 201 and response.json()["number"] == 2
    assert Task.objects.get(pk=task.pk).current_version.author == annotator


def test_an_assignment_given_back_or_in_a_closed_campaign_no_longer_allows_saving(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    annotator, campaign_id = _claimed(make_user, task)
    campaign_close(user=make_user("admin"), campaign_id=campaign_id)
    assert _save(client, task, bearer(annotator), base_version=1).status_code == 403
    other, _ = _claimed(make_user, task)
    assignment_release(user=other, assignment_id=other.audit_assignments.get().pk)
    assert _save(client, task, bearer(other), base_version=1).status_code == 403


def test_an_assignment_on_another_task_does_not_allow_saving_this_one(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    annotator, _ = _claimed(make_user, task)
    record = {"question": "Another question?", "rubric": small_tree("Another question?")}
    [other] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    assert _save(client, other, bearer(annotator), base_version=1).status_code == 403


@pytest.mark.parametrize("role", ["reviewer", "admin"])
def test_reviewers_and_admins_save_versions_of_any_task(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task, role: str
) -> None:
    response = _save(client, task, bearer(make_user(role)), base_version=1, note="fix")
    assert response.status_code == 201 and response.json()["note"] == "fix"


def test_a_save_without_base_version_is_refused_and_says_why(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    response = _save(client, task, bearer(make_user("reviewer")))
    assert response.status_code == 422
    assert response.json()["detail"] == (
        "base_version is required: the number of the version you edited (the save is refused "
        "if it is no longer the current one)"
    )
    assert task.versions.count() == 1


def test_a_save_on_a_stale_base_version_is_a_conflict(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    annotator, _ = _claimed(make_user, task)
    headers = bearer(annotator)
    assert _save(client, task, headers, base_version=1).status_code == 201
    stale = _save(client, task, headers, base_version=1)
    assert stale.status_code == 409
    assert "changed since version 1 (now version 2)" in stale.json()["detail"]


def test_a_viewer_still_cannot_save(
    client: Client, make_user: Callable[..., User], bearer: Any, task: Task
) -> None:
    response = _save(client, task, bearer(make_user("viewer")), base_version=1)
    assert response.status_code == 403
    assert response.json()["detail"] == "this needs the annotator role"
