"""Benchmark pages: the runs with the form that starts one, a run (live progress, then the
metric with its 95 % interval, the plots, the per-question rows and the published numbers
beside), and two runs compared. They call the same services and selectors as the REST API."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.benchmarks import selectors, services
from apps.benchmarks.models import Benchmark, BenchmarkRun
from apps.benchmarks.paths import shown, shown_in
from apps.common.errors import Conflict, Invalid, NotFound
from apps.common.flash import flashed
from apps.jobs.pages import progress_fragment

LISTED = 100
ROWS_PER_PAGE = 50
FORM_FIELDS = ("benchmark", "data", "model", "endpoint", "responses", "corpus", "judge",
               "limit", "dataset", "canary")  # fmt: skip
# The metrics a run reports, in the order the page lists them, and how each is written.
SHOWN_PATHS = ("data", "corpus", "model", "responses")
METRICS = (
    ("accuracy", "percent"),
    ("exact_match", "percent"),
    ("f1", "ratio"),
    ("evidence_recall.retrieved", "percent"),
    ("evidence_recall.cited", "percent"),
    ("search_calls", "number"),
    ("calibration_error", "ratio"),
)
NAMES = {
    "f1": "F1",
    "evidence_recall.retrieved": "Evidence recall, retrieved documents",
    "evidence_recall.cited": "Evidence recall, cited documents",
    "search_calls": "Search calls per question",
    "calibration_error": "Calibration error (RMS)",
}


def can_manage(request: HttpRequest) -> bool:
    return bool(request.user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]))


def _written(value: Any, style: str) -> str:
    if not isinstance(value, int | float):
        return "—"
    if style == "percent":
        return f"{100 * value:.1f} %"
    return f"{value:.3f}" if style == "ratio" else f"{value:.2f}"


def metric_rows(metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """The metrics as the page's table lists them: name, value and its 95 % interval, n and how
    the interval was computed."""
    rows = []
    for key, style in METRICS:
        found: Any = metrics
        for part in key.split("."):
            found = found.get(part) if isinstance(found, dict) else None
        if not isinstance(found, dict):
            continue
        ci = found.get("ci95") or [None, None]
        rows.append({
            "key": key,
            "name": found.get("label") or NAMES.get(key, key),
            "value": _written(found.get("value"), style),
            "ci95": f"{_written(ci[0], style)} to {_written(ci[1], style)}"
            if ci[0] is not None else "—",
            "n": found.get("n"),
            "interval": found.get("interval") or "",
        })  # fmt: skip
    return rows


# ---- the runs and the form ----------------------------------------------------------------------


def _uploaded(request: HttpRequest, field: str) -> str:
    """A file sent with the form, kept in the benchmarks directory: its path, else the typed
    path."""
    upload = request.FILES.get(f"{field}_file")
    if upload is None:
        return str(request.POST.get(field, ""))
    stored = services.file_store(user=request.user, name=upload.name or "", content=upload)
    return shown(str(stored))


def _limit(raw: str) -> int | None:
    if not raw.strip():
        return None
    try:
        return int(raw)
    except ValueError:
        raise Invalid("limit: a whole number") from None


def _run_request(request: HttpRequest) -> services.RunRequest:
    post = request.POST
    endpoint = post.get("endpoint", "").strip()
    return services.RunRequest(
        benchmark=post.get("benchmark", ""),
        data=_uploaded(request, "data"),
        model=endpoint or post.get("model", ""),
        responses=_uploaded(request, "responses") if not endpoint and not post.get("model") else "",
        corpus=post.get("corpus", ""),
        judge=post.get("judge", ""),
        limit=_limit(post.get("limit", "")),
        dataset=post.get("dataset", ""),
        canary=post.get("canary", ""),
        get_document=bool(post.get("get_document")),
    )


def _form(request: HttpRequest) -> dict[str, Any]:
    # A GET prefills the form: a training job's checkpoint links here with ?model=.
    source = request.POST if request.method == "POST" else request.GET
    values: dict[str, str | bool] = {name: source.get(name, "") for name in FORM_FIELDS}
    values["get_document"] = bool(source.get("get_document"))
    return {
        "benchmarks": Benchmark.choices,
        "models": selectors.model_choices(user=request.user),
        "files": selectors.data_files(),
        "values": values,
    }


@login_required
@require_http_methods(["GET", "POST"])
def run_list(request: HttpRequest) -> HttpResponse:
    status, error = 200, ""
    if request.method == "POST":
        try:
            run = services.run_create(user=request.user, request=_run_request(request))
        except Invalid as exc:
            status, error = exc.status, exc.message
        else:
            messages.success(request, f"Benchmark run {run.pk} queued on the {run.queue} queue.")
            return redirect("benchmarks:run", run_id=run.pk)
    runs = list(selectors.run_list(user=request.user)[:LISTED])
    context = {
        "runs": [(run, _headline(run)) for run in runs],
        "can_manage": can_manage(request),
        "form_error": error,
        "listed": LISTED,
    }
    if context["can_manage"]:
        context["form"] = _form(request)
    return render(request, "benchmarks/runs.html", context, status=status)


def _headline(run: BenchmarkRun) -> dict[str, Any] | None:
    metrics = run.metrics or {}
    key = "accuracy" if metrics.get("accuracy") else "exact_match"
    return next((row for row in metric_rows(metrics) if row["key"] == key), None)


# ---- a run --------------------------------------------------------------------------------------


def _rows_page(request: HttpRequest, run: BenchmarkRun) -> Any:
    rows = selectors.run_rows(run)
    return Paginator(rows, ROWS_PER_PAGE).get_page(request.GET.get("page"))


@login_required
@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, run_id=run_id)
    metrics = selectors.run_metrics(run)
    context = {
        "run": run,
        "can_manage": can_manage(request),
        "shown": shown_in({name: getattr(run, name) for name in SHOWN_PATHS}),
        "metrics": metric_rows(metrics),
        "judged": bool(metrics.get("accuracy")),
        "setup": shown_in(run.setup or {}),
        "published": shown_in(selectors.run_published(run)),
        "figures": selectors.run_figures(run),
        "rows": _rows_page(request, run),
        "resumable": run.status in services.RESUMABLE,
    }
    return render(request, "benchmarks/run_detail.html", context)


@login_required
@require_GET
def run_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    """What the run's page polls while it runs; once ended the page reloads (HX-Refresh)."""
    run = selectors.run_get(user=request.user, run_id=run_id)
    context = {"run": run, "can_manage": can_manage(request)}
    return progress_fragment(request, "benchmarks/run_detail.html#progress", run, context)


def _run_button(request: HttpRequest, run_id: int, action: Any, said: str) -> HttpResponse:
    """A run page's button: the service's answer as a message, then the run's page again."""
    flashed(request, partial(action, user=request.user, run_id=run_id), said, refused=Conflict)
    return redirect("benchmarks:run", run_id=run_id)


@login_required
@require_POST
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    said = f"Benchmark run {run_id} cancelled; the questions it finished stay."
    return _run_button(request, run_id, services.run_cancel, said)


@login_required
@require_POST
def run_resume(request: HttpRequest, run_id: int) -> HttpResponse:
    said = f"Benchmark run {run_id} queued again: it continues after its last question."
    return _run_button(request, run_id, services.run_resume, said)


# ---- two runs compared --------------------------------------------------------------------------


def _run_id(request: HttpRequest, name: str) -> int:
    try:
        return int(request.GET.get(name, ""))
    except ValueError:
        raise NotFound(f"{name}: choose a run") from None


@login_required
@require_GET
def runs_compare(request: HttpRequest) -> HttpResponse:
    user = request.user
    context: dict[str, Any] = {"runs": selectors.run_list(user=user)[:LISTED], "error": ""}
    status = 200
    if request.GET.get("a") and request.GET.get("b"):
        try:
            a, b = _run_id(request, "a"), _run_id(request, "b")
            found = selectors.runs_compare(user=user, a=a, b=b)
        except Invalid as exc:
            status, context["error"] = exc.status, exc.message
        else:
            context.update(found)
    context["chosen"] = {name: request.GET.get(name, "") for name in ("a", "b")}
    return render(request, "benchmarks/compare.html", context, status=status)
