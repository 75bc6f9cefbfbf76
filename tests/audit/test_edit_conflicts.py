"""An edit based on a version someone else replaced: the 409 says whether a merge would work, so
nobody is offered a merge that then fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign
from apps.rubrics.models import Task
from tests.audit.conftest import claim_over_api, post_edit

pytestmark = pytest.mark.django_db


_edit = post_edit


def _describe(node: str, text: str) -> list[dict[str, str]]:
    return [{"op": "set_description", "node": node, "description": text}]


def test_a_stale_edit_of_the_node_someone_else_changed_is_not_offered_a_merge(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=2)
    alice, bob = bearer(make_user("annotator", username="alice")), bearer(make_user("annotator"))
    a, b = claim_over_api(client, campaign, alice), claim_over_api(client, campaign, bob)
    assert (
        _edit(client, a, alice, base_version=1, ops=_describe("capital", "Canberra")).status_code
        == 201
    )

    clash = _edit(client, b, bob, base_version=1, ops=_describe("capital", "It is Canberra"))
    assert clash.status_code == 409
    body = clash.json()
    assert (body["mergeable"], body["conflicts"], body["current_version"]) == (
        False,
        ["capital"],
        2,
    )
    assert "version 2 was saved by alice while you edited version 1" in body["detail"]
    assert "redo your edit" in body["detail"] and "merge your edit into it" not in body["detail"]


def test_a_stale_edit_of_other_nodes_is_offered_a_merge_and_the_merge_saves_it(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    campaign = campaign_of(tasks=1, annotators_per_task=2)
    alice, bob = bearer(make_user("annotator")), bearer(make_user("annotator"))
    a, b = claim_over_api(client, campaign, alice), claim_over_api(client, campaign, bob)
    assert (
        _edit(client, a, alice, base_version=1, ops=_describe("capital", "Canberra")).status_code
        == 201
    )

    mine = _describe("cited", "A cited page names Canberra")
    offered = _edit(client, b, bob, base_version=1, ops=mine)
    assert offered.status_code == 409
    assert (offered.json()["mergeable"], offered.json()["conflicts"]) == (True, [])
    merged = _edit(client, b, bob, base_version=1, ops=mine, merge=True)
    assert merged.status_code == 201 and merged.json()["merged"] is True
    tree = Task.objects.get().current_version.tree
    assert [child["description"] for child in tree["root"]["children"]] == [
        "Canberra",
        "A cited page names Canberra",
    ]
