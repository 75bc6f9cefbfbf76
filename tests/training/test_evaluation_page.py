"""An evaluation's page says when its held-out tasks are too few to conclude anything, and what
the requested task count became."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.training import services
from apps.training.models import Evaluation, TrainingJob
from tests.training.page_fixtures import _html, _login, dataset, evaluation, job, make_job

__all__ = ["dataset", "evaluation", "job", "make_job"]

pytestmark = pytest.mark.django_db


def _scored(n: int) -> dict[str, Any]:
    scores = [{"task_id": str(i + 1), "reward": 0.5, "status": "answered"} for i in range(n)]
    return {"model": "ckpt", "n": n, "mean": 0.5, "ci95": [0.5, 0.5], "scores": scores}


def test_an_evaluation_on_one_task_says_it_is_too_few_to_conclude_and_what_was_asked(
    client: Client, viewer: User, evaluation: Evaluation
) -> None:
    Evaluation.objects.filter(pk=evaluation.pk).update(
        task_ids=["1"],
        tasks_asked=40,
        base_model="",
        results={"models": {"checkpoint": _scored(1)}},
    )

    page = _html(_login(client, viewer).get(f"/training/evaluations/{evaluation.pk}/"))

    assert "40 asked, 1 available" in page
    assert 'data-testid="too-few"' in page
    assert "Too few tasks to conclude anything: 1 scored (fewer than 10)" in page


def test_an_evaluation_of_three_tasks_warns_beside_its_intervals(
    client: Client, viewer: User, evaluation: Evaluation
) -> None:
    page = _html(_login(client, viewer).get(f"/training/evaluations/{evaluation.pk}/"))

    assert "Too few tasks to conclude anything: 2 scored (fewer than 10)" in page
    assert "asked," not in page, "no count was recorded for this evaluation"


def test_an_evaluation_of_enough_tasks_shows_no_warning(
    client: Client, viewer: User, evaluation: Evaluation
) -> None:
    ids = [str(i + 1) for i in range(12)]
    Evaluation.objects.filter(pk=evaluation.pk).update(
        task_ids=ids, tasks_asked=12, base_model="", results={"models": {"checkpoint": _scored(12)}}
    )

    page = _html(_login(client, viewer).get(f"/training/evaluations/{evaluation.pk}/"))

    assert 'data-testid="too-few"' not in page
    assert "12 held-out tasks" in page and "asked," not in page


def test_an_evaluation_records_how_many_tasks_were_asked_for(
    admin: User, job: TrainingJob, gated_tasks: Callable[..., dict[str, list[Any]]]
) -> None:
    gated_tasks(train=1, held_out_count=1)

    evaluation = services.evaluation_create(
        user=admin, job_id=job.pk, checkpoint="checkpoint-2", limit=40
    )

    assert evaluation.tasks_asked == 40
    assert len(evaluation.task_ids) < 40
