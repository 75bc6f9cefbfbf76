"""The training gate asks for more than an accepting audit: the gated version's latest probe run
must be done and sound, or the tree is not a reward a policy can be trained on."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.models import Campaign, CampaignTask
from apps.audit.selectors import training_eligible_tasks, training_versions
from apps.rubrics.models import RubricVersion
from apps.rubrics.services import version_create
from tests.factories import ProbeRunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def gated(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> RubricVersion:
    """A task two annotators accepted: the version the gate would train on."""
    campaign = campaign_of(tasks=1)
    audit(make_user("annotator"), campaign)
    audit(make_user("annotator"), campaign)
    version: RubricVersion = CampaignTask.objects.get().final_version
    return version


def test_an_accepted_task_whose_gated_version_probed_sound_is_eligible(
    gated: RubricVersion,
) -> None:
    ProbeRunFactory(version=gated)
    [(task, version)] = list(training_versions())
    assert (task.pk, version.pk) == (gated.task_id, gated.pk)


def test_an_accepted_task_that_was_never_probed_stays_out(gated: RubricVersion) -> None:
    assert not training_eligible_tasks().exists()


@pytest.mark.parametrize(
    ("status", "verdict"),
    [("done", "unsound"), ("done", "undecided"), ("failed", ""), ("queued", ""), ("running", "")],
)
def test_a_gated_version_whose_probe_is_not_sound_stays_out(
    gated: RubricVersion, status: str, verdict: str
) -> None:
    ProbeRunFactory(version=gated, status=status, verdict=verdict)
    assert not training_eligible_tasks().exists()


def test_a_sound_probe_of_a_different_version_does_not_count(
    gated: RubricVersion, make_user: Callable[..., User]
) -> None:
    tree = gated.tree
    tree["root"]["description"] = "edited after the audit"
    later = version_create(user=make_user("annotator"), task_id=gated.task_id, tree=tree)
    ProbeRunFactory(version=later)
    assert not training_eligible_tasks().exists()


def test_only_the_latest_probe_of_the_gated_version_counts(gated: RubricVersion) -> None:
    earlier = timezone.now() - timedelta(hours=1)
    ProbeRunFactory(version=gated, created_at=earlier)
    ProbeRunFactory(version=gated, verdict="unsound")
    assert not training_eligible_tasks().exists(), "a newer unsound probe withdraws the task"
    ProbeRunFactory(version=gated)
    assert training_eligible_tasks().get().gated_version_id == gated.pk


def test_the_training_tasks_api_lists_only_probed_sound_tasks(
    client: Client, gated: RubricVersion, make_user: Callable[..., User], bearer: Any
) -> None:
    headers = bearer(make_user("viewer"))
    assert client.get("/api/audit/training-tasks", headers=headers).json()["count"] == 0
    ProbeRunFactory(version=gated)
    body = client.get("/api/audit/training-tasks", headers=headers).json()
    assert [(r["task_id"], r["version"]) for r in body["results"]] == [(gated.task_id, 1)]
