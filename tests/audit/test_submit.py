from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.audit.models import Assignment, Campaign, CampaignTask, ItemState, NodeVerdict
from apps.audit.selectors import training_eligible_tasks
from apps.audit.services import assignment_claim_next
from apps.rubrics.models import AuditState, Task
from tests.audit.conftest import all_nodes, claim_over_api
from tests.factories import ProbeRunFactory

pytestmark = pytest.mark.django_db


def _post(client: Client, url: str, headers: dict[str, str], **data: Any) -> Any:
    return client.post(url, data=data, content_type="application/json", headers=headers)


def _claim_api(client: Client, campaign: Campaign, headers: dict[str, str]) -> dict[str, Any]:
    assignment_id = claim_over_api(client, campaign, headers)
    return client.get(f"/api/audit/assignments/{assignment_id}", headers=headers).json()


def test_submitting_needs_a_verdict_on_every_node_and_names_the_missing_ones(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    headers = bearer(make_user("annotator"))
    detail = _claim_api(client, campaign, headers)
    assert detail["tree"]["root"]["id"] == "root" and detail["current_version"] == 1
    url = f"/api/audit/assignments/{detail['id']}/submit"
    partial = _post(
        client, url, headers, version=1, decision="accept", verdicts={"root": "correct"}
    )
    assert partial.status_code == 422
    assert partial.json()["detail"] == "2 node(s) have no verdict yet: capital, cited"
    assert not NodeVerdict.objects.exists(), "nothing half written"
    wrong_type = _post(
        client,
        url,
        headers,
        version=1,
        decision="accept",
        verdicts=all_nodes(cited={"verdict": "wrong", "error_type": "typo"}),
    )
    assert (
        wrong_type.status_code == 422 and "error_type must be one of" in wrong_type.json()["detail"]
    )
    done = _post(
        client,
        url,
        headers,
        version=1,
        decision="accept",
        comment="fine",
        verdicts=all_nodes(cited={"verdict": "wrong", "error_type": "not_atomic"}),
    )
    assert done.status_code == 200 and done.json()["status"] == "submitted"
    again = _post(client, url, headers, version=1, decision="accept", verdicts=all_nodes())
    assert again.status_code == 409


def test_two_agreeing_accepts_accept_the_task_and_let_it_into_training(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> None:
    campaign = campaign_of(tasks=1)
    audit(make_user("annotator"), campaign)
    item = CampaignTask.objects.get()
    assert item.state == ItemState.OPEN and not training_eligible_tasks().exists()
    audit(make_user("annotator"), campaign)
    item.refresh_from_db()
    assert (item.state, item.decision, item.final_version.number) == ("decided", "accept", 1)
    assert Task.objects.get().audit_state == AuditState.ACCEPTED
    assert not training_eligible_tasks().exists(), "accepted, but its tree was never probed"
    ProbeRunFactory(version=item.final_version)
    [eligible] = training_eligible_tasks()
    assert eligible.gated_version_id == item.final_version_id


def test_a_reject_and_an_accept_wait_for_a_reviewer_and_stay_out_of_training(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
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
    assert item.state == ItemState.DISPUTED
    assert Task.objects.get().audit_state == AuditState.UNAUDITED
    assert not training_eligible_tasks().exists()
    reviewer = bearer(make_user("reviewer", username="boss"))
    listed = client.get(f"/api/audit/campaigns/{campaign.pk}/disputes", headers=reviewer).json()
    disputes = listed["results"]
    assert [(d["item_id"], d["decision_disputed"], d["open_nodes"]) for d in disputes] == [
        (item.pk, True, 1)
    ]
    url = f"/api/audit/items/{item.pk}/adjudicate"
    decided = _post(
        client,
        url,
        reviewer,
        decision="reject",
        comment="answer is baked in",
        gold={"capital": {"verdict": "wrong", "error_type": "hard_coded_answer"}},
    )
    assert decided.status_code == 200
    body = decided.json()
    assert (body["state"], body["decision"], body["decided_by"]) == ("decided", "reject", "boss")
    assert body["gold"]["capital"]["error_type"] == "hard_coded_answer"
    assert Task.objects.get().audit_state == AuditState.REJECTED
    left = client.get(f"/api/audit/campaigns/{campaign.pk}/disputes", headers=reviewer).json()
    assert left["results"] == [], "a settled dispute leaves the list"
    annotator = bearer(make_user("annotator"))
    assert _post(client, url, annotator, decision="accept").status_code == 403


def test_fix_and_accept_needs_an_edited_tree(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    headers = bearer(make_user("annotator"))
    detail = _claim_api(client, campaign, headers)
    refused = _post(
        client,
        f"/api/audit/assignments/{detail['id']}/submit",
        headers,
        version=1,
        decision="fix_accept",
        verdicts=all_nodes(),
    )
    assert refused.status_code == 422 and "needs a fixed tree" in refused.json()["detail"]


def test_a_draft_is_kept_on_the_server_and_keeps_the_lock_alive(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    headers = bearer(make_user("annotator"))
    detail = _claim_api(client, campaign, headers)
    Assignment.objects.filter(pk=detail["id"]).update(
        lock_expires_at=timezone.now() + timedelta(seconds=5)
    )
    draft = {
        "base_revision": 0,
        "version": 1,
        "verdicts": {"capital": {"verdict": "wrong", "comment": "hmm"}},
        "decision": "reject",
    }
    saved = client.put(
        f"/api/audit/assignments/{detail['id']}/draft",
        data=draft,
        content_type="application/json",
        headers=headers,
    )
    assert saved.status_code == 200 and saved.json()["current_version"] == 1
    assert saved.json()["draft_revision"] == 1
    assignment = Assignment.objects.get(pk=detail["id"])
    assert assignment.lock_expires_at > timezone.now() + timedelta(minutes=29)
    reloaded = client.get(f"/api/audit/assignments/{detail['id']}", headers=headers).json()
    assert reloaded["draft"]["verdicts"]["capital"] == {"verdict": "wrong", "comment": "hmm"}
    assert reloaded["draft"]["decision"] == "reject"
    bad = client.put(
        f"/api/audit/assignments/{detail['id']}/draft",
        data={"base_revision": 1, "decision": "maybe"},
        content_type="application/json",
        headers=headers,
    )
    assert bad.status_code == 422


def test_a_submission_after_the_slot_went_to_someone_else_is_refused(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> None:
    from apps.audit.services import assignment_submit
    from apps.common.errors import Conflict

    campaign = campaign_of(tasks=1, annotators_per_task=1)
    slow = make_user("annotator")
    held = assignment_claim_next(user=slow, campaign_id=campaign.pk)
    assert held is not None
    Assignment.objects.filter(pk=held.pk).update(lock_expires_at=timezone.now())
    audit(make_user("annotator"), campaign)
    with pytest.raises(Conflict, match="went to another annotator"):
        assignment_submit(
            user=slow, assignment_id=held.pk, version=1, decision="accept", verdicts=all_nodes()
        )


def test_a_late_submission_still_counts_when_nobody_took_the_slot(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign]
) -> None:
    from apps.audit.services import assignment_submit

    campaign = campaign_of(tasks=1, annotators_per_task=1)
    slow = make_user("annotator")
    held = assignment_claim_next(user=slow, campaign_id=campaign.pk)
    assert held is not None
    Assignment.objects.filter(pk=held.pk).update(lock_expires_at=timezone.now())
    assignment_submit(
        user=slow, assignment_id=held.pk, version=1, decision="accept", verdicts=all_nodes()
    )
    assert Task.objects.get().audit_state == AuditState.ACCEPTED
