from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Assignment, Campaign, CampaignTask, GoldVerdict
from apps.rubrics.models import AuditState, Task
from tests.audit.conftest import all_nodes, make_tasks

pytestmark = pytest.mark.django_db


def _login(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def test_an_admin_creates_a_campaign_from_the_form_after_previewing_the_match_count(
    client: Client, admin: User
) -> None:
    make_tasks(4, category="Films")
    make_tasks(2, category="Sport")
    _login(client, admin)
    assert "Films" in client.get("/audit/campaigns/new/").content.decode()
    count = client.get("/audit/campaigns/new/count/?category=Films", headers={"HX-Request": "true"})
    assert count.content.decode() == "4 tasks with a tree match"
    form = {
        "name": "Films first",
        "category": "Films",
        "annotators_per_task": "2",
        "lock_minutes": "20",
    }
    created = client.post("/audit/campaigns/new/", form)
    campaign = Campaign.objects.get()
    assert created.status_code == 302 and created["Location"] == f"/audit/campaigns/{campaign.pk}/"
    assert (campaign.items.count(), campaign.lock_minutes) == (4, 20)
    refused = client.post("/audit/campaigns/new/", {**form, "annotators_per_task": "many"})
    assert refused.status_code == 422 and "whole number" in refused.content.decode()


def test_annotators_and_viewers_cannot_create_campaigns_and_viewers_only_follow_them(
    client: Client, make_user: Callable[..., User]
) -> None:
    assert _login(client, make_user("annotator")).get("/audit/campaigns/new/").status_code == 403
    viewer = _login(client, make_user("viewer"))
    assert viewer.get("/audit/campaigns/new/").status_code == 403
    assert "auditing needs the annotator role" in viewer.get("/audit/").content.decode()


def test_next_opens_the_audit_page_with_the_tree_the_solution_and_the_cheatsheet(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(
        tasks=2,
        task_fields={
            "solution": {
                "Canberra": {
                    "description": "the capital",
                    "reference_urls": ["https://en.wikipedia.org/wiki/Canberra"],
                }
            }
        },
    )
    annotator = make_user("annotator")
    _login(client, annotator)
    listing = client.get("/audit/").content.decode()
    assert "Audit round 1" in listing and "Next task" in listing
    opened = client.post(f"/audit/campaigns/{campaign.pk}/next/")
    assignment = Assignment.objects.get(annotator=annotator)
    assert opened["Location"] == f"/audit/a/{assignment.pk}/"
    page = client.get(opened["Location"]).content.decode()
    assert page.count('class="anode') == 3
    assert 'data-node="capital"' in page and "https://en.wikipedia.org/wiki/Canberra" in page
    assert 'id="dlg-cheatsheet"' in page and "audit-draft" in page
    tree = client.get(f"/audit/a/{assignment.pk}/tree/").content.decode()
    assert tree.lstrip().startswith('<ol class="atree" data-version="1"')


def test_someone_elses_assignment_is_forbidden_and_a_reviewer_sees_it_read_only(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    from apps.audit.services import assignment_claim_next

    campaign = campaign_of(tasks=1)
    held = assignment_claim_next(user=make_user("annotator"), campaign_id=campaign.pk)
    assert held is not None
    assert _login(client, make_user("annotator")).get(f"/audit/a/{held.pk}/").status_code == 403
    page = _login(client, make_user("reviewer")).get(f"/audit/a/{held.pk}/").content.decode()
    assert "read only" in page and 'id="dlg-submit"' not in page


def test_skipping_a_task_returns_to_the_campaign(
    client: Client, make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    campaign = campaign_of(tasks=2)
    _login(client, make_user("annotator"))
    client.post(f"/audit/campaigns/{campaign.pk}/next/")
    assignment = Assignment.objects.get()
    skipped = client.post(f"/audit/a/{assignment.pk}/release/", follow=True)
    assert "Task skipped" in skipped.content.decode()
    assert Assignment.objects.get().status == "released"


def test_a_reviewer_settles_a_dispute_on_the_adjudication_page(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    audit: Any,
) -> None:
    campaign = campaign_of(tasks=1)
    audit(make_user("annotator"), campaign, "accept")
    audit(
        make_user("annotator"),
        campaign,
        "reject",
        all_nodes(capital={"verdict": "wrong", "error_type": "hard_coded_answer"}),
    )
    item = CampaignTask.objects.get()
    _login(client, make_user("reviewer"))
    listing = client.get(f"/audit/campaigns/{campaign.pk}/disputes/").content.decode()
    assert f"/audit/items/{item.pk}/" in listing and "disputed" in listing
    page = client.get(f"/audit/items/{item.pk}/").content.decode()
    assert 'name="gold-capital"' in page and 'name="gold-cited"' not in page
    missing = client.post(f"/audit/items/{item.pk}/", {"decision": "maybe"})
    assert missing.status_code == 422
    decided = client.post(
        f"/audit/items/{item.pk}/",
        {
            "decision": "reject",
            "version": "1",
            "gold-capital": "wrong",
            "gold_type-capital": "hard_coded_answer",
            "comment": "hard-coded",
        },
    )
    assert decided.status_code == 302
    assert GoldVerdict.objects.get().error_type == "hard_coded_answer"
    assert Task.objects.get().audit_state == AuditState.REJECTED


def test_the_dashboard_draws_error_rates_with_intervals_and_serves_plotly_offline(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    audit: Any,
) -> None:
    campaign = campaign_of(
        tasks=1, annotators_per_task=1, task_fields={"provenance": {"generator": "kg-v2"}}
    )
    audit(
        make_user("annotator", username="ann"),
        campaign,
        "reject",
        all_nodes(cited={"verdict": "wrong", "error_type": "duplicate"}),
    )
    _login(client, make_user("reviewer"))
    page = client.get(f"/audit/dashboard/?campaign={campaign.pk}")
    html = page.content.decode()
    assert "kg-v2" in html and "1 / 1" in html
    figures = json.loads(
        html.split('id="audit-figures" type="application/json">')[1].split("</script>")[0]
    )
    bars = figures["by generator"]["data"][0]
    assert bars["x"] == ["kg-v2"] and bars["y"] == [1.0]
    assert bars["error_y"]["arrayminus"][0] == pytest.approx(1 - 0.2065, abs=1e-3)
    plotly = client.get("/static/vendor/plotly/plotly-4.1.1.min.js")
    assert plotly.status_code == 200
    assert _login(client, make_user("annotator")).get("/audit/dashboard/").status_code == 403


def test_exports_are_started_from_the_campaign_page_and_jsonl_streams(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    audit: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=1)
    audit(make_user("annotator"), campaign)
    _login(client, make_user("reviewer"))
    detail = client.get(f"/audit/campaigns/{campaign.pk}/").content.decode()
    assert f"/audit/campaigns/{campaign.pk}/agreement/" in detail and "Build parquet" in detail
    agreement = client.get(f"/audit/campaigns/{campaign.pk}/agreement/").content.decode()
    assert "Krippendorff" in agreement and "task decision" in agreement
    with django_capture_on_commit_callbacks():
        started = client.post(
            f"/audit/campaigns/{campaign.pk}/exports/",
            {"format": "parquet"},
            headers={"HX-Request": "true"},
        )
    assert (
        "Queued" in started.content.decode() and 'hx-trigger="every 2s"' in started.content.decode()
    )
    streamed = client.get(f"/audit/campaigns/{campaign.pk}/export.jsonl")
    [line] = b"".join(streamed.streaming_content).decode().splitlines()
    assert json.loads(line)["decision"] == "accept"


def test_the_audit_page_shows_the_tasks_soundness_and_a_probe_button(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    settings: Any,
) -> None:
    from apps.audit.services import assignment_claim_next
    from apps.rubrics.models import ProbeRun
    from tests.factories import ProbeRunFactory

    settings.LLM_JUDGE_MODEL = ""
    solution = {"Canberra": {"description": "the capital", "reference_urls": []}}
    campaign = campaign_of(tasks=1, task_fields={"solution": solution})
    annotator = make_user("annotator")
    held = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    assert held is not None
    page = _login(client, annotator).get(f"/audit/a/{held.pk}/").content.decode()
    assert 'data-testid="probe-status"' in page and "not probed" in page
    assert 'data-testid="probe-button"' in page
    assert "No judge model is configured" not in page  # its tree has no judge leaf
    pressed = client.post(
        f"/tasks/{held.item.task_id}/probe/", {"part": "status"}, headers={"HX-Request": "true"}
    ).content.decode()
    assert pressed.lstrip().startswith('<div class="probe probe-status"') and "probing…" in pressed
    ProbeRun.objects.all().delete()
    ProbeRunFactory(version=held.item.task.current_version, verdict="unsound")
    page = client.get(f"/audit/a/{held.pk}/").content.decode()
    assert 'data-state="unsound"' in page and "every 2s" not in page
