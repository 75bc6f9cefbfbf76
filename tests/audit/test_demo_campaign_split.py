"""The demo journey stays trainable: on a fresh database, `manage.py seed_demo` (what `make run`
does) gives the demo campaign tasks on both sides of the fixed train / held-out split
(quest.training.tasks.held_out, a hash of the task's primary key), so auditing the demo
campaign leaves tasks to train on and tasks to evaluate on."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from apps.audit.models import Campaign
from apps.audit.services.campaigns import DEMO_CAMPAIGN
from apps.rubrics.models import Task
from quest.training.tasks import held_out

# A fresh database: primary keys start at 1, as on a new `make run`.
pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)


def test_seed_demo_gives_the_demo_campaign_tasks_to_train_on_and_to_hold_out(
    settings: Any, tmp_path: Path
) -> None:
    settings.DATA_DIR = tmp_path  # the demo passwords are written here
    out = StringIO()
    call_command("seed_demo", stdout=out)
    assert "Demo tasks added: 10" in out.getvalue()
    campaign = Campaign.objects.get(name=DEMO_CAMPAIGN)
    task_ids = list(campaign.items.values_list("task_id", flat=True))
    assert len(task_ids) == 8
    demo_ids = set(
        Task.objects.filter(pk__in=task_ids).values_list("provenance__demo_id", flat=True)
    )
    assert {"tokyo", "ottawa", "cairo", "nairobi"} <= demo_ids
    train = [pk for pk in task_ids if not held_out(pk)]
    held = [pk for pk in task_ids if held_out(pk)]
    assert len(train) >= 2, f"no demo task to train on: {sorted(held)} are all held out"
    assert len(held) >= 2, f"no demo task held out to evaluate on: {sorted(train)}"
    # A second run adds nothing and keeps the one campaign.
    call_command("seed_demo", stdout=StringIO())
    assert Task.objects.count() == 10 and Campaign.objects.filter(name=DEMO_CAMPAIGN).count() == 1
