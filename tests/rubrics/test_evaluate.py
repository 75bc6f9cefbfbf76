from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.rubrics.services import demo_tasks_load, task_prepare, tasks_write
from tests.rubrics.conftest import ROOT, small_task

pytestmark = pytest.mark.django_db


def _post(client: Client, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(url, data=body, content_type="application/json", headers=headers)


def test_scoring_verdicts_applies_the_critical_gate(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task, headers = small_task(), bearer(make_user("viewer"))
    passed = _post(
        client,
        f"/api/tasks/{task.pk}/score",
        {"verdicts": {"capital": "pass", "cited": "fail"}},
        headers,
    ).json()
    assert (passed["root_score"], passed["complete"]) == (0.0, True)  # only non-critical mean
    gated = _post(
        client,
        f"/api/tasks/{task.pk}/score",
        {"verdicts": {"capital": "fail", "cited": "pass"}},
        headers,
    ).json()
    assert gated["root_score"] == 0.0 and gated["root_status"] == "failed"
    both = _post(
        client,
        f"/api/tasks/{task.pk}/score",
        {"verdicts": {"capital": "pass", "cited": "pass"}},
        headers,
    ).json()
    assert both["root_score"] == 1.0


def test_an_errored_leaf_makes_the_score_incomplete_not_failed(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task, headers = small_task(), bearer(make_user("viewer"))
    body = _post(
        client,
        f"/api/tasks/{task.pk}/score",
        {"verdicts": {"capital": "pass", "cited": "error"}},
        headers,
    ).json()
    assert body["complete"] is False and body["errored"] == ["cited"]
    assert (body["root_score_lower"], body["root_score_upper"]) == (0.0, 1.0)


def test_verdicts_for_unknown_nodes_are_a_422_naming_them(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task = small_task()
    response = _post(
        client,
        f"/api/tasks/{task.pk}/score",
        {"verdicts": {"nope": "pass"}},
        bearer(make_user("viewer")),
    )
    assert response.status_code == 422 and "nope" in response.json()["detail"]


def test_without_a_corpus_the_source_leaves_are_undecided_and_the_reward_is_dropped(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    task = Task.objects.get(provenance__demo_id="canberra")
    answer = (
        "The capital of Australia is Canberra, home to 367,752 people. The largest city is "
        "Sydney [GeoNames](https://www.geonames.org/2077456)."
    )
    body = _post(
        client, f"/api/tasks/{task.pk}/evaluate", {"answer": answer}, bearer(make_user("viewer"))
    ).json()
    statuses = {n["id"]: n["status"] for n in body["report"]["nodes"]}
    assert statuses["capital"] == statuses["population"] == statuses["largest"] == "passed"
    # No corpus yet: the cited pages cannot be read, so the source leaves cannot be decided
    # and the reward is dropped instead of guessed.
    assert body["report"]["complete"] is False
    assert body["reward"]["dropped"] is True and body["reward"]["reward"] is None
    assert body["reward"]["unknown"] == 1


def test_a_wrong_capital_fails_the_critical_leaf_and_skips_the_rest(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    task = Task.objects.get(provenance__demo_id="canberra")
    body = _post(
        client,
        f"/api/tasks/{task.pk}/evaluate",
        {"answer": "Sydney is the capital, not Canberra; 367,752 people live in Canberra."},
        bearer(make_user("viewer")),
    ).json()
    statuses = {n["id"]: n["status"] for n in body["report"]["nodes"]}
    assert statuses["capital"] == "failed" and statuses["facts"] == "skipped"
    assert body["reward"]["reward"] == 0.0


def test_a_quest_tree_without_a_judge_is_dropped_not_scored_zero(
    client: Client, make_user: Callable[..., User], bearer, quest_task
) -> None:
    [task] = tasks_write(user=None, prepared=[task_prepare(quest_task("yu_lineage"))], note="")
    body = _post(
        client,
        f"/api/tasks/{task.pk}/evaluate",
        {"answer": "Some answer."},
        bearer(make_user("viewer")),
    ).json()
    assert body["report"]["complete"] is False
    assert body["reward"]["dropped"] is True and body["reward"]["reward"] is None


@pytest.mark.parametrize("answer", ["", "   ", "<answer> </answer>"])
def test_an_empty_answer_is_refused(
    client: Client, make_user: Callable[..., User], bearer, answer: str
) -> None:
    response = _post(
        client,
        f"/api/tasks/{small_task().pk}/evaluate",
        {"answer": answer},
        bearer(make_user("viewer")),
    )
    assert response.status_code == 422


def test_the_try_an_answer_fragment_lights_up_the_tree(
    client: Client, make_user: Callable[..., User]
) -> None:
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    task = Task.objects.get(provenance__demo_id="kilimanjaro")
    client.force_login(make_user("viewer"))
    html = client.post(
        f"/tasks/{task.pk}/try/",
        {"answer": "Kilimanjaro is the highest mountain in Africa, 5,895 m high, in Kenya."},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert 'data-testid="reward"' in html and 'hx-swap-oob="true"' in html
    assert 'data-node="country"' in html and "st-fail" in html and "st-pass" in html
