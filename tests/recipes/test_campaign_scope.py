"""What the recipe added to training's services: a dataset, and an evaluation's held-out set,
limited to the tasks of one audit campaign (a recipe's gate); without one, every gated task."""

from __future__ import annotations

from typing import Any

import pytest

from apps.accounts.models import User
from apps.common.errors import Invalid
from apps.training import services
from apps.training.runner import dataset_run
from quest.training.tasks import held_out
from tests.quest.training.training_helpers import AUSTRALIA, capital_tree
from tests.training.conftest import gate

pytestmark = pytest.mark.django_db(reset_sequences=True)


def gated_in(admin: User, campaign: Any, count: int) -> list[int]:
    from apps.rubrics.services import task_create

    ids = []
    for _ in range(count):
        record = {"question": AUSTRALIA, "type": "objective", "category": "Travel",
                  "rubric": capital_tree(AUSTRALIA, "Canberra")}  # fmt: skip
        task = task_create(user=admin, record=record)
        gate(task, campaign)
        ids.append(task.pk)
    return ids


def test_a_dataset_of_one_campaign_holds_only_its_train_tasks(admin: User) -> None:
    from apps.audit.models import Campaign

    ours, theirs = (Campaign.objects.create(name=n, created_by=admin) for n in ("ours", "theirs"))
    mine = gated_in(admin, ours, 8)
    gated_in(admin, theirs, 4)
    dataset = services.dataset_create(user=admin, kind="rl", params={"campaign": ours.pk})
    dataset_run(dataset_id=dataset.pk)
    dataset.refresh_from_db()
    assert dataset.status == "done", dataset.error
    assert sorted(map(int, dataset.task_ids)) == [pk for pk in mine if not held_out(pk)]
    everyone = services.dataset_create(user=admin, kind="rl")
    dataset_run(dataset_id=everyone.pk)
    everyone.refresh_from_db()
    assert len(everyone.task_ids) > len(dataset.task_ids)


@pytest.mark.parametrize(("value", "message"), [(True, "the id of"), ("1", "the id of"),
                                                (999, "no audit campaign 999")])  # fmt: skip
def test_a_bad_campaign_is_refused(admin: User, value: Any, message: str) -> None:
    with pytest.raises(Invalid, match=message):
        services.dataset_create(user=admin, kind="sft", params={"campaign": value})


def test_held_out_tasks_of_one_campaign_leave_the_others_out(admin: User) -> None:
    from apps.audit.models import Campaign
    from apps.training.models import TrainingJob

    ours, theirs = (Campaign.objects.create(name=n, created_by=admin) for n in ("ours", "theirs"))
    mine = gated_in(admin, ours, 6)
    others = gated_in(admin, theirs, 8)
    job = TrainingJob.objects.create(name="j", kind="sft", config={"model": "tiny"})
    found = services.held_out_tasks(job, 100, campaign_id=ours.pk)
    assert found == [str(pk) for pk in mine if held_out(pk)] and found
    assert set(services.held_out_tasks(job, 100)) > set(found)
    assert not set(found) & {str(pk) for pk in others}
