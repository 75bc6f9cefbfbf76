from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.rubrics.services import task_prepare, tasks_write
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db


def _task(question: str = "Which city is the capital of Australia?", **fields: Any) -> Task:
    record = {"question": question, "rubric": small_tree(question), **fields}
    [task] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    return task


def test_the_task_list_filters_searches_and_paginates(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    headers = bearer(make_user("viewer"))
    for i in range(7):
        _task(f"Find museum number {i} in Lisbon", category="Travel & Transportation")
    _task("Which film won the 1994 Palme d'Or?", category="Entertainment", type="open_ended")
    page = client.get("/api/tasks?page_size=3&page=2", headers=headers).json()
    assert (page["count"], page["pages"], page["page"], len(page["results"])) == (8, 3, 2, 3)
    films = client.get("/api/tasks?category=Entertainment", headers=headers).json()
    assert [t["question"] for t in films["results"]] == ["Which film won the 1994 Palme d'Or?"]
    assert films["results"][0]["type"] == "open_ended"
    found = client.get("/api/tasks?q=museum Lisbon", headers=headers).json()
    assert found["count"] == 7
    assert client.get("/api/tasks?page_size=500", headers=headers).status_code == 422


def test_a_task_comes_with_its_current_tree_and_stats(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task = _task()
    body = client.get(f"/api/tasks/{task.pk}", headers=bearer(make_user("viewer"))).json()
    assert body["version"] == 1
    assert body["tree"]["root"]["children"][0]["check"] == {"kind": "mentions", "value": "Canberra"}
    assert body["stats"]["leaves"] == 2
    assert client.get("/api/tasks/999999", headers=bearer(make_user("viewer"))).status_code == 404


def test_saving_an_edit_makes_a_new_current_version_and_the_diff_names_the_change(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task = _task()
    headers = bearer(make_user("reviewer"))
    tree = copy.deepcopy(task.current_version.tree)
    tree["root"]["children"][1]["critical"] = True
    response = client.post(
        f"/api/tasks/{task.pk}/versions",
        data={"tree": tree, "note": "citation is required", "base_version": 1},
        content_type="application/json",
        headers=headers,
    )
    assert response.status_code == 201 and response.json()["number"] == 2
    versions = client.get(f"/api/tasks/{task.pk}/versions", headers=headers).json()
    assert [v["number"] for v in versions["results"]] == [2, 1]
    diff = client.get(f"/api/tasks/{task.pk}/diff?a=1&b=2", headers=headers).json()
    assert [
        (c["op"], c["node_id"], c["field"], c["before"], c["after"]) for c in diff["changes"]
    ] == [("changed", "cited", "critical", False, True)]


def test_an_edit_based_on_an_old_version_is_refused_and_nothing_is_lost(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task = _task()
    headers = bearer(make_user("reviewer"))
    tree = task.current_version.tree
    first = client.post(
        f"/api/tasks/{task.pk}/versions",
        data={"tree": tree, "base_version": 1},
        content_type="application/json",
        headers=headers,
    )
    assert first.status_code == 201
    stale = client.post(
        f"/api/tasks/{task.pk}/versions",
        data={"tree": tree, "base_version": 1},
        content_type="application/json",
        headers=headers,
    )
    assert stale.status_code == 409
    assert "changed since version 1" in stale.json()["detail"]
    assert Task.objects.get(pk=task.pk).current_version.number == 2


def test_an_invalid_edit_is_refused_with_the_node_path(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task = _task()
    tree = copy.deepcopy(task.current_version.tree)
    tree["root"]["critical"] = True
    response = client.post(
        f"/api/tasks/{task.pk}/versions",
        data={"tree": tree, "base_version": 1},
        content_type="application/json",
        headers=bearer(make_user("reviewer")),
    )
    assert response.status_code == 422
    assert "root" in response.json()["detail"] and "critical" in response.json()["detail"]
    assert task.versions.count() == 1


def test_a_viewer_cannot_save_versions(
    client: Client, make_user: Callable[..., User], bearer
) -> None:
    task = _task()
    response = client.post(
        f"/api/tasks/{task.pk}/versions",
        data={"tree": small_tree()},
        content_type="application/json",
        headers=bearer(make_user("viewer")),
    )
    assert response.status_code == 403


def test_validate_accepts_every_quest_shape_and_reports_errors_with_paths(
    client: Client, make_user: Callable[..., User], bearer, quest_task
) -> None:
    headers = bearer(make_user("viewer"))
    ok = client.post(
        "/api/rubrics/validate",
        data=quest_task("ad_patent"),
        content_type="application/json",
        headers=headers,
    ).json()
    assert ok["valid"] is True and ok["shape"] == "C" and ok["stats"]["nodes"] == 58
    bad = small_tree()
    bad["root"]["strategy"] = "zigzag"
    result = client.post(
        "/api/rubrics/validate", data=bad, content_type="application/json", headers=headers
    ).json()
    assert result["valid"] is False
    assert any("root" in e and "zigzag" in e for e in result["errors"])


@pytest.mark.parametrize("body", [b"{not json", b"[" * 50_000, b'"a string"'])
def test_validate_survives_hostile_bodies(
    client: Client, make_user: Callable[..., User], bearer, body: bytes
) -> None:
    response = client.post(
        "/api/rubrics/validate",
        data=body,
        content_type="application/json",
        headers=bearer(make_user("viewer")),
    )
    assert response.status_code in (200, 422)
    if response.status_code == 200:
        assert response.json()["valid"] is False


def test_the_task_pages_render_list_detail_tree_and_versions(
    client: Client, make_user: Callable[..., User], quest_task
) -> None:
    record = quest_task("ad_patent")
    [task] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    client.force_login(make_user("viewer"))
    listing = client.get("/tasks/?q=patents").content.decode()
    assert f'href="/tasks/{task.pk}/"' in listing
    fragment = client.get("/tasks/?q=zebra", headers={"HX-Request": "true"}).content.decode()
    assert "No tasks match" in fragment and "<html" not in fragment
    detail = client.get(f"/tasks/{task.pk}/").content.decode()
    assert detail.count('class="leaf') == task.current_version.stats["leaves"]
    assert detail.count("<ul") == detail.count("</ul>")  # the flat renderer closes every level
    assert "seq" in detail and "critical" in detail
    versions = client.get(f"/tasks/{task.pk}/versions/").content.decode()
    assert "v1 (current)" in versions
