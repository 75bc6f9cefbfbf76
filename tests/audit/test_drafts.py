"""Drafts with revisions: a tab or device that fell behind never overwrites newer work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.audit.models import Assignment, AssignmentStatus, Campaign, DraftRevision, NodeVerdict
from apps.audit.services import (
    DraftConflict,
    assignment_claim_next,
    assignment_draft_save,
    assignment_submit,
)
from apps.audit.services import drafts as drafts_module
from apps.audit.services.draft_merge import compare_drafts
from tests.audit.conftest import all_nodes, claim_over_api

pytestmark = pytest.mark.django_db


def _draft(verdicts: dict[str, Any] | None = None, **task: str) -> dict[str, Any]:
    return {"version": 1, "verdicts": verdicts or {}, **task}


@pytest.fixture
def annotator(make_user: Callable[..., User]) -> User:
    return make_user("annotator")


@pytest.fixture
def held(annotator: User, campaign_of: Callable[..., Campaign]) -> Assignment:
    assignment = assignment_claim_next(user=annotator, campaign_id=campaign_of(tasks=1).pk)
    assert assignment is not None
    return assignment


def _save(user: User, assignment: Assignment, base: int, **draft: Any) -> Assignment:
    return assignment_draft_save(
        user=user, assignment_id=assignment.pk, base_revision=base, draft=_draft(**draft)
    )


# ---- the service ----------------------------------------------------------------------------


def test_each_accepted_save_raises_the_revision(annotator: User, held: Assignment) -> None:
    assert held.draft_revision == 0
    first = _save(annotator, held, 0, verdicts={"root": "correct"})
    second = _save(annotator, held, 1, verdicts={"root": "correct", "capital": "wrong"})
    assert (first.draft_revision, second.draft_revision) == (1, 2)
    assert Assignment.objects.get(pk=held.pk).draft["verdicts"]["capital"] == {"verdict": "wrong"}


def test_a_save_based_on_an_older_revision_is_refused_and_nothing_is_written(
    annotator: User, held: Assignment
) -> None:
    _save(annotator, held, 0, verdicts={"root": "correct"})  # tab A
    before = Assignment.objects.get(pk=held.pk)
    kept = list(DraftRevision.objects.values_list("number", "draft"))
    with pytest.raises(DraftConflict, match="revision 1 of this draft was saved in another tab"):
        _save(annotator, held, 0, verdicts={"capital": "wrong"})  # tab B, still on revision 0
    after = Assignment.objects.get(pk=held.pk)
    assert after.draft == before.draft and after.draft_revision == 1
    assert after.lock_expires_at == before.lock_expires_at, "a refused save holds nothing"
    assert list(DraftRevision.objects.values_list("number", "draft")) == kept


def test_a_conflict_merges_what_changed_on_one_side_only_by_itself(
    annotator: User, held: Assignment
) -> None:
    _save(annotator, held, 0, verdicts={"root": "correct"})
    with pytest.raises(DraftConflict) as refused:
        _save(annotator, held, 0, verdicts={"capital": "wrong"}, decision="reject")
    conflict = refused.value
    assert (conflict.draft_revision, conflict.base_revision) == (1, 0)
    nodes = {d.key: d for d in conflict.comparison.nodes}
    assert (nodes["root"].changed_here, nodes["root"].changed_elsewhere) == (False, True)
    assert (nodes["capital"].changed_here, nodes["capital"].changed_elsewhere) == (True, False)
    assert conflict.comparison.conflicts == ()
    merged = conflict.comparison.merged
    assert merged["verdicts"] == {"root": {"verdict": "correct"}, "capital": {"verdict": "wrong"}}
    assert merged["decision"] == "reject"
    saved = assignment_draft_save(
        user=annotator, assignment_id=held.pk, base_revision=1, draft=merged
    )
    assert saved.draft_revision == 2 and set(saved.draft["verdicts"]) == {"root", "capital"}


def test_a_node_changed_on_both_sides_is_a_conflict_and_keeps_the_stored_side_until_settled(
    annotator: User, held: Assignment
) -> None:
    _save(annotator, held, 0, verdicts={"root": "correct", "cited": "correct"})
    _save(annotator, held, 1, verdicts={"root": "wrong", "cited": "correct"})  # elsewhere
    with pytest.raises(DraftConflict) as refused:
        _save(
            annotator,
            held,
            1,
            verdicts={"root": {"verdict": "unverifiable", "comment": "no source"}},
            comment="hard one",
        )
    comparison = refused.value.comparison
    [root] = comparison.conflicts
    assert root.key == "root"
    assert root.mine == {"verdict": "unverifiable", "comment": "no source"}
    assert root.theirs == {"verdict": "wrong"}
    [cited] = [d for d in comparison.nodes if d.key == "cited"]
    assert (cited.changed_here, cited.conflict) == (True, False), "removed here only"
    assert comparison.merged["verdicts"] == {"root": {"verdict": "wrong"}}
    assert comparison.merged["comment"] == "hard one"


def test_a_save_from_further_back_than_the_kept_revisions_makes_every_difference_a_conflict(
    annotator: User, held: Assignment, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drafts_module, "KEPT_REVISIONS", 3)
    for base in range(6):
        _save(annotator, held, base, verdicts={"root": "correct"}, comment=f"pass {base}")
    assert set(DraftRevision.objects.values_list("number", flat=True)) == {4, 5}
    stale = {"root": "correct", "capital": "wrong"}
    with pytest.raises(DraftConflict) as recent:
        _save(annotator, held, 5, verdicts=stale, comment="pass 4")
    assert recent.value.comparison.conflicts == ()
    with pytest.raises(DraftConflict) as ancient:
        _save(annotator, held, 1, verdicts=stale, comment="pass 4")
    assert {d.key for d in ancient.value.comparison.conflicts} == {"capital", "comment"}


def test_a_revision_the_server_never_had_is_refused_like_any_other_it_cannot_build_on(
    annotator: User, held: Assignment
) -> None:
    _save(annotator, held, 0, verdicts={"root": "correct"})
    with pytest.raises(DraftConflict) as refused:
        _save(annotator, held, 7, verdicts={"root": "wrong"})
    assert [d.key for d in refused.value.comparison.conflicts] == ["root"]
    assert Assignment.objects.get(pk=held.pk).draft_revision == 1


def test_compare_drafts_tells_what_changed_here_from_what_changed_elsewhere() -> None:
    base = {"verdicts": {"a": {"verdict": "correct"}}, "decision": "", "comment": ""}
    mine = {"verdicts": {"a": {"verdict": "correct"}, "b": {"comment": "?"}}, "decision": "accept"}
    theirs = {"verdicts": {}, "decision": "reject", "comment": "see b"}
    comparison = compare_drafts(base=base, mine=mine, theirs=theirs)
    found = {d.key: (d.changed_here, d.changed_elsewhere) for d in comparison.nodes}
    assert found == {"a": (False, True), "b": (True, False)}
    fields = {d.key: (d.changed_here, d.changed_elsewhere) for d in comparison.fields}
    assert fields == {"decision": (True, True), "comment": (False, True)}
    assert comparison.merged == {
        "verdicts": {"b": {"comment": "?"}},
        "decision": "reject",
        "comment": "see b",
        "version": None,
    }


def test_submitting_a_stale_draft_is_refused_and_nothing_is_recorded(
    annotator: User, held: Assignment
) -> None:
    _save(annotator, held, 0, verdicts={"root": "wrong"})  # another tab
    with pytest.raises(DraftConflict) as refused:
        assignment_submit(
            user=annotator,
            assignment_id=held.pk,
            version=1,
            decision="accept",
            verdicts=all_nodes(),
        )
    assert [d.key for d in refused.value.comparison.conflicts] == ["root"]
    assignment = Assignment.objects.get(pk=held.pk)
    assert assignment.status == AssignmentStatus.ACTIVE and not NodeVerdict.objects.exists()
    assert assignment.draft["verdicts"] == {"root": {"verdict": "wrong"}}
    assignment_submit(
        user=annotator,
        assignment_id=held.pk,
        version=1,
        decision="accept",
        verdicts=all_nodes(),
        base_revision=1,
    )
    assert Assignment.objects.get(pk=held.pk).status == AssignmentStatus.SUBMITTED
    assert not DraftRevision.objects.exists(), "a submitted task keeps no draft history"


# ---- the REST API ---------------------------------------------------------------------------


def _put(client: Client, assignment_id: int, headers: dict[str, str], body: Any) -> Any:
    return client.put(
        f"/api/audit/assignments/{assignment_id}/draft",
        data=body,
        content_type="application/json",
        headers=headers,
    )


def test_a_stale_save_over_the_api_answers_409_with_what_to_merge(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign_of(tasks=1), headers)
    detail = client.get(f"/api/audit/assignments/{assignment}", headers=headers).json()
    assert detail["draft_revision"] == 0
    first = _put(client, assignment, headers, {"base_revision": 0, "verdicts": {"root": "wrong"}})
    assert first.status_code == 200 and first.json()["draft_revision"] == 1
    stale = {"base_revision": 0, "verdicts": {"root": "correct", "cited": "unverifiable"}}
    refused = _put(client, assignment, headers, stale)
    assert refused.status_code == 409
    body = refused.json()
    assert set(body) == {
        "detail",
        "draft_revision",
        "base_revision",
        "draft",
        "nodes",
        "fields",
        "merged",
    }
    assert (body["draft_revision"], body["base_revision"]) == (1, 0)
    assert body["draft"]["verdicts"] == {"root": {"verdict": "wrong"}}
    assert body["nodes"] == [
        {
            "node": "root",
            "mine": {"verdict": "correct"},
            "theirs": {"verdict": "wrong"},
            "changed_here": True,
            "changed_elsewhere": True,
            "conflict": True,
        },
        {
            "node": "cited",
            "mine": {"verdict": "unverifiable"},
            "theirs": None,
            "changed_here": True,
            "changed_elsewhere": False,
            "conflict": False,
        },
    ]
    assert body["fields"] == []
    assert body["merged"] == {
        "verdicts": {"root": {"verdict": "wrong"}, "cited": {"verdict": "unverifiable"}},
        "decision": "",
        "comment": "",
        "version": None,
    }
    again = client.get(f"/api/audit/assignments/{assignment}", headers=headers).json()
    assert again["draft_revision"] == 1 and again["draft"]["verdicts"] == body["draft"]["verdicts"]
    submit = client.post(
        f"/api/audit/assignments/{assignment}/submit",
        data={"version": 1, "decision": "accept", "verdicts": all_nodes(), "base_revision": 0},
        content_type="application/json",
        headers=headers,
    )
    assert submit.status_code == 409 and submit.json()["draft_revision"] == 1


def test_nobody_else_can_read_or_save_an_annotators_draft(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    owner = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign_of(tasks=1), owner)
    _put(client, assignment, owner, {"base_revision": 0, "verdicts": {"root": "correct"}})
    other = bearer(make_user("annotator"))
    overwrite = {"base_revision": 1, "verdicts": {"root": "wrong"}}
    assert _put(client, assignment, other, overwrite).status_code == 403
    assert client.get(f"/api/audit/assignments/{assignment}", headers=other).status_code == 403
    reviewer = bearer(make_user("reviewer"))
    assert _put(client, assignment, reviewer, overwrite).status_code == 403
    stored = Assignment.objects.get(pk=assignment)
    assert stored.draft_revision == 1 and stored.draft["verdicts"] == {
        "root": {"verdict": "correct"}
    }


@pytest.mark.parametrize("revision", [-1, "0", 0.5, 1.0, None, True, "latest"])
def test_a_revision_that_is_not_a_whole_number_is_unprocessable(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
    revision: Any,
) -> None:
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign_of(tasks=1), headers)
    saved = _put(client, assignment, headers, {"base_revision": revision, "verdicts": {}})
    assert saved.status_code == 422 and saved.json()["errors"][0]["loc"][-1] == "base_revision"
    submitted = client.post(
        f"/api/audit/assignments/{assignment}/submit",
        data={
            "version": 1,
            "decision": "accept",
            "verdicts": all_nodes(),
            "base_revision": revision,
        },
        content_type="application/json",
        headers=headers,
    )
    assert submitted.status_code == 422
    assert Assignment.objects.get(pk=assignment).draft_revision == 0


def test_a_draft_save_without_a_revision_is_unprocessable(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    campaign_of: Callable[..., Campaign],
) -> None:
    headers = bearer(make_user("annotator"))
    assignment = claim_over_api(client, campaign_of(tasks=1), headers)
    assert _put(client, assignment, headers, {"verdicts": {}}).status_code == 422


def test_the_openapi_schema_documents_the_revision_and_the_409_body(client: Client) -> None:
    schema = client.get("/api/openapi.json").json()
    components = schema["components"]["schemas"]
    assert "base_revision" in components["DraftIn"]["required"]
    assert "draft_revision" in components["DraftOut"]["properties"]
    assert "draft_revision" in components["AssignmentDetailOut"]["properties"]
    assert "base_revision" in components["SubmissionIn"]["properties"]
    paths = schema["paths"]
    for path, method in (("draft", "put"), ("submit", "post")):
        responses = paths[f"/api/audit/assignments/{{assignment_id}}/{path}"][method]["responses"]
        refused = responses["409"]["content"]["application/json"]["schema"]
        # A 409 for a submitted task or a closed campaign carries only detail.
        assert refused["anyOf"] == [
            {"$ref": "#/components/schemas/DraftConflictOut"},
            {"$ref": "#/components/schemas/ErrorOut"},
        ]
    conflict = components["DraftConflictOut"]["properties"]
    assert {"draft_revision", "base_revision", "draft", "nodes", "fields", "merged"} <= set(
        conflict
    )
    node = components["NodeDifferenceOut"]["properties"]
    assert {"node", "mine", "theirs", "changed_here", "changed_elsewhere", "conflict"} <= set(node)


def test_the_audit_page_starts_from_the_stored_revision_and_has_the_merge_dialog(
    client: Client, annotator: User, held: Assignment
) -> None:
    _save(annotator, held, 0, verdicts={"root": "correct"})
    client.force_login(annotator)
    page = client.get(f"/audit/a/{held.pk}/").content.decode()
    assert 'data-draft-revision="1"' in page
    assert 'id="dlg-draft-conflict"' in page and "Take all of theirs" in page
