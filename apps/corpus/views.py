from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.common.errors import DomainError
from apps.corpus import selectors, services
from apps.corpus.models import JobKind
from apps.jobs.models import ACTIVE
from quest.corpus import attribution

ADMIN_KINDS = (
    JobKind.LOAD_WIKI,
    JobKind.LOAD_GEO,
    JobKind.LOAD_DOMAINS,
    JobKind.INDEX_BM25,
    JobKind.INDEX_DENSE,
)


def highlight(snippet: str, spans: Any) -> SafeString:
    """The snippet, escaped, with the query's matches wrapped in <mark>."""
    out, cursor = [], 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        out += [escape(snippet[cursor:start]), "<mark>", escape(snippet[start:end]), "</mark>"]
        cursor = end
    out.append(escape(snippet[cursor:]))
    return mark_safe("".join(out))


@login_required
@require_GET
def corpus_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    jobs = list(selectors.corpus_jobs(user=user)[:20])  # type: ignore[arg-type]
    context = {
        **selectors.corpus_overview(user=user),  # type: ignore[arg-type]
        "jobs": jobs,
        "active": any(job.status in ACTIVE for job in jobs),
        "is_admin": user.has_perm(ROLE_REQUIREMENT[Role.ADMIN]),
        "admin_kinds": [(k.value, k.label) for k in ADMIN_KINDS],
    }
    template = "corpus/corpus.html#status" if request.htmx else "corpus/corpus.html"  # type: ignore[attr-defined]
    return render(request, template, context)


@login_required
@require_POST
def corpus_job_create(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    kind = JobKind.LOAD_JSONL.value if upload else request.POST.get("kind", "")
    try:
        job = services.corpus_job_enqueue(
            user=request.user,  # type: ignore[arg-type]
            kind=kind,
            filename=upload.name or "" if upload else "",
            payload=upload.read(services.MAX_JSONL_BYTES + 1) if upload else b"",
        )
        messages.success(request, f"Queued: {job.get_kind_display()}.")
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("corpus:page")


@login_required
@require_GET
def search_page(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    mode = request.GET.get("mode", "")
    context: dict[str, Any] = {"query": query, "mode": mode}
    if query:
        try:
            answer = selectors.search(user=request.user, query=query, mode=mode, k=10)  # type: ignore[arg-type]
        except DomainError as exc:
            context["error"] = exc.message
        else:
            context["answer"] = answer
            context["results"] = [
                {"result": r, "snippet": highlight(r.snippet, r.highlights)} for r in answer.results
            ]
    template = "corpus/search.html#results" if request.htmx else "corpus/search.html"  # type: ignore[attr-defined]
    return render(request, template, context)


@login_required
@require_GET
def document_page(request: HttpRequest) -> HttpResponse:
    document = selectors.document_get(user=request.user, url=request.GET.get("url", ""))  # type: ignore[arg-type]
    paragraphs = [p for p in document.text.split("\n") if p.strip()]
    context = {"doc": document, "paragraphs": paragraphs, "attribution": attribution(document)}
    return render(request, "corpus/document.html", context)
