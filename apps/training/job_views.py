"""A training job's pages: the launch form with its live YAML preview and presets, and a job
with its live curves, rollouts, log, checkpoints (resume, evaluate), config and evaluations.

The job page's panels that grow while it runs (rollouts, log, checkpoints) are polled; a poll
says what it already shows (`seen`) and gets 204, no swap, when nothing changed, so an
expanded rollout or a half-typed form is not redrawn under the reader every few seconds."""

from __future__ import annotations

import json
import zlib
from functools import partial
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.common.errors import Conflict, Invalid, NotFound
from apps.common.flash import flashed
from apps.jobs.models import JobStatus
from apps.training import job_charts, launch, selectors, services
from apps.training.models import JobKind, TrainingJob
from apps.training.paths import shown_paths
from apps.training.views import can_manage, form_number, page_user
from quest.training.config import SMOLLM2, TINY, ConfigError, parse_config, render_yaml

ROLLOUTS_PER_PAGE = 20
MB = 1024 * 1024
NO_CHANGE = 204


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


# ---- the launch form ----------------------------------------------------------------------------


def _base_models(request: HttpRequest) -> list[tuple[str, str]]:
    """(value, label) of the base models a job can start from: the built-in two, then the
    checkpoints of ended jobs."""
    found = [(TINY, "tiny (random weights, for smoke runs)"), (SMOLLM2, "SmolLM2-135M-Instruct")]
    for job, checkpoint in selectors.ended_checkpoints(user=page_user(request)):
        label = f"job {job.pk} {job.name[:40]} · {checkpoint.name}"
        found.append((shown_paths(checkpoint.path), label))
    return found


def _launch_context(request: HttpRequest, values: dict[str, str]) -> dict[str, Any]:
    user = page_user(request)
    models = _base_models(request)
    values = {**values, "model": shown_paths(values.get("model", ""))}  # a preset's may be absolute
    if values.get("model") not in {value for value, _ in models} and not values.get("model_path"):
        values = {**values, "model_path": values.get("model", ""), "model": ""}
    return {
        "values": values,
        "kinds": JobKind.choices,
        "job_datasets": {kind.value: ds.value for kind, ds in services.JOB_DATASET.items()},
        "datasets": selectors.dataset_built(user=user),
        "models": models,
        "top_fields": launch.top_fields(values),
        "groups": launch.form_groups(values),
        "sft_by_model": launch.sft_by_model(),
        "presets": selectors.preset_list(user=user),
        "can_manage": can_manage(request),
    }


def _posted(request: HttpRequest) -> dict[str, str]:
    return {key: request.POST.get(key, "") for key in request.POST if key != "csrfmiddlewaretoken"}


def _launch(request: HttpRequest) -> dict[str, Any]:
    """job_create's arguments from the form; Invalid names a bad field."""
    data = request.POST
    kind = data.get("kind", "")
    dataset_id = form_number(data, "dataset", int)
    if dataset_id is None:
        raise Invalid("dataset: pick a built dataset to train on")
    return {
        "kind": kind,
        "dataset_id": dataset_id,
        "model": launch.model(data),
        "params": launch.params(data, kind),
    }


@login_required
@require_http_methods(["GET", "POST"])
def job_new(request: HttpRequest) -> HttpResponse:
    user = page_user(request)
    status, error, preset = 200, "", None
    if request.method == "POST":
        values = _posted(request)
        try:
            job = services.job_create(user=user, name=request.POST.get("name", ""),
                                      **_launch(request))  # fmt: skip
        except (Invalid, Conflict, NotFound) as exc:
            status, error = exc.status, exc.message
        else:
            messages.success(request, f"Job {job.pk} queued.")
            return redirect("training:job", job_id=job.pk)
    elif preset_id := _int(request.GET.get("preset")):
        preset = selectors.preset_get(user=user, preset_id=preset_id)
        values = {**launch.preset_values(preset.config), "preset_name": preset.name}
    else:
        values = launch.defaults()
        values["dataset"] = request.GET.get("dataset", "")
    context = {**_launch_context(request, values), "form_error": error, "preset": preset}
    return render(request, "training/job_new.html", context, status=status)


@login_required
@require_POST
def job_preview(request: HttpRequest) -> HttpResponse:
    """The YAML `python -m quest train` would get from the form as it stands, or why not."""
    if not request.POST.get("dataset"):
        return render(request, "training/job_new.html#preview", {})
    try:
        text = services.config_preview(user=page_user(request), **_launch(request))
    except (Invalid, NotFound) as exc:
        return render(request, "training/job_new.html#preview", {"preview_error": exc.message})
    return render(request, "training/job_new.html#preview", {"preview": text})


@login_required
@require_POST
def preset_save(request: HttpRequest) -> HttpResponse:
    kind = request.POST.get("kind", "")
    try:
        preset = services.preset_save(
            user=page_user(request),
            name=request.POST.get("preset_name", ""),
            kind=kind,
            model=launch.model(request.POST),
            params=launch.params(request.POST, kind),
        )
    except Invalid as exc:
        context = {**_launch_context(request, _posted(request)), "form_error": exc.message}
        return render(request, "training/job_new.html", context, status=exc.status)
    messages.success(request, f"Preset “{preset.name}” saved.")
    return redirect(f"{reverse('training:job-new')}?preset={preset.pk}")


@login_required
@require_POST
def preset_delete(request: HttpRequest, preset_id: int) -> HttpResponse:
    services.preset_delete(user=page_user(request), preset_id=preset_id)
    messages.success(request, "Preset deleted.")
    return redirect("training:job-new")


# ---- a job --------------------------------------------------------------------------------------


def _rollouts_context(request: HttpRequest, job: TrainingJob) -> dict[str, Any]:
    steps = selectors.rollout_steps(job)
    step = _int(request.GET.get("step"))
    page = selectors.rollout_page(
        job,
        step=step if step in steps else None,
        page=_int(request.GET.get("page")) or 1,
        page_size=ROLLOUTS_PER_PAGE,
    )
    return {
        "rollouts": page,
        "rollout_steps": steps,
        "rollout_step": step if step in steps else None,
        "rollouts_seen": job.rollouts.count(),
    }


def _log_context(job: TrainingJob) -> dict[str, Any]:
    log = selectors.log_tail(job)
    return {"log": log, "log_seen": zlib.crc32(log.encode()), "phase": _phase(log)}


def _phase(log: str) -> str:
    """What the run says it is doing: its last progress line (loading the model, tokenising,
    the first step's rollouts...), shown until the first step is logged."""
    said = [line.strip() for line in log.splitlines() if line.startswith("train: ")]
    return said[-1].removeprefix("train: ") if said else ""


def _checkpoints_context(request: HttpRequest, job: TrainingJob) -> dict[str, Any]:
    found = selectors.checkpoints(job)
    resume_steps = job.max_steps * 2 if job.status == JobStatus.DONE else job.max_steps
    return {
        "checkpoints": [(c, c.size_bytes / MB) for c in found],
        "checkpoints_seen": ",".join(c.name for c in found),
        "resume_steps": resume_steps,
        "eval_limit": services.DEFAULT_EVAL_TASKS,
        "can_manage": can_manage(request),
    }


def _config_yaml(job: TrainingJob) -> str:
    try:
        text = str(render_yaml(parse_config(job.config)))
    except ConfigError:
        text = json.dumps(job.config, indent=2)
    return shown_paths(text)


def _held_out_figures(job: TrainingJob) -> dict[str, Any]:
    figure = job_charts.held_out_figure(selectors.held_out_scores(job))
    return {"held_out": figure} if figure else {}


@login_required
@require_GET
def job_detail(request: HttpRequest, job_id: int) -> HttpResponse:
    user = page_user(request)
    job = selectors.job_get(user=user, job_id=job_id)
    series = selectors.metric_series(job)
    live = {
        "charts": job_charts.job_charts(series),
        "has_points": bool(series),
        "after": selectors.last_metric_line(job),
        "ws": f"/ws/training/{job.pk}/",
        "active": job.is_active,
    }
    context = {
        "job": job,
        "live": live,
        "config_yaml": _config_yaml(job),
        "evaluations": [
            (e, Path(e.checkpoint).name) for e in selectors.evaluation_list(user=user, job=job)
        ],
        "figures": _held_out_figures(job),
        **_rollouts_context(request, job),
        **_log_context(job),
        **_checkpoints_context(request, job),
    }
    return render(request, "training/job_detail.html", context)


def _unchanged(request: HttpRequest, job: TrainingJob, seen: Any) -> bool:
    return job.is_active and request.GET.get("seen") == str(seen)


def _polled(request: HttpRequest, job_id: int, part: str, context_of: Any) -> HttpResponse:
    """One of the job page's polled parts (`part`: rollouts, log, checkpoints), or 'no change'
    while the job runs and the client has seen it all."""
    job = selectors.job_get(user=page_user(request), job_id=job_id)
    context = {"job": job, **context_of(job)}
    if _unchanged(request, job, context[f"{part}_seen"]):
        return HttpResponse(status=NO_CHANGE)
    return render(request, f"training/job_detail.html#{part}", context)


@login_required
@require_GET
def job_rollouts(request: HttpRequest, job_id: int) -> HttpResponse:
    return _polled(request, job_id, "rollouts", lambda job: _rollouts_context(request, job))


@login_required
@require_GET
def job_log(request: HttpRequest, job_id: int) -> HttpResponse:
    return _polled(request, job_id, "log", _log_context)


@login_required
@require_GET
def job_checkpoints(request: HttpRequest, job_id: int) -> HttpResponse:
    return _polled(request, job_id, "checkpoints", lambda job: _checkpoints_context(request, job))


def _cancel_said(job: TrainingJob) -> str:
    note = ("stopping: the run saves a checkpoint at the end of its step"
            if job.cancel_requested else "cancelled before it started")  # fmt: skip
    return f"Job {job.pk} {note}."


@login_required
@require_POST
def job_cancel(request: HttpRequest, job_id: int) -> HttpResponse:
    cancel = partial(services.job_cancel, user=page_user(request), job_id=job_id)
    flashed(request, cancel, _cancel_said, refused=Conflict)
    return redirect("training:job", job_id=job_id)


@login_required
@require_POST
def job_resume(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        steps = form_number(request.POST, "max_steps", int)
        job = services.job_resume(user=page_user(request), job_id=job_id,
                                  checkpoint=request.POST.get("checkpoint", ""),
                                  max_steps=int(steps) if steps is not None else None)  # fmt: skip
    except (Invalid, Conflict) as exc:
        messages.error(request, exc.message)
        return redirect("training:job", job_id=job_id)
    messages.success(request, f"Job {job.pk} queued: job {job_id} resumed.")
    return redirect("training:job", job_id=job.pk)


@login_required
@require_POST
def job_evaluate(request: HttpRequest, job_id: int) -> HttpResponse:
    try:
        limit = form_number(request.POST, "limit", int)
        evaluation = services.evaluation_create(
            user=page_user(request),
            job_id=job_id,
            checkpoint=request.POST.get("checkpoint", ""),
            compare_base=request.POST.get("compare_base") == "on",
            limit=int(limit) if limit is not None else services.DEFAULT_EVAL_TASKS,
        )
    except (Invalid, Conflict) as exc:
        messages.error(request, exc.message)
        return redirect("training:job", job_id=job_id)
    messages.success(request, f"Evaluation {evaluation.pk} queued.")
    return redirect("training:evaluation", evaluation_id=evaluation.pk)
