"""Training fixtures: a small real corpus with a BM25 index, and tasks through the real training
gate (an accepting audit decision on the version, a sound probe run of it) on both sides of the
fixed held-out split."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from apps.accounts.models import User
from apps.rubrics.models import Task
from tests.quest.training.training_helpers import AUSTRALIA, FRANCE, build_corpus, capital_tree

QUESTIONS = ((AUSTRALIA, "Canberra"), (FRANCE, "Paris"))


@pytest.fixture(scope="session")
def training_corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_corpus(tmp_path_factory.mktemp("training_corpus"))


@pytest.fixture(autouse=True)
def training_dirs(settings: Any, tmp_path: Path, training_corpus_dir: Path) -> Path:
    """Every test gets its own training directory and the small corpus."""
    settings.TRAINING_DIR = tmp_path / "training"
    settings.CORPUS_DIR = training_corpus_dir
    return settings.TRAINING_DIR


def gate(task: Task, campaign: Any) -> None:
    """Put `task` through the gate as an audit and a probe would."""
    from apps.audit.models import CampaignTask
    from tests.factories import ProbeRunFactory

    version = task.current_version
    CampaignTask.objects.create(
        campaign=campaign, task=task, position=task.pk, start_version=version,
        state="decided", decision="accept", final_version=version, decided_at=timezone.now(),
    )  # fmt: skip
    Task.objects.filter(pk=task.pk).update(audit_state="accepted")
    ProbeRunFactory(version=version)


@pytest.fixture
def gated_tasks(admin: User) -> Callable[..., dict[str, list[Task]]]:
    """gated_tasks(train=N, held_out=M): gated capital-city tasks until each split of the fixed
    held-out split has at least that many; returns {"train": [...], "held_out": [...]}."""
    from apps.audit.models import Campaign
    from apps.rubrics.services import task_create
    from apps.training.selectors import held_out

    def make(train: int = 4, held_out_count: int = 2) -> dict[str, list[Task]]:
        campaign = Campaign.objects.create(name="gate", created_by=admin)
        split: dict[str, list[Task]] = {"train": [], "held_out": []}
        n = 0
        while len(split["train"]) < train or len(split["held_out"]) < held_out_count:
            question, city = QUESTIONS[n % 2]
            n += 1
            record = {"question": question, "type": "objective", "category": "Travel",
                      "rubric": capital_tree(question, city)}  # fmt: skip
            task = task_create(user=admin, record=record)
            gate(task, campaign)
            split["held_out" if held_out(task.pk) else "train"].append(task)
        return split

    return make
