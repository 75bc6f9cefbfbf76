"""The demo tasks through the app's probe (apps.rubrics.services.probe_run) against the whole
offline corpus, the one `make run` builds: each reference answer is rewarded, the adversarial
answers are not, so every demo tree is sound and the gate may train on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.rubrics.services import demo_tasks_load, probe_enqueue, probe_run
from tests.rubrics.conftest import ROOT

pytestmark = pytest.mark.django_db

DEMO = ROOT / "fixtures" / "demo" / "tasks.jsonl"
QUESTWEB_DEMO = (
    "canberra", "kilimanjaro", "paris", "burn-criteria", "tokyo", "ottawa", "cairo", "nairobi",
)  # fmt: skip


@pytest.fixture(scope="module")
def offline_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole offline corpus (quest.corpus.load_offline) written as the app's corpus."""
    from quest.corpus import corpus_write, load_offline

    folder = tmp_path_factory.mktemp("offline_corpus")
    corpus_write(folder, list(load_offline()))
    return folder


@pytest.mark.parametrize("demo_id", QUESTWEB_DEMO)
def test_every_questweb_demo_tree_is_sound_under_the_apps_probe(
    demo_id: str, offline_corpus: Path, make_user: Callable[..., User], settings: Any
) -> None:
    settings.CORPUS_DIR = offline_corpus
    settings.LLM_JUDGE_MODEL = ""
    demo_tasks_load(path=DEMO)
    task = Task.objects.get(provenance__demo_id=demo_id)
    run = probe_run(run_id=probe_enqueue(user=make_user("annotator"), task_id=task.pk).pk)
    assert (run.status, run.error, run.verdict) == ("done", "", "sound"), run.report["reasons"]
    probes = {p["name"]: p for p in run.report["probes"]}
    assert probes["solution"]["reward"] == 1.0
    assert probes["solution"]["answer"] == task.reference_answer
    assert not [p["name"] for p in probes.values() if p["over_limit"]]
    assert run.report["untested"] == []
