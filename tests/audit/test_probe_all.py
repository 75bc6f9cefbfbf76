"""Accepted tasks become trainable whichever route accepted them: an accepting decision queues
the probe the gate needs, and "probe all" probes a campaign's or a filter's unprobed trees."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign, CampaignTask
from apps.audit.selectors import training_eligible_tasks
from apps.rubrics.models import ProbeRun
from apps.rubrics.services import probe_run

pytestmark = pytest.mark.django_db
REFERENCE = {"reference_answer": "Canberra is the capital [1].\n\n[1] https://example.org/canberra"}


@pytest.fixture
def corpus(settings: Any, tmp_path: Path) -> Path:
    """The page the reference answer cites, as the probes read it."""
    from quest.corpus import Document, corpus_write

    settings.CORPUS_DIR = tmp_path / "corpus"
    page = Document(
        url="https://example.org/canberra",
        title="Canberra",
        text="Canberra is the capital city of Australia.",
        source="wikipedia",
        licence="test",
        topic="",
        fetched_at="2026-11-01",
    )
    corpus_write(settings.CORPUS_DIR, [page])
    return Path(settings.CORPUS_DIR)


def test_an_accepting_decision_queues_the_probe_and_the_task_becomes_trainable(
    corpus: Path,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    audit: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    campaign = campaign_of(tasks=1, task_fields=REFERENCE)
    audit(make_user("annotator"), campaign)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        audit(make_user("annotator"), campaign)  # the second accept decides the task
    item = CampaignTask.objects.get()
    [run] = ProbeRun.objects.filter(version=item.final_version)
    assert run.status == "queued" and queued, "the probe is handed to a worker on commit"
    probe_run(run_id=run.pk)  # what the cpu worker runs
    run.refresh_from_db()
    assert run.status == "done", run.error
    assert run.verdict == "sound", run.report.get("reasons")
    assert training_eligible_tasks().get().pk == item.task_id


def test_a_rejecting_decision_queues_no_probe(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> None:
    campaign = campaign_of(tasks=1, task_fields=REFERENCE)
    audit(make_user("annotator"), campaign, decision="reject")
    audit(make_user("annotator"), campaign, decision="reject")
    assert not ProbeRun.objects.exists()


def test_probe_all_of_a_campaign_probes_each_unprobed_tree_once(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    bearer: Callable[[User], dict[str, str]],
) -> None:
    campaign = campaign_of(tasks=3, task_fields=REFERENCE)
    url = f"/api/audit/campaigns/{campaign.pk}/probes"
    first = client.post(url, headers=bearer(admin))
    assert first.status_code == 202, first.content
    assert first.json() == {"queued": 3, "already": 0, "skipped": []}
    again = client.post(url, headers=bearer(admin)).json()
    assert again == {"queued": 0, "already": 3, "skipped": []}
    assert ProbeRun.objects.count() == 3
    viewer = client.post(url, headers=bearer(make_user("annotator")))
    assert viewer.status_code == 403
    missing = client.post("/api/audit/campaigns/999999/probes", headers=bearer(admin))
    assert missing.status_code == 404


def test_probe_all_by_filter_names_tasks_it_cannot_probe_and_refuses_unknown_filters(
    client: Client,
    admin: User,
    campaign_of: Callable[..., Campaign],
    bearer: Callable[[User], dict[str, str]],
) -> None:
    campaign_of(tasks=2)  # no reference answer, no solution: nothing to probe with
    done = client.post(
        "/api/audit/probes",
        data={"filters": {"type": ""}},
        content_type="application/json",
        headers=bearer(admin),
    )
    assert done.status_code == 202, done.content
    body = done.json()
    assert body["queued"] == 0 and len(body["skipped"]) == 2
    assert "no reference answer" in body["skipped"][0]["reason"]
    bad = client.post(
        "/api/audit/probes",
        data={"filters": {"colour": "red"}},
        content_type="application/json",
        headers=bearer(admin),
    )
    assert bad.status_code == 422 and "unknown filter" in bad.json()["detail"]


def test_the_campaign_page_probes_all_with_one_button(
    client: Client,
    admin: User,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=2, task_fields=REFERENCE)
    client.force_login(admin)
    page = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    assert 'data-testid="probe-all"' in page
    done = client.post(f"/audit/campaigns/{campaign.pk}/probe/", follow=True)
    assert "2 probes queued, 0 trees probed already." in done.content.decode()
    assert ProbeRun.objects.count() == 2
    client.force_login(make_user("annotator"))
    assert (
        'data-testid="probe-all"'
        not in client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    )
    client.post(f"/audit/campaigns/{campaign.pk}/probe/")
    assert ProbeRun.objects.count() == 2  # an annotator's post queues nothing
