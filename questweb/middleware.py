from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import get_bytes_from_wsgi
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

from apps.common import utf8
from apps.common.errors import DomainError, NotAuthenticated
from apps.common.storable import printable, unstorable
from questweb.views import error_page

FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


class DomainErrorMiddleware:
    """Pages raise the same domain errors as the API; here they become the right status page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, NotAuthenticated):
            return redirect_to_login(request.get_full_path())
        if isinstance(exception, DomainError):
            return error_page(request, exception.status, exception.message)
        return None


def too_large(request: HttpRequest) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
    return error_page(
        request,
        413,
        f"the request body is larger than the {limit:g} MB limit "
        "(files sent as uploads do not count toward it)",
    )


class RequestSizeMiddleware:
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413: a JSON {"detail"} under /api/, the
    error page elsewhere. Django raises RequestDataTooBig when the body is first read, and makes
    a bare 400 of it; the first read is often CsrfViewMiddleware's, where no view or exception
    middleware sees it. So this reads the body first (what CSRF or the view would read anyway:
    form fields, or the whole body of any other type) and answers before they do. Listed before
    CsrfViewMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        if request.method in SAFE_METHODS:
            return None
        try:
            if request.content_type in FORM_TYPES:
                request.POST  # noqa: B018  (parses the form; files go to upload handlers)
            else:
                request.body  # noqa: B018
        except RequestDataTooBig:
            return too_large(request)
        return None


class Utf8InputMiddleware:
    """A query parameter, form field or JSON body holding bytes that are not UTF-8 is a 400
    naming the field (a JSON {"detail"} under /api/, the error page elsewhere), before any view
    runs: Django decodes such bytes as U+FFFD, and a form stored that. A multipart form is
    parsed with apps.common.utf8's upload handler, set up here before anything reads the body;
    its files are left as they are. Listed after CsrfViewMiddleware (a forged form is refused
    as such first) and before StorableInputMiddleware (a bad byte is marked as a lone
    surrogate, which that one would call unstorable instead)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        utf8.register_codec()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        utf8.mark_multipart(request)
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        problem = utf8.invalid_urlencoded("query parameter", _raw_query(request))
        problem = problem or _body_problem(request)
        return None if problem is None else error_page(request, 400, problem)


def _raw_query(request: HttpRequest) -> bytes:
    """The query string as the client sent it, before Django decoded it."""
    scope = getattr(request, "scope", None)  # an ASGI request
    if isinstance(scope, dict):
        raw = scope.get("query_string", b"")
        return raw if isinstance(raw, bytes) else str(raw).encode()
    return bytes(get_bytes_from_wsgi(request.META, "QUERY_STRING", ""))


def _body_problem(request: HttpRequest) -> str | None:
    if request.method in SAFE_METHODS:
        return None
    kind = request.content_type or ""
    if request.method == "POST" and kind == "application/x-www-form-urlencoded":
        return utf8.invalid_urlencoded("form field", request.body)
    if request.method == "POST" and kind == "multipart/form-data":
        return utf8.invalid_field("form field", request.POST.lists())
    if kind == "application/json" or kind.endswith("+json"):
        return utf8.invalid_json(request.body)
    return None


class StorableInputMiddleware:
    """A query parameter or form field holding a NUL character is a 422 naming it (a JSON
    {"detail"} under /api/, the error page elsewhere), before any view runs. PostgreSQL stores no
    NUL in text and refuses one in a query's parameters, so a search, a filter or a form would
    otherwise end in a 500. Bytes that are not UTF-8 were refused by Utf8InputMiddleware; JSON
    bodies are the API schemas' to check (Text, JsonObject). Listed after
    CsrfViewMiddleware: a forged form is refused as such first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        sources = [("query parameter", request.GET)]
        if request.method == "POST" and request.content_type in FORM_TYPES:
            sources.append(("form field", request.POST))
        for kind, data in sources:
            for key, values in data.lists():
                problem = _unstorable_field(kind, key, values)
                if problem is not None:
                    return error_page(request, 422, problem)
        return None


def _unstorable_field(kind: str, key: str, values: list[str]) -> str | None:
    problem = unstorable(key, field=f"a {kind}'s name")
    for value in values:
        problem = problem or unstorable(value, field=f"the {kind} {printable(key)[:100]}")
    return problem


class MessagesShownOnceMiddleware:
    """A page that showed flash messages is not stored by the browser, so back and forward fetch
    it again instead of showing "Batch 1 queued." from a copy after it stopped being true."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        storage = getattr(request, "_messages", None)
        if storage is not None and storage.used:  # iterated: the page listed its messages
            patch_cache_control(response, no_store=True)
        return response
