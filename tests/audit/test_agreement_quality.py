from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Campaign, CampaignTask
from apps.audit.services import item_adjudicate
from apps.rubrics.models import Task
from tests.audit.conftest import all_nodes

pytestmark = pytest.mark.django_db

W = "wrong"


@pytest.fixture
def audited(
    make_user: Callable[..., User], campaign_of: Callable[..., Campaign], audit: Any
) -> Campaign:
    """Two annotators on two tasks, with labels whose agreement was computed by hand:
    task 1: root c/c, capital c/w, cited w/w (A accepts, B rejects: a dispute);
    task 2: root c/c, capital c/c, cited u/w (both accept)."""
    campaign = campaign_of(
        tasks=2, task_fields={"provenance": {"generator": "kg"}, "category": "Geography"}
    )
    a, b = make_user("annotator"), make_user("annotator")
    dup = {"verdict": W, "error_type": "duplicate"}
    audit(a, campaign, "accept", all_nodes(cited=dup))
    audit(
        b,
        campaign,
        "reject",
        all_nodes(cited=dup, capital={"verdict": W, "error_type": "hard_coded_answer"}),
    )
    audit(a, campaign, "accept", all_nodes(cited="unverifiable"))
    audit(b, campaign, "accept", all_nodes(cited={"verdict": W, "error_type": "other"}))
    return campaign


def _rows(body: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    return {r["label"]: (r["units"], r["kappa"], r["alpha"], r["percent"]) for r in body["nodes"]}


def test_kappa_and_alpha_per_node_type_match_the_hand_computed_values(
    client: Client, make_user: Callable[..., User], bearer: Any, audited: Campaign
) -> None:
    body = client.get(
        f"/api/audit/campaigns/{audited.pk}/agreement", headers=bearer(make_user("reviewer"))
    ).json()
    rows = _rows(body)
    # p_o = 4/6, p_e = (4*3 + 1*3) / 36, kappa = 9/21; alpha = 1 - 11 * 4 / 78.
    assert rows["all nodes"] == (
        6,
        pytest.approx(9 / 21),
        pytest.approx(1 - 44 / 78),
        pytest.approx(4 / 6),
    )
    assert rows["leaves"][1] == pytest.approx(3 / 11)
    assert rows["critical"][1] == pytest.approx(0.0)
    assert rows["groups"][:2] == (2, None), "one label throughout: undefined, not perfect"
    assert body["decisions"]["kappa"] == pytest.approx(0.0)


def test_judge_suggestions_are_shown_and_compared_with_the_human_verdicts(
    client: Client, make_user: Callable[..., User], bearer: Any, admin: User, audited: Campaign
) -> None:
    first, second = Task.objects.order_by("created_at", "id")
    for task, verdicts in (
        (first, {"capital": "fail", "cited": "pass"}),
        (second, {"capital": "pass", "cited": {"status": "error", "reasoning": "page gone"}}),
    ):
        recorded = client.post(
            f"/api/audit/tasks/{task.pk}/judge-verdicts",
            headers=bearer(admin),
            data={"version": 1, "verdicts": verdicts, "judge": "qwen-judge"},
            content_type="application/json",
        )
        assert recorded.json() == {"recorded": 2}
    item = CampaignTask.objects.get(task=first)
    reviewer = make_user("reviewer")
    item_adjudicate(
        user=reviewer,
        item_id=item.pk,
        decision="reject",
        gold={"capital": {"verdict": W, "error_type": "hard_coded_answer"}},
    )
    body = client.get(
        f"/api/audit/campaigns/{audited.pk}/agreement", headers=bearer(reviewer)
    ).json()["judge"]
    # Leaves with a judge verdict and a human label: capital1 (w/w gold), cited1 (c/w),
    # capital2 (c/c); cited2 has no human consensus. kappa = (2/3 - 4/9) / (5/9).
    assert (body["leaves"], body["percent"]) == (3, pytest.approx(2 / 3))
    assert body["kappa"] == pytest.approx(0.4)
    assert (body["rows"][0]["node_id"], body["rows"][0]["agrees"]) == ("cited", False)
    annotator = make_user("annotator")
    shown = client.get("/api/audit/assignments", headers=bearer(annotator))
    assert (shown.json()["count"], shown.json()["results"]) == (0, [])
    bad = client.post(
        f"/api/audit/tasks/{first.pk}/judge-verdicts",
        headers=bearer(admin),
        data={"version": 1, "verdicts": {"root": "pass"}},
        content_type="application/json",
    )
    assert bad.status_code == 422 and "no leaf 'root'" in bad.json()["detail"]


def test_error_rates_come_with_wilson_intervals_by_generator_category_and_error_type(
    client: Client, make_user: Callable[..., User], bearer: Any, audited: Campaign
) -> None:
    reviewer = make_user("reviewer")
    item = CampaignTask.objects.get(state="disputed")
    item_adjudicate(user=reviewer, item_id=item.pk, decision="reject")
    body = client.get(
        f"/api/audit/quality?campaign_id={audited.pk}", headers=bearer(reviewer)
    ).json()
    assert (body["overall"]["successes"], body["overall"]["n"]) == (1, 2)
    assert body["overall"]["low"] == pytest.approx(0.0945, abs=1e-4)
    assert body["overall"]["high"] == pytest.approx(0.9055, abs=1e-4)
    [kg] = body["groups"]["generator"]
    assert (kg["key"], kg["interval"]["rate"]) == ("kg", 0.5)
    assert body["groups"]["category"][0]["key"] == "Geography"
    types = {row["key"]: row["interval"]["successes"] for row in body["error_types"]}
    assert types["Duplicate"] == 1 and types["Hard-coded answer"] == 1 and types["Other"] == 0
    assert body["states"] == {"open": 0, "disputed": 0, "decided": 2}
    assert (body["submissions"], body["needed"]) == (4, 4)
    assert [(a["submitted"], a["last_day"]) for a in body["annotators"]] == [(2, 2), (2, 2)]
    annotator = bearer(make_user("annotator"))
    assert client.get("/api/audit/quality", headers=annotator).status_code == 403
