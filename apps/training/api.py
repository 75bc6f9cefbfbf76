"""REST for training: datasets, jobs (launch, cancel, resume, metrics, rollouts, log,
checkpoints), run comparison, presets and evaluations; the same services and selectors as the
pages. Everyone with a role reads; only admins write."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import FileResponse, HttpRequest
from ninja import Field, Query, Router, Status

from apps.common.errors import Invalid
from apps.common.pagination import WAS_A_BARE_LIST, Page, paginate
from apps.common.schemas import Id, PageNumber, errors
from apps.jobs.api import kind_routes
from apps.training import compare, selectors, services
from apps.training.models import Evaluation, TrainingDataset, TrainingJob, TrainingPreset
from apps.training.paths import shown_paths, shown_paths_in
from apps.training.schemas import (
    CheckpointOut,
    CompareOut,
    ConfigPreviewOut,
    DatasetIn,
    DatasetOut,
    DatasetPageOut,
    LogOut,
    MetricOut,
    PresetIn,
    PresetOut,
    PreviewRowOut,
    ResumeIn,
    RolloutOut,
    RolloutPageOut,
    TrainingEvaluationIn,
    TrainingEvaluationOut,
    TrainingEvaluationPageOut,
    TrainingJobIn,
    TrainingJobOut,
    TrainingJobPageOut,
)

router = Router(tags=["training"])

PageSize = Annotated[int, Field(ge=1, le=selectors.MAX_PAGE_SIZE)]
MetricPageSize = Annotated[int, Field(ge=1, le=selectors.MAX_METRICS_PER_PAGE)]
Line = Annotated[int, Field(ge=-1, le=2**31 - 1)]
Step = Annotated[int, Field(ge=0, le=2**31 - 1)]
FileName = Annotated[str, Field(max_length=64)]
BINARY = {"schema": {"type": "string", "format": "binary"}}


def _user(request: HttpRequest) -> Any:
    return request.auth  # type: ignore[attr-defined]


def _who(row: Any) -> str | None:
    return row.created_by.username if row.created_by else None


def _shown_in(out: dict[str, Any]) -> dict[str, Any]:
    shown: dict[str, Any] = shown_paths_in(out)  # a dict comes back a dict
    return shown


def dataset_out(dataset: TrainingDataset) -> dict[str, Any]:
    fields = ("id", "name", "kind", "status", "params", "rows", "done", "total", "task_ids",
              "stats", "error", "created_at", "started_at", "finished_at")  # fmt: skip
    out = {
        **{name: getattr(dataset, name) for name in fields},
        "created_by": _who(dataset),
        "url": f"/training/datasets/{dataset.pk}/",
    }
    return _shown_in(out)  # read by every role: no absolute server path


def job_out(job: TrainingJob) -> dict[str, Any]:
    fields = ("id", "name", "kind", "status", "model", "dataset_id", "resumed_from_id",
              "config", "step", "max_steps", "cancel_requested", "summary", "error", "worker",
              "created_at", "started_at", "finished_at")  # fmt: skip
    out = {
        **{name: getattr(job, name) for name in fields},
        "created_by": _who(job),
        "url": f"/training/jobs/{job.pk}/",
    }
    return _shown_in(out)  # read by every role: no absolute server path


def evaluation_out(evaluation: Evaluation) -> dict[str, Any]:
    fields = ("id", "job_id", "checkpoint", "base_model", "status", "task_ids", "budgets",
              "done", "total", "results", "error", "created_at", "started_at",
              "finished_at")  # fmt: skip
    out = {
        **{name: getattr(evaluation, name) for name in fields},
        "created_by": _who(evaluation),
        "url": f"/training/evaluations/{evaluation.pk}/",
    }
    return _shown_in(out)  # read by every role: no absolute server path


def checkpoint_out(checkpoint: selectors.Checkpoint) -> dict[str, Any]:
    return {**vars(checkpoint), "path": shown_paths(checkpoint.path)}


def preset_out(preset: TrainingPreset) -> dict[str, Any]:
    fields = ("id", "name", "config", "created_at")
    return _shown_in(
        {**{name: getattr(preset, name) for name in fields}, "created_by": _who(preset)}
    )


# ---- datasets -------------------------------------------------------------------------------


@router.post(
    "/training/datasets",
    response={202: DatasetOut, **errors(403, 409, 422, body=True)},
    summary="Build a dataset from gated tasks on a worker (admin)",
)
def datasets_create(request: HttpRequest, payload: DatasetIn) -> Status[dict[str, Any]]:
    data = payload.dict(exclude_none=True)
    kind, name = data.pop("kind"), data.pop("name", "")
    dataset = services.dataset_create(user=_user(request), kind=kind, name=name, params=data)
    return Status(202, dataset_out(dataset))


kind_routes(
    router,
    kind="dataset",
    path="/training/datasets",
    param="dataset_id",
    out=DatasetOut,
    page_out=DatasetPageOut,
    summaries=(
        "Training datasets, newest first",
        "A dataset's progress, counts and token statistics",
        "Cancel a queued or building dataset (admin)",
    ),
    names=("datasets_list", "datasets_get", "datasets_cancel"),
    module=__name__,
)


@router.get(
    "/training/datasets/{dataset_id}/preview",
    response={200: Page[PreviewRowOut], **errors(403, 404, 422)},
    summary="The first rows with the chat template applied and the loss mask as runs",
    description=WAS_A_BARE_LIST,
)
def datasets_preview(
    request: HttpRequest, dataset_id: Id, page: PageNumber = 1, page_size: PageSize = 50
) -> dict[str, Any]:
    dataset = selectors.dataset_get(user=_user(request), dataset_id=dataset_id)
    rows = selectors.dataset_preview(dataset)
    return paginate(request, rows, page=page, page_size=page_size)


@router.get(
    "/training/datasets/{dataset_id}/files/{name}",
    response={200: None, **errors(403, 404, 422)},
    summary="One of the dataset's files (rows, trajectories, tasks, verl parquet)",
    openapi_extra={"responses": {200: {"content": {"application/octet-stream": BINARY}}}},
)
def datasets_file(request: HttpRequest, dataset_id: Id, name: FileName) -> FileResponse:
    dataset = selectors.dataset_get(user=_user(request), dataset_id=dataset_id)
    path = selectors.dataset_file_path(dataset, name)
    return FileResponse(
        path.open("rb"), as_attachment=True, filename=f"dataset-{dataset.pk}-{name}"
    )


# ---- jobs -----------------------------------------------------------------------------------


def _params(payload: Any) -> dict[str, Any]:
    data: dict[str, Any] = payload.dict(exclude_none=True)
    for key in ("kind", "dataset_id", "model", "name"):
        data.pop(key, None)
    return data


@router.post(
    "/training/config-preview",
    response={200: ConfigPreviewOut, **errors(403, 404, 422, body=True)},
    summary="The exact YAML config a launch would run (admin)",
)
def jobs_preview(request: HttpRequest, payload: TrainingJobIn) -> dict[str, Any]:
    text = services.config_preview(
        user=_user(request),
        kind=payload.kind,
        dataset_id=payload.dataset_id,
        model=payload.model,
        params=_params(payload),
    )
    return {"yaml": text}


@router.post(
    "/training/jobs",
    response={202: TrainingJobOut, **errors(403, 404, 409, 422, body=True)},
    summary="Launch a training run on the gpu queue (admin)",
)
def jobs_create(request: HttpRequest, payload: TrainingJobIn) -> Status[dict[str, Any]]:
    job = services.job_create(
        user=_user(request),
        kind=payload.kind,
        dataset_id=payload.dataset_id,
        model=payload.model,
        params=_params(payload),
        name=payload.name,
    )
    return Status(202, job_out(job))


kind_routes(
    router,
    kind="training",
    path="/training/jobs",
    param="job_id",
    out=TrainingJobOut,
    page_out=TrainingJobPageOut,
    summaries=(
        "Training jobs, newest first",
        "A job's status, step and config",
        "Cancel a queued job, or stop a running one after a checkpoint (admin)",
    ),
    names=("jobs_list", "jobs_get", "jobs_cancel"),
    module=__name__,
)


@router.post(
    "/training/jobs/{job_id}/resume",
    response={202: TrainingJobOut, **errors(403, 404, 409, 422, body=True)},
    summary="A new job continuing this one from a checkpoint (admin)",
)
def jobs_resume(request: HttpRequest, job_id: Id, payload: ResumeIn) -> Status[dict[str, Any]]:
    job = services.job_resume(
        user=_user(request), job_id=job_id, checkpoint=payload.checkpoint,
        max_steps=payload.max_steps,
    )  # fmt: skip
    return Status(202, job_out(job))


@router.get(
    "/training/jobs/{job_id}/metrics",
    response={200: Page[MetricOut], **errors(403, 404, 422)},
    summary="Logged steps (and the run's summary) after a line of its metrics log",
    description=WAS_A_BARE_LIST,
)
def jobs_metrics(
    request: HttpRequest,
    job_id: Id,
    after: Line = -1,
    page: PageNumber = 1,
    page_size: MetricPageSize = 1000,
) -> dict[str, Any]:
    job = selectors.job_get(user=_user(request), job_id=job_id)
    return paginate(
        request,
        selectors.metric_list(job, after=after),
        page=page,
        page_size=page_size,
        out=lambda m: {"line": m.line, "step": m.step, "kind": m.kind, "values": m.values},
    )


@router.get(
    "/training/jobs/{job_id}/rollouts",
    response={200: RolloutPageOut, **errors(403, 404, 422)},
    summary="GRPO rollouts with their reward components, newest step first",
)
def jobs_rollouts(
    request: HttpRequest,
    job_id: Id,
    step: Step | None = None,
    page: PageNumber = 1,
    page_size: PageSize = 20,
) -> dict[str, Any]:
    job = selectors.job_get(user=_user(request), job_id=job_id)
    rows = selectors.rollout_list(job, step=step)
    fields = RolloutOut.model_fields
    found = paginate(
        request,
        rows,
        page=page,
        page_size=page_size,
        out=lambda r: {name: getattr(r, name) for name in fields},
    )
    return {**found, "steps": selectors.rollout_steps(job)}


@router.get(
    "/training/jobs/{job_id}/log",
    response={200: LogOut, **errors(403, 404, 422)},
    summary="The end of the run's log, kept after it ends or fails",
)
def jobs_log(request: HttpRequest, job_id: Id) -> dict[str, Any]:
    return {"text": selectors.log_tail(selectors.job_get(user=_user(request), job_id=job_id))}


@router.get(
    "/training/jobs/{job_id}/checkpoints",
    response={200: Page[CheckpointOut], **errors(403, 404, 422)},
    summary="The run's checkpoints on disk, newest step first, with their size",
    description=WAS_A_BARE_LIST,
)
def jobs_checkpoints(
    request: HttpRequest, job_id: Id, page: PageNumber = 1, page_size: PageSize = 50
) -> dict[str, Any]:
    job = selectors.job_get(user=_user(request), job_id=job_id)
    found = selectors.checkpoints(job)
    return paginate(request, found, page=page, page_size=page_size, out=checkpoint_out)


@router.get(
    "/training/compare",
    response={200: CompareOut, **errors(403, 404, 422)},
    summary="Two to six runs side by side: config differences and their logged steps",
)
def jobs_compare(
    request: HttpRequest,
    jobs: Annotated[list[Id], Query(..., min_length=compare.MIN_JOBS, max_length=compare.MAX_JOBS)],
) -> dict[str, Any]:
    user = _user(request)
    found = [selectors.job_get(user=user, job_id=job_id) for job_id in dict.fromkeys(jobs)]
    if len(found) < compare.MIN_JOBS:
        raise Invalid(f"jobs: name {compare.MIN_JOBS} to {compare.MAX_JOBS} different jobs")
    differences, _ = compare.config_diff(found)
    return {
        "jobs": [job_out(job) for job in found],
        "differences": shown_paths_in(differences),
        "series": {str(job.pk): selectors.metric_series(job) for job in found},
    }


# ---- presets --------------------------------------------------------------------------------


@router.get(
    "/training/presets",
    response={200: Page[PresetOut], **errors(403, 404, 422)},
    summary="Saved launch forms, by name",
    description=WAS_A_BARE_LIST,
)
def presets_list(
    request: HttpRequest, page: PageNumber = 1, page_size: PageSize = 100
) -> dict[str, Any]:
    presets = selectors.preset_list(user=_user(request))
    return paginate(request, presets, page=page, page_size=page_size, out=preset_out)


@router.post(
    "/training/presets",
    response={201: PresetOut, **errors(403, 422, body=True)},
    summary="Save a launch form under a name, replacing one of that name (admin)",
)
def presets_save(request: HttpRequest, payload: PresetIn) -> Status[dict[str, Any]]:
    preset = services.preset_save(
        user=_user(request), name=payload.name, kind=payload.kind, model=payload.model,
        params=payload.params.dict(exclude_none=True),
    )  # fmt: skip
    return Status(201, preset_out(preset))


@router.delete(
    "/training/presets/{preset_id}",
    response={204: None, **errors(403, 404, 422)},
    summary="Delete a preset (admin)",
)
def presets_delete(request: HttpRequest, preset_id: Id) -> Status[None]:
    services.preset_delete(user=_user(request), preset_id=preset_id)
    return Status(204, None)


# ---- evaluations ----------------------------------------------------------------------------


@router.post(
    "/training/jobs/{job_id}/evaluations",
    response={202: TrainingEvaluationOut, **errors(403, 404, 409, 422, body=True)},
    summary="Evaluate a checkpoint and the job's base model on held-out tasks (admin)",
)
def evaluations_create(
    request: HttpRequest, job_id: Id, payload: TrainingEvaluationIn
) -> Status[dict[str, Any]]:
    budgets = {k: v for k in ("max_turns", "max_turn_tokens") if (v := getattr(payload, k))}
    evaluation = services.evaluation_create(
        user=_user(request), job_id=job_id, checkpoint=payload.checkpoint,
        compare_base=payload.compare_base, limit=payload.limit, budgets=budgets,
    )  # fmt: skip
    return Status(202, evaluation_out(evaluation))


kind_routes(
    router,
    kind="evaluation",
    path="/training/evaluations",
    param="evaluation_id",
    out=TrainingEvaluationOut,
    page_out=TrainingEvaluationPageOut,
    summaries=(
        "Evaluations, newest first",
        "An evaluation's progress, per-model summaries with 95% intervals, and the difference",
        "Cancel an evaluation; what it measured stays (admin)",
    ),
    names=("evaluations_list", "evaluations_get", "evaluations_cancel"),
    module=__name__,
)
