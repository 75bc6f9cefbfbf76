"""The search service QUEST's RL tools call: `POST /tools/search`, `POST /tools/scholar`
(body `{"query": str | [str]}`) → `{"text", "metrics", "sources"}`, and `GET /tools/health`.

Callers are training jobs, not people: they send the bearer token set in QUESTWEB_TOOLS_TOKEN.
Without a token the service is closed (any local process could otherwise search on the app's
behalf), unless QUESTWEB_TOOLS_OPEN=1 opens it to loopback callers on purpose.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from apps.common.errors import DomainError
from apps.common.jsonbody import loads_untrusted
from apps.corpus import selectors
from quest.search.format import format_searches
from quest.search.indexing import index_status

MAX_QUERIES = 10
RESULTS_PER_QUERY = 10


CLOSED = (
    "the tools service is closed: set QUESTWEB_TOOLS_TOKEN and send it as a bearer token "
    "(or set QUESTWEB_TOOLS_OPEN=1 to let loopback callers in without one)"
)


def _refusal(request: HttpRequest) -> str | None:
    """Why the caller is not let in, or None."""
    token = settings.TOOLS_TOKEN
    if token:
        header = request.headers.get("Authorization", "")
        ok = hmac.compare_digest(header.encode(), f"Bearer {token}".encode())
        return None if ok else "not allowed: send the tools token as a bearer token"
    if not settings.TOOLS_OPEN:
        return CLOSED
    try:
        loopback = ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        loopback = False
    return None if loopback else "not allowed: the open tools service answers loopback only"


def _queries(request: HttpRequest) -> list[str]:
    try:
        body = loads_untrusted(request.body)
    except ValueError as exc:
        raise DomainError('body must be JSON: {"query": str | [str]}') from exc
    query = body.get("query") if isinstance(body, dict) else None
    queries = [query] if isinstance(query, str) else query
    if not isinstance(queries, list) or not queries or not all(isinstance(q, str) for q in queries):
        raise DomainError('"query" must be a string or a non-empty list of strings')
    if len(queries) > MAX_QUERIES:
        raise DomainError(f"at most {MAX_QUERIES} queries per call")
    return queries


def _answer(request: HttpRequest, sources: Any) -> JsonResponse:
    refusal = _refusal(request)
    if refusal is not None:
        return JsonResponse({"detail": refusal}, status=403)
    started = time.perf_counter()
    try:
        queries = _queries(request)
        answers = [
            selectors.search(user=None, query=q, mode=None, k=RESULTS_PER_QUERY, sources=sources)
            for q in queries
        ]
    except DomainError as exc:
        return JsonResponse({"detail": exc.message}, status=exc.status)
    found = [(a.query, a.results) for a in answers]
    seen: dict[str, dict[str, str]] = {}
    for _, results in found:
        for r in results:
            seen.setdefault(r.url, {"url": r.url, "title": r.title})
    metrics = {
        "queries": len(queries),
        "results": sum(len(results) for _, results in found),
        "mode": answers[0].mode,
        "seconds": round(time.perf_counter() - started, 4),
    }
    return JsonResponse(
        {"text": format_searches(found), "metrics": metrics, "sources": list(seen.values())}
    )


@csrf_exempt
@require_POST
def tools_search(request: HttpRequest) -> JsonResponse:
    return _answer(request, None)


@csrf_exempt
@require_POST
def tools_scholar(request: HttpRequest) -> JsonResponse:
    return _answer(request, set(settings.SCHOLAR_SOURCES))


@require_GET
def tools_health(request: HttpRequest) -> JsonResponse:
    status = index_status(settings.CORPUS_DIR)
    body = {"status": "ok" if status.modes else "no index", "modes": list(status.modes),
            "passages": status.passages}  # fmt: skip
    return JsonResponse(body, status=200 if status.modes else 503)
