"""Synthesis pages: batches with their form, a batch's progress, funnel and candidates, and a
candidate with its stages, tree and the hand decision."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.models import User
from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.audit.streaming import stream_response
from apps.common import llm
from apps.common.errors import Conflict, DomainError, Invalid
from apps.jobs.pages import progress_fragment
from apps.rubrics import engine
from apps.rubrics.tree_view import solution_items, tree_rows
from apps.synthesis import charts, selectors, services
from apps.synthesis.models import ALL_STAGES, SynthesisBatch, SynthesisCandidate
from quest.synthesis.model import GENERATORS, STAGE_LABELS, STAGES
from quest.synthesis.seeds import CLASSES, TAXONOMY
from quest.synthesis.shards import MAX_SHARDED

CANDIDATES_PER_PAGE = 50


def _user(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]


def _can_manage(request: HttpRequest) -> bool:
    return bool(request.user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]))


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _whole(data: Any, key: str, default: int) -> int:
    raw = (data.get(key) or "").strip()
    try:
        return int(raw) if raw else default
    except ValueError as exc:
        raise Invalid(f"{key} must be a whole number") from exc


def _weights(data: Any, prefix: str) -> dict[str, float]:
    weights = {}
    for key, raw in data.items():
        if key.startswith(prefix) and raw.strip():
            name = key.removeprefix(prefix)
            try:
                weights[name] = float(raw)
            except ValueError as exc:
                raise Invalid(f"the weight of {name} must be a number") from exc
    return weights


def _form_spec(data: Any) -> dict[str, Any]:
    return {
        "generator": data.get("generator") or GENERATORS[0],
        "count": _whole(data, "count", 20),
        "seed": _whole(data, "seed", 0),
        "categories": _weights(data, "category:"),
        "classes": _weights(data, "class:"),
        "baseline": data.get("baseline") == "on",
        "open_ended": data.get("open_ended") == "on",
        "until_accepted": data.get("until_accepted") == "on",
    }


def _taxonomy(chosen: Mapping[str, object]) -> list[tuple[str, list[Any]]]:
    """QUEST's categories: each subcategory with its weight and whether kg writes it."""
    kg = services.writable_subcategories("kg")
    return [
        (category, [(s, chosen.get(f"category:{s}", ""), s in kg) for s in subs])
        for category, subs in TAXONOMY.items()
    ]


def _form_context(request: HttpRequest) -> dict[str, Any]:
    data = request.POST
    values = {
        "generator": data.get("generator", GENERATORS[0]),
        "count": data.get("count", "20"),
        "seed": data.get("seed", "0"),
        "baseline": data.get("baseline") == "on" if data else True,
        "open_ended": data.get("open_ended") == "on",
        "until_accepted": data.get("until_accepted") == "on",
        "model": data.get("model", ""),
    }
    chosen = {key: value for key, value in data.items() if ":" in key}
    return {
        "values": values,
        "generators": GENERATORS,
        "models": llm.model_choices(),
        "max_batch": MAX_SHARDED,
        "taxonomy": _taxonomy(chosen),
        "classes": [(c, chosen.get(f"class:{c}", "")) for c in CLASSES],
    }


MAX_KEYWORD_FILE = 2_000_000


def _upload(upload: Any) -> bytes:
    if upload.size > MAX_KEYWORD_FILE:
        raise Invalid(f"the keyword file is larger than {MAX_KEYWORD_FILE:,} bytes")
    return bytes(upload.read())


@login_required
@require_http_methods(["GET", "POST"])
def batch_list(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    status, error = 200, ""
    if request.method == "POST":
        data = request.POST
        model = data.get("model", "") if data.get("generator") == "llm" else ""
        upload = request.FILES.get("keywords")
        try:
            keywords = _upload(upload) if upload is not None else []
            batch = services.batch_create(
                user=user, spec=_form_spec(data), model=model, keywords=keywords
            )
        except DomainError as exc:
            status, error = exc.status, exc.message
        else:
            messages.success(request, f"Batch {batch.pk} queued.")
            return redirect("synthesis:batch", batch_id=batch.pk)
    page = services.batch_page(user=user, page=_int(request.GET.get("page"), 1), page_size=50)
    context = {
        **_form_context(request),
        "page": page,
        "can_manage": _can_manage(request),
        "form_error": error,
    }
    return render(request, "synthesis/batch_list.html", context, status=status)


def _candidate_filters(request: HttpRequest) -> tuple[selectors.CandidateFilters, str]:
    outcome = request.GET.get("outcome", "")
    accepted = {"accepted": True, "rejected": False}.get(outcome)
    stage = request.GET.get("stage", "")
    filters = selectors.CandidateFilters(
        accepted=accepted, rejected_at=stage if stage in ALL_STAGES else ""
    )
    kept = {"outcome": outcome if accepted is not None else "", "stage": filters.rejected_at}
    return filters, urlencode({k: v for k, v in kept.items() if v})


def _stage_names(batch: SynthesisBatch) -> tuple[str, ...]:
    return ALL_STAGES if batch.generator == "llm" else STAGES


def _candidates_context(request: HttpRequest, batch: SynthesisBatch) -> dict[str, Any]:
    filters, querystring = _candidate_filters(request)
    page = selectors.candidate_page(
        user=_user(request),
        batch_id=batch.pk,
        filters=filters,
        page=_int(request.GET.get("page"), 1),
        page_size=CANDIDATES_PER_PAGE,
    )
    return {
        "candidates": page,
        "filters": filters,
        "outcome": request.GET.get("outcome", ""),
        "querystring": querystring,
        "stage_labels": {name: STAGE_LABELS[name] for name in _stage_names(batch)},
    }


@login_required
@require_GET
def batch_detail(request: HttpRequest, batch_id: int) -> HttpResponse:
    user = _user(request)
    batch = services.batch_status(user=user, batch_id=batch_id)
    context = {"batch": batch, **_candidates_context(request, batch)}
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "synthesis/batch_detail.html#candidates", context)
    figures = charts.batch_figures(selectors.batch_report(user=user, batch_id=batch.pk))
    context.update(
        figures=figures,
        chart_titles=[(name, charts.TITLES[name]) for name in figures],
        can_manage=_can_manage(request),
        **_campaigns_context(request, batch),
    )
    return render(request, "synthesis/batch_detail.html", context)


def _campaigns_context(request: HttpRequest, batch: SynthesisBatch) -> dict[str, Any]:
    """The batch's campaigns, and for admins what its campaign button would do."""
    user = _user(request)
    campaigns = selectors.batch_campaigns(user=user, batch_id=batch.pk)
    can_campaign = _can_manage(request) and not batch.is_active and batch.accepted > 0
    if not can_campaign:
        return {"campaigns": campaigns, "can_campaign": False}
    reused = selectors.campaign_reused(campaigns)
    pending = selectors.campaign_tasks_pending(user=user, batch_id=batch.pk, campaign=reused)
    return {"campaigns": campaigns, "can_campaign": True, "reused": reused, "pending": pending}


@login_required
@require_GET
def batch_progress(request: HttpRequest, batch_id: int) -> HttpResponse:
    """What the batch page polls while the batch runs; once it has ended, the whole page is
    reloaded (HX-Refresh) so its charts and candidates show the finished batch."""
    batch = services.batch_status(user=_user(request), batch_id=batch_id)
    context = {"batch": batch, "can_manage": _can_manage(request)}
    return progress_fragment(request, "synthesis/batch_detail.html#progress", batch, context)


@login_required
@require_POST
def batch_cancel(request: HttpRequest, batch_id: int) -> HttpResponse:
    batch = services.batch_cancel(user=_user(request), batch_id=batch_id)
    messages.success(request, f"Batch {batch.pk} cancelled; what it wrote is kept.")
    return redirect("synthesis:batch", batch_id=batch.pk)


@login_required
@require_POST
def batch_campaign(request: HttpRequest, batch_id: int) -> HttpResponse:
    result = services.batch_campaign_create(
        user=_user(request),
        batch_id=batch_id,
        name=request.POST.get("name", "")[:200],
        annotators_per_task=_whole(request.POST, "annotators_per_task", 2),
        new=request.POST.get("new") == "1",
    )
    level = messages.SUCCESS if result.created or result.added else messages.INFO
    messages.add_message(request, level, result.message)
    return redirect("audit:campaign", campaign_id=result.campaign.pk)


@login_required
@require_GET
def batch_export(request: HttpRequest, batch_id: int) -> StreamingHttpResponse:
    chunks = selectors.export_chunks(user=_user(request), batch_id=batch_id)
    return stream_response(request, chunks, f"synthesis-batch-{batch_id}.jsonl")


def _tree(candidate: SynthesisCandidate) -> tuple[list[Any], str]:
    """The record's rubric as rows for rubrics/_tree.html, or why it cannot be shown."""
    record = candidate.record if isinstance(candidate.record, dict) else {}
    raw = record.get("rubric", record.get("rubric_tree", record.get("tree")))
    if raw is None:
        return [], "the record has no rubric tree"
    try:
        return tree_rows(engine.import_tree(raw)), ""
    except Invalid as exc:
        return [], exc.message


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, str | int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _stages(candidate: SynthesisCandidate) -> list[dict[str, Any]]:
    """Every funnel stage in order: passed, failed, or not reached."""
    rows = []
    reached = {s.get("name") for s in candidate.stages}
    for name in ALL_STAGES:
        stage = candidate.stage(name)
        if name not in STAGES and name not in reached and candidate.batch.generator != "llm":
            continue  # the llm generator's own stages, on a kg candidate
        outcome = "skipped" if stage is None else ("passed" if stage.get("passed") else "failed")
        detail = (stage or {}).get("detail")
        rows.append(
            {
                "name": name,
                "label": STAGE_LABELS[name],
                "outcome": outcome,
                "reason": (stage or {}).get("reason", ""),
                "detail": [(k, _shown(v)) for k, v in sorted(detail.items())]
                if isinstance(detail, dict)
                else [],
            }
        )
    return rows


@login_required
@require_GET
def candidate_detail(request: HttpRequest, candidate_id: int) -> HttpResponse:
    candidate = selectors.candidate_get(user=_user(request), candidate_id=candidate_id)
    record = candidate.record if isinstance(candidate.record, dict) else {}
    rows, tree_error = _tree(candidate)
    solution = record.get("solution")
    context = {
        "candidate": candidate,
        "batch": candidate.batch,
        "stages": _stages(candidate),
        "rows": rows,
        "tree_error": tree_error,
        "solution_items": solution_items(solution if isinstance(solution, dict) else {}),
        "solution_text": solution if isinstance(solution, str) else "",
        "reference_answer": str(record.get("reference_answer") or ""),
        "can_manage": _can_manage(request),
        "open_ended": _open_ended(record),
    }
    return render(request, "synthesis/candidate_detail.html", context)


def _open_ended(record: dict[str, Any]) -> dict[str, Any] | None:
    """An open-ended task's complexity triple, dimension weights and criteria, for display."""
    provenance = record.get("provenance")
    meta = provenance.get("open_ended") if isinstance(provenance, dict) else None
    if not isinstance(meta, dict):
        return None
    criteria = [c for c in meta.get("criteria") or [] if isinstance(c, dict)]
    found = meta.get("dimension_weights")
    weights: dict[str, Any] = found if isinstance(found, dict) else {}
    dimensions = [
        {"name": str(name).replace("_", " "), "weight": weight,
         "criteria": [c for c in criteria if c.get("dimension") == name]}
        for name, weight in weights.items()
    ]  # fmt: skip
    complexity = meta.get("complexity")
    triple: dict[str, Any] = complexity if isinstance(complexity, dict) else {}
    return {
        "triple": [(str(k).replace("_", " "), v) for k, v in triple.items()],
        "dimensions": dimensions,
        "scorer": str(meta.get("scorer") or ""),
        "reference": str(meta.get("reference") or ""),
    }


def _decide(request: HttpRequest, candidate_id: int, accept: bool) -> HttpResponse:
    decide = services.candidate_accept if accept else services.candidate_reject
    had_task = selectors.candidate_get(user=_user(request), candidate_id=candidate_id).task_id
    try:
        candidate = decide(
            user=_user(request), candidate_id=candidate_id, note=request.POST.get("note", "")
        )
    except (Conflict, Invalid) as exc:
        # Shown on the candidate's page, beside the record it is about.
        messages.error(request, exc.message)
        return redirect("synthesis:candidate", candidate_id=candidate_id)
    if accept:
        note = f"Accepted: task {candidate.task_id} is pending audit."
    elif had_task and candidate.task_id is None:
        note = "Rejected: its task was removed (nobody had worked on it yet)."
    elif had_task:
        note = f"Rejected: task {candidate.task_id} is already in use, so the audit decides it."
    else:
        note = "Rejected."
    messages.success(request, note)
    return redirect("synthesis:candidate", candidate_id=candidate.pk)


@login_required
@require_POST
def candidate_accept(request: HttpRequest, candidate_id: int) -> HttpResponse:
    return _decide(request, candidate_id, accept=True)


@login_required
@require_POST
def candidate_reject(request: HttpRequest, candidate_id: int) -> HttpResponse:
    return _decide(request, candidate_id, accept=False)
