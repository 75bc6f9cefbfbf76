"""Training pages: the overview with its datasets, jobs and the dataset form, a dataset with its
token lengths and a loss-masked preview, an evaluation's results, and jobs compared. A job's
page and the launch form are in job_views.py."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.models import User
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common.errors import Conflict, Invalid
from apps.common.flash import flashed
from apps.jobs.pages import progress_fragment
from apps.training import charts, compare, datasets, selectors, services
from apps.training.models import DatasetKind, Evaluation, TrainingDataset, TrainingJob
from apps.training.paths import shown_paths
from quest.training.sft import DEFAULT_MIN_REWARD

LISTED = 100
MODELS = ("checkpoint", "base")
# Below this many scored tasks a 95% interval says next to nothing (one task gives [x, x]).
MIN_TASKS_TO_CONCLUDE = 10


def page_user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def can_manage(request: HttpRequest) -> bool:
    return bool(request.user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]))


def form_number(data: Any, key: str, kind: type[int] | type[float]) -> int | float | None:
    """A form's number, None when left empty (the service's default); Invalid names it."""
    raw = (data.get(key) or "").strip()
    if not raw:
        return None
    try:
        return kind(raw)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise Invalid(f"{key} must be {noun}") from None


# ---- the overview and the dataset form ---------------------------------------------------------


def _dataset_params(data: Any, kind: str) -> dict[str, Any]:
    """The fields a dataset kind takes (services.DATASET_PARAMS), read from the form."""
    if kind == DatasetKind.MID:
        return {"source_dataset": form_number(data, "source_dataset", int)}
    params: dict[str, Any] = {"split": data.get("split") or "train"}
    numbers: list[tuple[str, type[int] | type[float]]] = [("limit", int)]
    if kind == DatasetKind.SFT:
        params.update(policy=data.get("policy") or "", hint_retry=data.get("hint_retry") == "on")
        numbers += [("attempts", int), ("min_reward", float)]
    for key, number in numbers:
        value = form_number(data, key, number)
        if value is not None:
            params[key] = value
    return params


def _dataset_form(request: HttpRequest) -> dict[str, Any]:
    data = request.POST
    initial = {"kind": "rl", "split": "train", "attempts": "2", "hint_retry": True,
               "min_reward": str(DEFAULT_MIN_REWARD)}  # fmt: skip
    values: dict[str, str | bool] = {
        key: data.get(key, "")
        for key in (
            "kind",
            "name",
            "split",
            "limit",
            "policy",
            "attempts",
            "min_reward",
            "source_dataset",
        )
    }
    values["hint_retry"] = data.get("hint_retry") == "on"
    return {
        "values": values if data else initial,
        "kinds": DatasetKind.choices,
        "policies": services.policy_choices(),
        "sources": selectors.dataset_built(user=page_user(request), kind=DatasetKind.SFT),
    }


@login_required
@require_http_methods(["GET", "POST"])
def overview(request: HttpRequest) -> HttpResponse:
    user = page_user(request)
    status, error = 200, ""
    if request.method == "POST":
        kind = request.POST.get("kind", "")
        try:
            dataset = services.dataset_create(
                user=user,
                kind=kind,
                name=request.POST.get("name", ""),
                params=_dataset_params(request.POST, kind),
            )
        except (Invalid, Conflict) as exc:
            status, error = exc.status, exc.message
        else:
            messages.success(request, f"Dataset {dataset.pk} queued.")
            return redirect("training:dataset", dataset_id=dataset.pk)
    context = {
        "datasets": selectors.dataset_list(user=user)[:LISTED],
        "jobs": selectors.job_list(user=user)[:LISTED],
        "split": selectors.split_counts(),
        "can_manage": can_manage(request),
        "form_error": error,
        "listed": LISTED,
    }
    if context["can_manage"]:
        context["form"] = _dataset_form(request)
    return render(request, "training/overview.html", context, status=status)


# ---- a dataset ----------------------------------------------------------------------------------


def _reports(stats: dict[str, Any]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """The builders' count reports (collect, sessions, mid pairs) as (title, [(name, value)])."""
    titles = {"collect": "Trajectories collected", "sessions": "SFT sessions",
              "mid": "Mid-training pairs"}  # fmt: skip
    return [
        (title, [(k.replace("_", " "), v) for k, v in stats[key].items()])
        for key, title in titles.items()
        if isinstance(stats.get(key), dict)
    ]


def _skipped(stats: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [*(stats.get("skipped_tasks") or []), *(stats.get("skipped") or [])]
    return [row for row in rows if isinstance(row, dict)]


def _preview(request: HttpRequest, dataset: TrainingDataset) -> dict[str, Any]:
    rows = selectors.dataset_preview(dataset)
    wanted = request.GET.get("row", "")
    chosen = next((r for r in rows if str(r.get("row")) == wanted), rows[0] if rows else None)
    return {"preview_rows": rows, "preview": chosen}


@login_required
@require_GET
def dataset_detail(request: HttpRequest, dataset_id: int) -> HttpResponse:
    dataset = selectors.dataset_get(user=page_user(request), dataset_id=dataset_id)
    stats = dataset.stats if isinstance(dataset.stats, dict) else {}
    lengths = datasets.lengths(dataset)
    context = {
        "dataset": dataset,
        "params": sorted(dataset.params.items()),
        "reports": _reports(stats),
        "skipped": _skipped(stats),
        "files": [name for name in stats.get("files") or [] if isinstance(name, str)],
        "lengths": charts.length_summary(lengths),
        "tokens": stats.get("tokens") if isinstance(stats.get("tokens"), dict) else {},
        "figures": {"lengths": charts.length_histogram(lengths)} if lengths else {},
        "can_manage": can_manage(request),
        **_preview(request, dataset),
    }
    return render(request, "training/dataset_detail.html", context)


@login_required
@require_GET
def dataset_progress(request: HttpRequest, dataset_id: int) -> HttpResponse:
    """What the dataset page polls while it builds; once ended the page reloads (HX-Refresh)
    to show its counts, lengths and preview."""
    dataset = selectors.dataset_get(user=page_user(request), dataset_id=dataset_id)
    return _progress(request, "training/dataset_detail.html#progress", dataset=dataset)


def _progress(request: HttpRequest, template: str, **row: Any) -> HttpResponse:
    """A polled progress fragment; once its row ended the page reloads (HX-Refresh)."""
    [work] = row.values()
    return progress_fragment(request, template, work, {**row, "can_manage": can_manage(request)})


@login_required
@require_POST
def dataset_cancel(request: HttpRequest, dataset_id: int) -> HttpResponse:
    cancel = partial(services.dataset_cancel, user=page_user(request), dataset_id=dataset_id)
    flashed(request, cancel, f"Dataset {dataset_id} cancelled.", refused=Conflict)
    return redirect("training:dataset", dataset_id=dataset_id)


@login_required
@require_GET
def dataset_file(request: HttpRequest, dataset_id: int, name: str) -> FileResponse:
    """One of the files the build listed (stats["files"]), never any other path."""
    dataset = selectors.dataset_get(user=page_user(request), dataset_id=dataset_id)
    path = selectors.dataset_file_path(dataset, name)
    filename = f"dataset-{dataset_id}-{name}"
    return FileResponse(path.open("rb"), as_attachment=True, filename=filename)


# ---- an evaluation ------------------------------------------------------------------------------


def _interval_sentence(difference: dict[str, Any]) -> str:
    ci = difference.get("ci95")
    if not ci or len(ci) != 2:
        return ""
    if ci[0] > 0:
        return "The 95% interval excludes 0: the checkpoint scores higher than its base."
    if ci[1] < 0:
        return "The 95% interval excludes 0: the checkpoint scores lower than its base."
    return "The 95% interval includes 0: these tasks show no difference either way."


def _task_rows(evaluation: Evaluation, models: dict[str, Any]) -> list[dict[str, Any]]:
    """Per held-out task, each model's reward (None: not run yet, or dropped)."""
    by_model = {
        label: {str(s.get("task_id")): s for s in (models.get(label) or {}).get("scores") or []}
        for label in MODELS
    }
    rows = []
    for task_id in evaluation.task_ids:
        scores = {label: by_model[label].get(str(task_id)) for label in MODELS}
        rewards: dict[str, Any] = {label: (s or {}).get("reward") for label, s in scores.items()}
        both = None not in rewards.values()
        rows.append({
            "task_id": task_id,
            "scores": [(label, scores[label]) for label in MODELS if label in models],
            "difference": rewards["checkpoint"] - rewards["base"] if both else None,
        })  # fmt: skip
    return rows


def _so_far(model: dict[str, Any]) -> dict[str, Any]:
    """A model's summary; while it runs only its scores are saved, so n counts those."""
    scored = [s for s in model.get("scores") or [] if s.get("reward") is not None]
    return {"n": len(scored), **model}


def _tasks_asked(evaluation: Evaluation) -> str:
    """The note "40 asked, 1 available" when fewer held-out tasks existed than were asked for."""
    asked, available = evaluation.tasks_asked, len(evaluation.task_ids)
    return f"{asked} asked, {available} available" if asked and asked > available else ""


def _too_few(
    evaluation: Evaluation, summaries: list[Any], difference: dict[str, Any]
) -> int | None:
    """The fewest tasks a finished result rests on, when too few to conclude anything."""
    counts = [m["n"] for _, m in summaries] + ([difference["n"]] if "n" in difference else [])
    if evaluation.is_active or not counts or min(counts) >= MIN_TASKS_TO_CONCLUDE:
        return None
    return int(min(counts))


def _evaluation_context(evaluation: Evaluation) -> dict[str, Any]:
    results = evaluation.results if isinstance(evaluation.results, dict) else {}
    found, compared = results.get("models"), results.get("difference")
    models: dict[str, Any] = found if isinstance(found, dict) else {}
    difference: dict[str, Any] = compared if isinstance(compared, dict) else {}
    summaries = [(m, _so_far(models[m])) for m in MODELS if isinstance(models.get(m), dict)]
    return {
        "models": summaries,
        "tasks_asked": _tasks_asked(evaluation),
        "too_few": _too_few(evaluation, summaries, difference),
        "min_tasks": MIN_TASKS_TO_CONCLUDE,
        "difference": difference,
        "interval_sentence": _interval_sentence(difference),
        "task_rows": _task_rows(evaluation, models),
        "figures": {"evaluation": charts.evaluation_chart(models)} if models else {},
    }


@login_required
@require_GET
def evaluation_detail(request: HttpRequest, evaluation_id: int) -> HttpResponse:
    evaluation = selectors.evaluation_get(user=page_user(request), evaluation_id=evaluation_id)
    context = {
        "evaluation": evaluation,
        "can_manage": can_manage(request),
        **_evaluation_context(evaluation),
    }
    return render(request, "training/evaluation_detail.html", context)


@login_required
@require_GET
def evaluation_progress(request: HttpRequest, evaluation_id: int) -> HttpResponse:
    evaluation = selectors.evaluation_get(user=page_user(request), evaluation_id=evaluation_id)
    return _progress(request, "training/evaluation_detail.html#progress", evaluation=evaluation)


@login_required
@require_POST
def evaluation_cancel(request: HttpRequest, evaluation_id: int) -> HttpResponse:
    user = page_user(request)
    cancel = partial(services.evaluation_cancel, user=user, evaluation_id=evaluation_id)
    said = f"Evaluation {evaluation_id}: cancel asked; results so far stay."
    flashed(request, cancel, said, refused=Conflict)
    return redirect("training:evaluation", evaluation_id=evaluation_id)


# ---- jobs compared ------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list | dict):
        return shown_paths(json.dumps(value, ensure_ascii=False))
    return shown_paths(str(value))


def _diff_rows(jobs: list[TrainingJob]) -> tuple[list[Any], list[Any]]:
    """(differing, identical) config keys as rows of (dotted key, [value per job])."""
    differ, same = compare.config_diff(jobs)
    rows = [(key, [_shown(v[str(job.pk)]) for job in jobs]) for key, v in differ.items()]
    return rows, [(key, _shown(value)) for key, value in same.items()]


def _job_ids(request: HttpRequest) -> list[int]:
    ids = []
    for raw in request.GET.getlist("jobs"):
        if raw.isdigit() and int(raw) not in ids:
            ids.append(int(raw))
    return ids


@login_required
@require_GET
def jobs_compare(request: HttpRequest) -> HttpResponse:
    ids = _job_ids(request)
    if not compare.MIN_JOBS <= len(ids) <= compare.MAX_JOBS:
        messages.error(request, f"Tick {compare.MIN_JOBS} to {compare.MAX_JOBS} jobs to compare.")
        return redirect("training:overview")
    jobs = [selectors.job_get(user=page_user(request), job_id=pk) for pk in ids]
    series = {job.pk: selectors.metric_series(job) for job in jobs}
    figures = charts.compare_figures(jobs, series)
    differing, identical = _diff_rows(jobs)
    context = {
        "jobs": jobs,
        "figures": figures,
        "differing": differing,
        "identical": identical,
    }
    return render(request, "training/compare.html", context)
