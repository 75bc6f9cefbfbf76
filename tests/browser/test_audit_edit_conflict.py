"""An edit saved on a tree someone else changed meanwhile: merge is offered only when it can
work, and what the annotator typed is never thrown away."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.audit.models import Assignment
from apps.audit.services import assignment_claim_next, assignment_edit, campaign_create
from apps.rubrics.models import Task
from apps.rubrics.services import demo_tasks_load
from tests.browser.test_task_pages import _login
from tests.rubrics.conftest import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

CONFLICT = "#dlg-conflict"
MERGE = f"{CONFLICT} [data-conflict=merge]"
TYPED = "Canberra is named as the capital, and no other city"


def _opened(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> tuple[list[str], User, Assignment]:
    """An annotator's audit page; another annotator holds the same task and may edit it."""
    demo_tasks_load(path=ROOT / "fixtures" / "demo" / "tasks.jsonl")
    campaign = campaign_create(
        user=make_user("admin"),
        name="Conflicts",
        filters={"generator": "questweb demo"},
        annotators_per_task=2,
        limit=1,
    )
    annotator, other = make_user("annotator"), make_user("annotator", username="olga")
    mine = assignment_claim_next(user=annotator, campaign_id=campaign.pk)
    theirs = assignment_claim_next(user=other, campaign_id=campaign.pk)
    assert mine is not None and theirs is not None
    _login(page, live_server.url, annotator, f"/audit/a/{mine.pk}/")
    page.wait_for_selector("#audit[data-ready]")
    nodes = page.eval_on_selector_all(".anode", "els => els.map(e => e.dataset.node)")
    return nodes, other, theirs


def _other_edits(other: User, theirs: Assignment, node: str) -> None:
    assignment_edit(
        user=other,
        assignment_id=theirs.pk,
        base_version=1,
        ops=[{"op": "set_description", "node": node, "description": "Olga's wording"}],
    )


def _edit_description(page: Any, node: str, text: str) -> None:
    page.locator(f".anode[data-node='{node}'] .desc").click()
    page.keyboard.press("e")
    page.fill("#dlg-edit [name=description]", text)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(f"{CONFLICT}[open]")


def test_an_edit_of_a_node_someone_else_changed_offers_no_merge_and_keeps_the_text(
    live_server: Any, page: Any, make_user: Callable[..., User], tmp_path: Path
) -> None:
    nodes, other, theirs = _opened(live_server, page, make_user)
    _other_edits(other, theirs, nodes[1])
    _edit_description(page, nodes[1], TYPED)

    assert page.locator(MERGE).is_hidden(), "a merge that cannot work is not offered"
    told = page.inner_text(CONFLICT)
    assert "Version 2 was saved by olga while you edited version 1" in told
    assert f"Description of {nodes[1]}: {TYPED}" in told  # what was typed, to read or copy
    page.screenshot(path=str(tmp_path / "conflict-1280.png"))

    page.get_by_role("button", name="Reload and redo my edit").click()
    page.wait_for_selector("#dlg-edit[open]")
    assert page.input_value("#dlg-edit [name=description]") == TYPED
    assert page.inner_text("#version-number") == "2"
    page.get_by_role("button", name="Save as new version").click()
    page.wait_for_selector(".atree[data-version='3']")
    tree = Task.objects.get(pk=theirs.item.task_id).current_version.tree
    assert tree["root"]["children"][0]["description"] == TYPED


def test_an_edit_of_other_nodes_is_offered_a_merge_that_saves_both(
    live_server: Any, page: Any, make_user: Callable[..., User]
) -> None:
    nodes, other, theirs = _opened(live_server, page, make_user)
    _other_edits(other, theirs, nodes[1])
    _edit_description(page, nodes[-1], TYPED)

    assert page.locator(MERGE).is_visible()
    page.click(MERGE)
    page.wait_for_selector(".atree[data-version='3']")
    assert "Saved version 3 (merged)" in page.inner_text("#notice")
    assert page.inner_text(f".anode[data-node='{nodes[1]}'] .desc") == "Olga's wording"
    assert page.inner_text(f".anode[data-node='{nodes[-1]}'] .desc") == TYPED
