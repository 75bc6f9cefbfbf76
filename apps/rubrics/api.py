from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, File, Router, Status
from ninja.files import UploadedFile

from apps.common.errors import Invalid
from apps.common.jsonbody import loads_untrusted
from apps.common.pagination import WAS_A_BARE_LIST, Page, paginate
from apps.common.schemas import Id, PageNumber, VersionNumber, errors, read_body_as
from apps.jobs.api import kind_routes
from apps.rubrics import engine, evaluation, imports, selectors, services
from apps.rubrics.models import (
    AuditState,
    Complexity,
    ProbeRun,
    RubricVersion,
    Task,
    TaskImport,
    TaskType,
)
from apps.rubrics.schemas import (
    AnswerIn,
    DiffOut,
    EvaluationOut,
    ImportOut,
    ProbeIn,
    ProbeRunOut,
    ProbeRunSummaryOut,
    RubricTree,
    ScoreOut,
    TaskOut,
    TaskPageOut,
    TaskRecordIn,
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


def import_out(job: TaskImport) -> ImportOut:
    return ImportOut.model_validate(job, from_attributes=True)


PageSize = Annotated[int, Field(ge=1, le=selectors.MAX_PAGE_SIZE)]
# An empty filter is no filter.
ANY: Literal[""] = ""


@router.get(
    "/tasks",
    response={200: TaskPageOut, **errors(403, 404, 422)},
    summary="List tasks with filters and pagination",
)
def tasks_list(
    request: HttpRequest,
    q: str = "",
    type: TaskType | Literal[""] = ANY,
    category: str = "",
    subcategory: str = "",
    complexity: Complexity = Complexity.NONE,
    audit_state: AuditState | Literal[""] = ANY,
    page: PageNumber = 1,
    page_size: PageSize = 50,
) -> dict[str, Any]:
    filters = selectors.TaskFilters(q, type, category, subcategory, complexity, audit_state)
    tasks = selectors.task_list(user=request.auth, filters=filters)  # type: ignore[attr-defined]
    return paginate(request, tasks, page=page, page_size=page_size, out=_summary)


@router.post(
    "/tasks",
    response={201: TaskOut, **errors(403, 422, body=True)},
    summary="Create one task (admin)",
    openapi_extra=read_body_as(
        TaskRecordIn, description="One task record, read as an import file's records are"
    ),
)
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
        "reference_answer": task.reference_answer,
        "provenance": task.provenance,
        "tree": version.tree if version else None,
    }


@router.get(
    "/tasks/{task_id}",
    response={200: TaskOut, **errors(403, 404, 422)},
    summary="A task with its current tree",
)
def tasks_get(request: HttpRequest, task_id: Id) -> dict[str, Any]:
    return _task_out(selectors.task_get(user=request.auth, task_id=task_id))  # type: ignore[attr-defined]


@router.get(
    "/tasks/{task_id}/versions",
    response={200: Page[VersionSummaryOut], **errors(403, 404, 422)},
    summary="Versions, newest first",
    description=WAS_A_BARE_LIST,
)
def versions_list(
    request: HttpRequest, task_id: Id, page: PageNumber = 1, page_size: PageSize = 50
) -> dict[str, Any]:
    versions = selectors.version_list(user=request.auth, task_id=task_id)  # type: ignore[attr-defined]
    return paginate(
        request, versions, page=page, page_size=page_size, out=lambda v: _version(v, tree=False)
    )


@router.get(
    "/tasks/{task_id}/versions/{number}",
    response={200: VersionOut, **errors(403, 404, 422)},
    summary="One version",
)
def versions_get(request: HttpRequest, task_id: Id, number: VersionNumber) -> dict[str, Any]:
    version = selectors.version_get(user=request.auth, task_id=task_id, number=number)  # type: ignore[attr-defined]
    return _version(version, tree=True)


@router.post(
    "/tasks/{task_id}/versions",
    response={201: VersionOut, **errors(403, 404, 409, 422, body=True)},
    summary="Save an edited tree (reviewer, or an annotator holding an audit assignment on it)",
)
def versions_create(
    request: HttpRequest, task_id: Id, payload: VersionIn
) -> Status[dict[str, Any]]:
    version = services.version_edit(
        user=request.auth,  # type: ignore[attr-defined]
        task_id=task_id,
        tree=payload.tree,
        note=payload.note,
        base_number=payload.base_version,
    )
    return Status(201, _version(version, tree=True))


@router.get(
    "/tasks/{task_id}/diff",
    response={200: DiffOut, **errors(403, 404, 422)},
    summary="Diff two versions",
)
def versions_diff(
    request: HttpRequest, task_id: Id, a: VersionNumber, b: VersionNumber
) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    old = selectors.version_get(user=user, task_id=task_id, number=a)
    new = selectors.version_get(user=user, task_id=task_id, number=b)
    return {"a": a, "b": b, "changes": [c.to_dict() for c in diff_trees(old.tree, new.tree)]}


@router.post(
    "/rubrics/validate",
    response={200: ValidationOut, **errors(403, 422, body=True)},
    summary="Validate a tree of any shape",
    openapi_extra=read_body_as(
        RubricTree, description="The tree; a body that is no tree is answered valid: false"
    ),
)
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


@router.post(
    "/imports",
    response={202: ImportOut, **errors(403, 422, body=True)},
    summary="Import a JSON/JSONL file (admin)",
)
def imports_create(request: HttpRequest, file: File[UploadedFile]) -> Status[ImportOut]:
    job = imports.task_import_enqueue(
        user=request.auth,  # type: ignore[attr-defined]
        filename=file.name or "upload.json",
        payload=file.read(imports.MAX_UPLOAD_BYTES + 1),
    )
    return Status(202, import_out(job))


kind_routes(
    router,
    kind=imports.IMPORT,
    path="/imports",
    param="import_id",
    out=ImportOut,
    summaries=(
        None,
        "An import's progress and report",
        "Cancel a queued or running import: it ends failed and writes nothing (admin)",
    ),
    names=(None, "imports_get", "imports_cancel"),
    module=__name__,
)


@router.post(
    "/tasks/{task_id}/score",
    response={200: ScoreOut, **errors(403, 404, 422, body=True)},
    summary="Score the current tree from leaf verdicts",
)
def tasks_score(request: HttpRequest, task_id: Id, payload: VerdictsIn) -> dict[str, Any]:
    report = evaluation.task_score(user=request.auth, task_id=task_id, verdicts=payload.verdicts)  # type: ignore[attr-defined]
    return report.to_dict()


EVALUATE_LIMIT = (
    f"The answer is scored here, in the request, so it may hold at most "
    f"{evaluation.MAX_ANSWER_CHARS:,} characters, `<answer>` tags included: a longer one is a "
    "422 whose error names the limit, and a body over the upload limit is a 413."
)


@router.post(
    "/tasks/{task_id}/evaluate",
    response={200: EvaluationOut, **errors(403, 404, 422, body=True)},
    summary="Evaluate an answer: per-node results and the reward breakdown",
    description=EVALUATE_LIMIT,
)
def tasks_evaluate(request: HttpRequest, task_id: Id, payload: AnswerIn) -> dict[str, Any]:
    result = evaluation.task_try_answer(user=request.auth, task_id=task_id, answer=payload.answer)  # type: ignore[attr-defined]
    return {"report": result.report.to_dict(), "reward": result.reward}


def probe_out(run: ProbeRun, *, report: bool = True) -> dict[str, Any]:
    out = {
        "id": run.pk,
        "task_id": run.task_id,
        "version": run.version.number,
        "status": run.status,
        "verdict": run.verdict,
        "judge": run.judge,
        "error": run.error,
        "created_by": run.created_by.username if run.created_by else None,
        "created_at": run.created_at,
        "finished_at": run.finished_at,
    }
    return {**out, "report": run.report} if report else out


@router.post(
    "/tasks/{task_id}/probes",
    response={202: ProbeRunOut, **errors(403, 404, 422, body=True)},
    summary="Probe a version's tree: is it a reward a policy can be trained on? (annotator)",
)
def probes_create(
    request: HttpRequest, task_id: Id, payload: ProbeIn | None = None
) -> Status[dict[str, Any]]:
    run = services.probe_enqueue(
        user=request.auth,  # type: ignore[attr-defined]
        task_id=task_id,
        version=payload.version if payload else None,
    )
    return Status(202, probe_out(run))


@router.get(
    "/tasks/{task_id}/probes",
    response={200: Page[ProbeRunSummaryOut], **errors(403, 404, 422)},
    summary="A task's probe runs, newest first",
    description=WAS_A_BARE_LIST,
)
def probes_list(
    request: HttpRequest, task_id: Id, page: PageNumber = 1, page_size: PageSize = 50
) -> dict[str, Any]:
    runs = selectors.probe_runs(user=request.auth, task_id=task_id)  # type: ignore[attr-defined]
    return paginate(
        request, runs, page=page, page_size=page_size, out=lambda r: probe_out(r, report=False)
    )


@router.get(
    "/probes/{run_id}",
    response={200: ProbeRunOut, **errors(403, 404, 422)},
    summary="A probe run with its report",
)
def probes_get(request: HttpRequest, run_id: Id) -> dict[str, Any]:
    return probe_out(selectors.probe_get(user=request.auth, run_id=run_id))  # type: ignore[attr-defined]
