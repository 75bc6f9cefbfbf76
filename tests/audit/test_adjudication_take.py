"""A reviewer can side with one annotator on a disputed node ("Take A's verdict"), with or
without JavaScript; only reviewers and admins can; the page names error types and verdicts
readably, documents its keys, and offers fix-and-accept only when someone edited the tree."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Assignment, Campaign, CampaignTask, GoldVerdict
from apps.audit.services import assignment_claim_next, assignment_edit, assignment_submit, gold_take
from apps.common.errors import Forbidden, Invalid
from tests.audit.conftest import all_nodes

pytestmark = pytest.mark.django_db

WRONG_CAPITAL = all_nodes(capital={"verdict": "wrong", "error_type": "hard_coded_answer"})


@pytest.fixture
def disputed(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> tuple[CampaignTask, Assignment, Assignment]:
    campaign = campaign_of(tasks=1)
    first = audit(make_user("annotator", username="alice"), campaign, "accept")
    second = audit(make_user("annotator", username="bob"), campaign, "reject", WRONG_CAPITAL)
    return CampaignTask.objects.get(), first, second


def test_taking_an_annotators_verdict_makes_it_the_gold_verdict(
    make_user: Callable[..., User], disputed: tuple[CampaignTask, Assignment, Assignment]
) -> None:
    item, alice, bob = disputed
    reviewer = make_user("reviewer")
    gold = gold_take(user=reviewer, item_id=item.pk, node_id="capital", assignment_id=bob.pk)
    assert (gold.verdict, gold.error_type, gold.decided_by) == (
        "wrong",
        "hard_coded_answer",
        reviewer,
    )
    gold_take(user=reviewer, item_id=item.pk, node_id="capital", assignment_id=alice.pk)
    [kept] = GoldVerdict.objects.all()
    assert (kept.verdict, kept.error_type) == ("correct", ""), "taking again replaces it"


def test_only_reviewers_and_admins_may_take_a_verdict(
    client: Client,
    make_user: Callable[..., User],
    disputed: tuple[CampaignTask, Assignment, Assignment],
) -> None:
    item, _, bob = disputed
    with pytest.raises(Forbidden):
        gold_take(
            user=make_user("annotator"), item_id=item.pk, node_id="capital", assignment_id=bob.pk
        )
    client.force_login(make_user("annotator"))
    posted = client.post(f"/audit/items/{item.pk}/take/", {"take": f"{bob.pk}:capital"})
    assert posted.status_code == 403 and not GoldVerdict.objects.exists()
    gold_take(user=make_user("admin"), item_id=item.pk, node_id="capital", assignment_id=bob.pk)
    assert GoldVerdict.objects.get().verdict == "wrong"


def test_a_verdict_nobody_gave_cannot_be_taken(
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    disputed: tuple[CampaignTask, Assignment, Assignment],
) -> None:
    item, _, bob = disputed
    reviewer = make_user("reviewer")
    with pytest.raises(Invalid, match="submitted no verdict on node 'nowhere'"):
        gold_take(user=reviewer, item_id=item.pk, node_id="nowhere", assignment_id=bob.pk)
    other = campaign_of(tasks=1)
    held = assignment_claim_next(user=make_user("annotator"), campaign_id=other.pk)
    assert held is not None
    with pytest.raises(Invalid):
        gold_take(user=reviewer, item_id=item.pk, node_id="capital", assignment_id=held.pk)


def test_the_take_buttons_work_without_javascript_and_with_htmx(
    client: Client,
    make_user: Callable[..., User],
    disputed: tuple[CampaignTask, Assignment, Assignment],
) -> None:
    item, alice, bob = disputed
    client.force_login(make_user("reviewer"))
    page = client.get(f"/audit/items/{item.pk}/").content.decode()
    assert f'name="take" value="{bob.pk}:capital"' in page and "Take B's verdict" in page
    plain = client.post(f"/audit/items/{item.pk}/take/", {"take": f"{bob.pk}:capital"})
    assert plain.status_code == 302 and plain["Location"] == f"/audit/items/{item.pk}/#node-capital"
    assert GoldVerdict.objects.get().verdict == "wrong"
    row = client.post(
        f"/audit/items/{item.pk}/take/",
        {"take": f"{alice.pk}:capital"},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert row.lstrip().startswith('<tr id="node-capital"')
    assert '<option value="correct" selected>' in row
    pressed = re.findall(r'value="(\d+):capital"[^>]*aria-pressed="true"', row)
    assert pressed == [str(alice.pk)], "the button of the verdict taken shows as pressed"
    bad = client.post(f"/audit/items/{item.pk}/take/", {"take": "capital"})
    assert bad.status_code == 422 and "take=&lt;assignment id&gt;:&lt;node id&gt;" in (
        bad.content.decode()
    )


def test_the_page_names_error_types_readably_and_documents_its_keys(
    client: Client,
    make_user: Callable[..., User],
    disputed: tuple[CampaignTask, Assignment, Assignment],
) -> None:
    item, _, _ = disputed
    client.force_login(make_user("reviewer"))
    page = client.get(f"/audit/items/{item.pk}/").content.decode()
    assert '· <span class="etype" title="hard_coded_answer">Hard-coded answer</span>' in page
    assert ">Wrong</span>" in page and ">Correct</span>" in page
    assert 'data-testid="adjudicate-keys"' in page and 'id="dlg-adj-keys"' in page
    assert "take A's / B's verdict" in page


def test_fix_and_accept_is_offered_only_when_someone_edited_the_tree(
    client: Client,
    make_user: Callable[..., User],
    campaign_of: Callable[..., Campaign],
    disputed: tuple[CampaignTask, Assignment, Assignment],
) -> None:
    item, _, _ = disputed
    client.force_login(make_user("reviewer"))
    page = client.get(f"/audit/items/{item.pk}/").content.decode()
    assert 'value="fix_accept" disabled' in page and "nobody edited the tree" in page
    refused = client.post(f"/audit/items/{item.pk}/", {"decision": "fix_accept", "version": "1"})
    assert refused.status_code == 422 and "needs a version newer" in refused.content.decode()

    campaign = campaign_of(
        tasks=1, filters={"category": "edited"}, task_fields={"category": "edited"}
    )
    fixer, keeper = make_user("annotator"), make_user("annotator")
    held = assignment_claim_next(user=fixer, campaign_id=campaign.pk)
    assert held is not None
    assignment_edit(
        user=fixer,
        assignment_id=held.pk,
        base_version=1,
        ops=[{"op": "set_critical", "node": "cited", "critical": True}],
    )
    assignment_submit(
        user=fixer, assignment_id=held.pk, version=2, decision="fix_accept", verdicts=all_nodes()
    )
    other = assignment_claim_next(user=keeper, campaign_id=campaign.pk)
    assert other is not None
    assignment_submit(
        user=keeper, assignment_id=other.pk, version=2, decision="reject", verdicts=all_nodes()
    )
    edited = CampaignTask.objects.get(campaign=campaign)
    page = client.get(f"/audit/items/{edited.pk}/").content.decode()
    assert 'value="fix_accept" disabled' not in page and 'value="fix_accept" required' in page
    assert 'data-take-decision="fix_accept" data-take-version="2"' in page


def test_the_rest_api_takes_a_verdict_through_the_same_service(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    disputed: tuple[CampaignTask, Assignment, Assignment],
) -> None:
    item, _, bob = disputed
    url = f"/api/audit/items/{item.pk}/gold/take"
    body = {"node_id": "capital", "assignment_id": bob.pk}
    taken = client.post(
        url, body, content_type="application/json", headers=bearer(make_user("reviewer"))
    )
    assert taken.status_code == 200
    assert taken.json()["gold"]["capital"]["error_type"] == "hard_coded_answer"
    annotator = bearer(make_user("annotator"))
    assert (
        client.post(url, body, content_type="application/json", headers=annotator).status_code
        == 403
    )
