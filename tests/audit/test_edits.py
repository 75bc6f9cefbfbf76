from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign, CampaignTask
from apps.audit.selectors import training_eligible_tasks, training_versions
from apps.audit.services import assignment_claim_next, assignment_submit
from apps.rubrics.models import AuditState, RubricVersion, Task
from apps.rubrics.services import version_create
from tests.audit.conftest import all_nodes, claim_over_api, post_edit
from tests.factories import ProbeRunFactory

pytestmark = pytest.mark.django_db


_edit = post_edit


def test_an_edit_saves_a_new_immutable_version_with_a_readable_diff(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign, headers)
    ops = [
        {"op": "set_critical", "node": "cited", "critical": True},
        {"op": "add_node", "parent": "root", "description": "Names the state it is in"},
    ]
    saved = _edit(client, assignment, headers, base_version=1, ops=ops)
    assert saved.status_code == 201
    body = saved.json()
    assert body["version"] == 2 and body["merged"] is False
    assert [(c["op"], c["node_id"], c["field"]) for c in body["changes"]] == [
        ("changed", "cited", "critical"),
        ("added", "names_the_state_it_is_in", ""),
    ]
    task = Task.objects.get()
    assert task.current_version.number == 2
    assert (
        RubricVersion.objects.get(task=task, number=1).tree["root"]["children"][1]["critical"]
        is False
    )
    assert "audit edit" in task.current_version.note


def test_an_edit_that_breaks_the_tree_is_refused_and_nothing_is_saved(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign, headers)
    broken = _edit(
        client,
        assignment,
        headers,
        base_version=1,
        ops=[{"op": "set_critical", "node": "root", "critical": True}],
    )
    assert broken.status_code == 422
    assert "critical parent has non-critical child" in broken.json()["detail"]
    unknown = _edit(client, assignment, headers, base_version=1, ops=[{"op": "paint"}])
    assert unknown.status_code == 422 and "op must be one of" in unknown.json()["detail"]
    assert RubricVersion.objects.count() == 1


def test_two_people_editing_at_once_lose_nothing_a_conflict_names_the_newer_version_and_merges(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    alice, bob = make_user("annotator", username="alice"), make_user("annotator")
    a, b = (
        claim_over_api(client, campaign, bearer(alice)),
        claim_over_api(client, campaign, bearer(bob)),
    )
    first = _edit(
        client,
        a,
        bearer(alice),
        base_version=1,
        ops=[{"op": "set_description", "node": "capital", "description": "Canberra"}],
    )
    assert first.status_code == 201
    mine = [{"op": "set_critical", "node": "cited", "critical": True}]
    stale = _edit(client, b, bearer(bob), base_version=1, ops=mine)
    assert stale.status_code == 409
    assert stale.json()["current_version"] == 2 and stale.json()["current_author"] == "alice"
    assert "merge your edit" in stale.json()["detail"]
    merged = _edit(client, b, bearer(bob), base_version=1, ops=mine, merge=True)
    assert merged.status_code == 201 and merged.json()["merged"] is True
    tree = Task.objects.get().current_version.tree
    assert tree["root"]["children"][0]["description"] == "Canberra", "alice's edit survived"
    assert tree["root"]["children"][1]["critical"] is True, "bob's edit landed"


def test_merging_an_edit_of_a_node_someone_else_changed_is_refused_naming_the_node(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    alice, bob = bearer(make_user("annotator")), bearer(make_user("annotator"))
    a, b = claim_over_api(client, campaign, alice), claim_over_api(client, campaign, bob)
    _edit(client, a, alice, base_version=1, ops=[{"op": "remove_node", "node": "cited"}])
    clash = _edit(
        client,
        b,
        bob,
        base_version=1,
        merge=True,
        ops=[{"op": "set_critical", "node": "cited", "critical": True}],
    )
    assert clash.status_code == 409 and clash.json()["conflicts"] == ["cited"]
    assert Task.objects.get().current_version.number == 2


def test_undo_of_an_edit_restores_the_previous_tree_as_a_new_version(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1)
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign, headers)
    _edit(client, assignment, headers, base_version=1, ops=[{"op": "remove_node", "node": "cited"}])
    undo = client.post(
        f"/api/audit/assignments/{assignment}/revert",
        headers=headers,
        data={"base_version": 2, "to_version": 1},
        content_type="application/json",
    )
    assert undo.status_code == 201 and undo.json()["version"] == 3
    assert [c["op"] for c in undo.json()["changes"]] == ["added"]
    versions = RubricVersion.objects.filter(task=Task.objects.get()).order_by("number")
    assert versions[2].tree == versions[0].tree


def test_fix_and_accept_trains_on_the_fixed_version_even_after_later_edits(
    make_user: Callable[..., User], admin: User, campaign_of: Callable[..., Campaign]
) -> None:
    from apps.audit.services import assignment_edit

    campaign = campaign_of(tasks=1)
    fixer, checker = make_user("annotator"), make_user("annotator")
    first = assignment_claim_next(user=fixer, campaign_id=campaign.pk)
    assert first is not None
    assignment_edit(
        user=fixer,
        assignment_id=first.pk,
        base_version=1,
        ops=[{"op": "set_critical", "node": "cited", "critical": True}],
    )
    assignment_submit(
        user=fixer,
        assignment_id=first.pk,
        version=2,
        decision="fix_accept",
        verdicts=all_nodes(cited={"verdict": "wrong", "error_type": "wrong_critical"}),
    )
    second = assignment_claim_next(user=checker, campaign_id=campaign.pk)
    assert second is not None
    assignment_submit(
        user=checker, assignment_id=second.pk, version=2, decision="accept", verdicts=all_nodes()
    )
    item = CampaignTask.objects.get()
    assert (item.decision, item.final_version.number) == ("fix_accept", 2)
    assert Task.objects.get().audit_state == AuditState.FIX_ACCEPTED
    task = Task.objects.get()
    later = task.current_version.tree
    later["root"]["description"] = "edited after the audit"
    version_create(user=admin, task_id=task.pk, tree=later, base_number=2)
    ProbeRunFactory(version=item.final_version)
    [(gated_task, gated)] = list(training_versions())
    assert gated_task.pk == task.pk and gated.number == 2
    assert gated.tree["root"]["children"][1]["critical"] is True
    assert training_eligible_tasks().get().gated_version_number == 2


def test_an_edit_that_was_undone_is_not_a_fix(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=1)
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign, headers)
    _edit(client, assignment, headers, base_version=1, ops=[{"op": "remove_node", "node": "cited"}])
    client.post(
        f"/api/audit/assignments/{assignment}/revert",
        headers=headers,
        data={"base_version": 2, "to_version": 1},
        content_type="application/json",
    )
    submit = f"/api/audit/assignments/{assignment}/submit"
    body = {"version": 3, "decision": "fix_accept", "verdicts": all_nodes()}
    refused = client.post(submit, data=body, content_type="application/json", headers=headers)
    assert refused.status_code == 422 and "needs a fixed tree" in refused.json()["detail"]
    accepted = client.post(
        submit,
        data={**body, "decision": "accept"},
        content_type="application/json",
        headers=headers,
    )
    assert accepted.json()["version"] == 1
    assert CampaignTask.objects.get().decision == "accept"
