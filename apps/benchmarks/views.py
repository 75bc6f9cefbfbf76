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
# The fields the form can also upload (as <field>_file).
UPLOADED = ("data", "responses", "corpus")
SHOWN_PATHS = ("data", "corpus", "model", "responses")
# The metrics a run reports, in the order the page lists them, and how each is written.
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


def _uploaded(request: HttpRequest, field: str, typed: str) -> str:
    """A file sent with the form, kept in the benchmarks directory: its path as shown, else
    the typed path."""
    upload = request.FILES.get(f"{field}_file")
    if upload is None:
        return typed
    stored = services.file_store(user=request.user, name=upload.name or "", content=upload)
    return shown(str(stored))


def _limit(raw: str) -> int | None:
    if not raw.strip():
        return None
    try:
        return int(raw)
    except ValueError:
        raise Invalid("limit: a whole number") from None


def _posted(request: HttpRequest) -> dict[str, str | bool]:
    """The form as sent: its fields, and get_document checked or not."""
    values: dict[str, str | bool] = {name: request.POST.get(name, "") for name in FORM_FIELDS}
    values["get_document"] = bool(request.POST.get("get_document"))
    return values


def _run_request(values: dict[str, Any]) -> services.RunRequest:
    texts = {name: str(values[name]) for name in FORM_FIELDS if name != "limit"}
    limit = _limit(str(values["limit"]))
    return services.RunRequest(**texts, limit=limit, get_document=bool(values["get_document"]))


def _run_create(request: HttpRequest, values: dict[str, Any]) -> BenchmarkRun:
    """The run the form asks for. Each uploaded file is stored first and its path written into
    `values`, so that the form shown again after an error sends it again."""
    for field in UPLOADED:
        values[field] = _uploaded(request, field, values[field])
    return services.run_create(user=request.user, request=_run_request(values))


def _form(request: HttpRequest, values: dict[str, str | bool] | None) -> dict[str, Any]:
    # A GET prefills the form: a training job's checkpoint links here with ?model=.
    if values is None:
        values = {name: request.GET.get(name, "") for name in FORM_FIELDS}
        values["get_document"] = bool(request.GET.get("get_document"))
    return {
        "benchmarks": Benchmark.choices,
        "models": selectors.model_choices(user=request.user),
        "files": selectors.data_files(),
        "values": values,
    }


@login_required
@require_http_methods(["GET", "POST"])
def run_list(request: HttpRequest) -> HttpResponse:
    status, error, values = 200, "", None
    if request.method == "POST":
        values = _posted(request)
        try:
            run = _run_create(request, values)
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
        context["form"] = _form(request, values)
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
        "confidence": {"stated": metrics.get("confidence_stated"), "n": metrics.get("n")},
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
    raw = request.GET.get(name, "")
    try:
        return int(raw)
    except ValueError:
        raise Invalid(f"{name}: {raw!r} is not a run's number: choose a run") from None


def _compared(request: HttpRequest) -> dict[str, Any]:
    """The two runs chosen and their difference; nothing before any is chosen."""
    chosen = [name for name in ("a", "b") if request.GET.get(name, "").strip()]
    if not chosen:
        return {}
    if len(chosen) == 1:
        raise Invalid("choose two runs: run A and run B")
    a, b = _run_id(request, "a"), _run_id(request, "b")
    found: dict[str, Any] = selectors.runs_compare(user=request.user, a=a, b=b)
    return found


@login_required
@require_GET
def runs_compare(request: HttpRequest) -> HttpResponse:
    context: dict[str, Any] = {"runs": selectors.run_list(user=request.user)[:LISTED]}
    status = 200
    try:
        context.update(_compared(request))
    except (Invalid, NotFound) as exc:
        status, context["error"] = exc.status, exc.message
    context["chosen"] = {name: request.GET.get(name, "") for name in ("a", "b")}
    return render(request, "benchmarks/compare.html", context, status=status)
