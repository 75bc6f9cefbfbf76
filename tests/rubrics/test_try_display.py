"""What the task page's "Try an answer" shows: refusals in place of a result, and scores a
missing judge leaves open as undecided, never as a failure."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.evaluation import MAX_ANSWER_CHARS
from apps.rubrics.models import Task
from apps.rubrics.probe_view import probe_context
from apps.rubrics.services import task_prepare, tasks_write
from apps.rubrics.tree_view import tree_rows
from tests.rubrics.conftest import judged_tree, small_tree

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
CANBERRA = "Canberra is the capital [ACT](https://www.act.gov.au/)."


def _task(tree: dict[str, Any]) -> Task:
    [task] = tasks_write(
        user=None, prepared=[task_prepare({"question": "Capital?", "rubric": tree})], note=""
    )
    return task


def _judge_only_tree() -> dict[str, Any]:
    tree = judged_tree()
    tree["root"]["children"] = tree["root"]["children"][2:]
    return tree


def _nested_tree() -> dict[str, Any]:
    """small_tree whose "cited" leaf shares a group with a judge leaf."""
    tree = judged_tree()
    capital, cited, reasoned = tree["root"]["children"]
    group = {
        "id": "support",
        "description": "Supports it",
        "critical": False,
        "strategy": "parallel",
        "children": [cited, reasoned],
    }
    tree["root"]["children"] = [capital, group]
    return tree


def _try(client: Client, task: Task, answer: str, **headers: str) -> Any:
    return client.post(f"/tasks/{task.pk}/try/", {"answer": answer}, headers=headers or HTMX)


@pytest.mark.parametrize(
    ("answer", "message"),
    [("   ", "the answer is empty"), ("x" * (MAX_ANSWER_CHARS + 1), "longer than 200,000")],
)
def test_a_refused_answer_comes_back_to_htmx_as_a_fragment_in_place_of_the_result(
    client: Client, make_user: Callable[..., User], answer: str, message: str
) -> None:
    client.force_login(make_user("viewer"))
    response = _try(client, _task(small_tree()), answer)
    html = response.content.decode()
    # htmx swaps only 2xx answers: the refusal must arrive as one to replace the old result.
    assert response.status_code == 200
    assert 'data-testid="try-error"' in html and message in html
    assert 'data-testid="reward"' not in html


def test_a_refused_answer_without_htmx_keeps_its_422(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    response = _try(client, _task(small_tree()), " ", **{"X-Plain": "1"})
    assert response.status_code == 422
    assert "the answer is empty" in response.content.decode()


def test_a_judge_only_tree_shows_an_undecided_root_not_a_zero(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    html = _try(client, _task(_judge_only_tree()), CANBERRA).content.decode()
    assert 'data-testid="reward-undecided"' in html and 'data-testid="reward-value"' not in html
    assert "undecided</span>: between 0.000 and 1.000" in html
    root = re.search(r'<li class="([^"]*)" data-node="root".*?</summary>', html, re.S)
    assert root and "st-undecided" in root[1] and "undecided 0.00\N{EN DASH}1.00" in root[0]
    assert "st-error" not in html and "st-fail" not in html


def test_a_node_bracket_runs_from_the_undecided_leaves_failed_to_them_passed(
    client: Client, make_user: Callable[..., User]
) -> None:
    client.force_login(make_user("viewer"))
    html = _try(client, _task(_nested_tree()), CANBERRA).content.decode()
    # The group's cited leaf passes and its judge leaf cannot run: half, or all of it.
    assert "undecided 0.50\N{EN DASH}1.00" in html
    assert re.search(r'<li class="leaf st-undecided" data-node="reasoned"', html)
    assert re.search(r'<li class="leaf critical st-pass" data-node="capital"', html)


def test_a_decided_tree_shows_plain_scores(client: Client, make_user: Callable[..., User]) -> None:
    client.force_login(make_user("viewer"))
    html = _try(client, _task(small_tree()), CANBERRA).content.decode()
    assert 'data-testid="reward-value"' in html and "undecided" not in html
    assert '<span class="score">1.00</span>' in html


def test_an_internal_node_without_an_upper_bound_is_decided() -> None:
    rows = tree_rows(small_tree(), {"root": {"score": 0.0, "status": "error"}})
    assert rows[0].state == "error"
    rows = tree_rows(small_tree(), {"root": {"score": 0.0, "status": "error", "upper": 0.5}})
    assert rows[0].state == "undecided"
    rows = tree_rows(small_tree(), {"cited": {"score": 0.0, "status": "error"}})
    assert rows[2].state == "undecided"


def test_the_probe_table_shows_an_undecided_probe_as_undecided(
    client: Client, make_user: Callable[..., User]
) -> None:
    from django.template.loader import render_to_string

    task = _task(_judge_only_tree())
    user = make_user("viewer")
    context = probe_context(user=user, task=task, run=None)
    probe = {"name": "empty", "role": "adversarial", "answer": "", "root_score": 0.0}
    probe |= {"reward": 0.0, "limit": 0.1, "over_limit": False, "complete": False, "note": ""}
    run = type("Run", (), {"status": "done", "verdict": "undecided", "judge": "", "version": None})
    context |= {"probe_run": run, "probe_rows": [probe], "probe_report": {"limits": {}}}
    html = render_to_string("rubrics/_probe.html#panel", context)
    cells = re.findall(r'<td class="num">(.*?)</td>', html, re.S)
    assert cells[0].startswith('<span class="undecided-value"') and "≥ 0.000" in cells[0]
    assert cells[2].startswith('<span class="undecided-value"') and "≥ 0.000" in cells[2]
