from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import File, Query, Router, Status
from ninja.files import UploadedFile

from apps.common.errors import Invalid
from apps.common.jsonbody import loads_untrusted
from apps.rubrics import engine, evaluation, selectors, services
from apps.rubrics.models import RubricVersion, Task, TaskImport
from apps.rubrics.schemas import (
    AnswerIn,
    DiffOut,
    EvaluationOut,
    ImportOut,
    TaskOut,
    TaskPageOut,
    ValidationOut,
    VerdictsIn,
    VersionIn,
    VersionOut,
    VersionSummaryOut,
)
from quest.rubric.diff import diff_trees

router = Router(tags=["tasks and rubric trees"])


def _json_body(request: HttpRequest) -> Any:
    try:
        return loads_untrusted(request.body)
    except ValueError as exc:
        raise Invalid(f"request body is not JSON: {exc}") from exc


def _summary(task: Task) -> dict[str, Any]:
    version = task.current_version
    return {
        "id": task.pk,
        "question": task.question,
        "type": task.type,
        "category": task.category,
        "subcategory": task.subcategory,
        "complexity": task.complexity,
        "audit_state": task.audit_state,
        "version": version.number if version else None,
        "stats": version.stats if version else {},
        "created_at": task.created_at,
    }


def _version(version: RubricVersion, *, tree: bool) -> dict[str, Any]:
    out = {
        "number": version.number,
        "author": version.author.username if version.author else None,
        "note": version.note,
        "created_at": version.created_at,
        "stats": version.stats,
    }
    return {**out, "tree": version.tree} if tree else out


def _import(job: TaskImport) -> ImportOut:
    return ImportOut.model_validate(job, from_attributes=True)


@router.get("/tasks", response=TaskPageOut, summary="List tasks with filters and pagination")
def tasks_list(
    request: HttpRequest,
    q: str = "",
    type: str = "",
    category: str = "",
    subcategory: str = "",
    complexity: str = "",
    audit_state: str = "",
    page: int = 1,
    page_size: int = Query(50, ge=1, le=selectors.MAX_PAGE_SIZE),  # type: ignore[assignment]
) -> dict[str, Any]:
    filters = selectors.TaskFilters(q, type, category, subcategory, complexity, audit_state)
    result = selectors.task_page(user=request.auth, filters=filters, page=page, page_size=page_size)  # type: ignore[attr-defined]
    return {
        "count": result.paginator.count,
        "page": result.number,
        "pages": result.paginator.num_pages,
        "results": [_summary(t) for t in result],
    }


@router.post("/tasks", response={201: TaskOut}, summary="Create one task (admin)")
def tasks_create(request: HttpRequest) -> Status[dict[str, Any]]:
    record = _json_body(request)
    if not isinstance(record, dict):
        raise Invalid("expected one task as a JSON object")
    task = services.task_create(user=request.auth, record=record)  # type: ignore[attr-defined]
    return Status(201, _task_out(task))


def _task_out(task: Task) -> dict[str, Any]:
    version = task.current_version
    return {
        **_summary(task),
        "solution": task.solution,
        "provenance": task.provenance,
        "tree": version.tree if version else None,
    }


@router.get("/tasks/{task_id}", response=TaskOut, summary="A task with its current tree")
def tasks_get(request: HttpRequest, task_id: int) -> dict[str, Any]:
    return _task_out(selectors.task_get(user=request.auth, task_id=task_id))  # type: ignore[attr-defined]


@router.get("/tasks/{task_id}/versions", response=list[VersionSummaryOut], summary="Versions")
def versions_list(request: HttpRequest, task_id: int) -> list[dict[str, Any]]:
    versions = selectors.version_list(user=request.auth, task_id=task_id)  # type: ignore[attr-defined]
    return [_version(v, tree=False) for v in versions]


@router.get("/tasks/{task_id}/versions/{number}", response=VersionOut, summary="One version")
def versions_get(request: HttpRequest, task_id: int, number: int) -> dict[str, Any]:
    version = selectors.version_get(user=request.auth, task_id=task_id, number=number)  # type: ignore[attr-defined]
    return _version(version, tree=True)


@router.post("/tasks/{task_id}/versions", response={201: VersionOut}, summary="Save an edited tree")
def versions_create(
    request: HttpRequest, task_id: int, payload: VersionIn
) -> Status[dict[str, Any]]:
    version = services.version_create(
        user=request.auth,  # type: ignore[attr-defined]
        task_id=task_id,
        tree=payload.tree,
        note=payload.note,
        base_number=payload.base_version,
    )
    return Status(201, _version(version, tree=True))


@router.get("/tasks/{task_id}/diff", response=DiffOut, summary="Diff two versions")
def versions_diff(request: HttpRequest, task_id: int, a: int, b: int) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    old = selectors.version_get(user=user, task_id=task_id, number=a)
    new = selectors.version_get(user=user, task_id=task_id, number=b)
    return {"a": a, "b": b, "changes": [c.to_dict() for c in diff_trees(old.tree, new.tree)]}


@router.post("/rubrics/validate", response=ValidationOut, summary="Validate a tree of any shape")
def rubrics_validate(request: HttpRequest) -> dict[str, Any]:
    raw = _json_body(request)
    try:
        checked = engine.check_tree(raw)
    except engine.InvalidTree as exc:
        return {"valid": False, "errors": list(exc.errors)}
    return {
        "valid": True,
        "shape": checked.shape,
        "notes": list(checked.notes),
        "tree": checked.tree,
        "stats": engine.tree_stats(checked.tree),
    }


@router.post("/imports", response={202: ImportOut}, summary="Import a JSON/JSONL file (admin)")
def imports_create(request: HttpRequest, file: File[UploadedFile]) -> Status[ImportOut]:
    job = services.task_import_enqueue(
        user=request.auth,  # type: ignore[attr-defined]
        filename=file.name or "upload.json",
        payload=file.read(services.MAX_UPLOAD_BYTES + 1),
    )
    return Status(202, _import(job))


@router.get("/imports/{import_id}", response=ImportOut, summary="An import's progress and report")
def imports_get(request: HttpRequest, import_id: int) -> ImportOut:
    return _import(selectors.task_import_get(user=request.auth, import_id=import_id))  # type: ignore[attr-defined]


@router.post("/tasks/{task_id}/score", summary="Score the current tree from leaf verdicts")
def tasks_score(request: HttpRequest, task_id: int, payload: VerdictsIn) -> dict[str, Any]:
    report = evaluation.task_score(user=request.auth, task_id=task_id, verdicts=payload.verdicts)  # type: ignore[attr-defined]
    return report.to_dict()


@router.post(
    "/tasks/{task_id}/evaluate",
    response=EvaluationOut,
    summary="Evaluate an answer: per-node results and the reward breakdown",
)
def tasks_evaluate(request: HttpRequest, task_id: int, payload: AnswerIn) -> dict[str, Any]:
    result = evaluation.task_try_answer(user=request.auth, task_id=task_id, answer=payload.answer)  # type: ignore[attr-defined]
    return {"report": result.report.to_dict(), "reward": result.reward}
