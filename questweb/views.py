from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.accounts.roles import ROLE_REQUIREMENT, Role
from apps.accounts.services import token_authenticate
from apps.common.errors import NotAuthenticated
from questweb.health import health_report
from questweb.sections import BY_SLUG, SECTIONS


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"


# What each section keeps for a higher role: a user without it reads the section, and the home
# page says who can do the rest rather than showing buttons that would answer 403.
_SECTION_ACTIONS: dict[str, tuple[str, str]] = {
    "tasks": (ROLE_REQUIREMENT[Role.ADMIN], "Importing tasks needs the admin role."),
    "audit": (ROLE_REQUIREMENT[Role.ANNOTATOR], "Auditing trees needs the annotator role."),
    "live": ("accounts.use_llm", "LLM policies need a grant from an admin; scripted ones run."),
    "synthesis": (ROLE_REQUIREMENT[Role.ADMIN], "Starting batches needs the admin role."),
    "training": (ROLE_REQUIREMENT[Role.ADMIN], "Datasets and jobs are started by admins."),
    "recipes": (ROLE_REQUIREMENT[Role.ADMIN], "Recipes are started by admins."),
    "benchmarks": (ROLE_REQUIREMENT[Role.ADMIN], "Benchmark runs are started by admins."),
    "corpus": (ROLE_REQUIREMENT[Role.ADMIN], "Loading and indexing need the admin role."),
}
# Planned pages: named on the home page, not linked, until they exist.
COMING: tuple[tuple[str, str], ...] = ()


def _cards(request: HttpRequest) -> list[dict[str, object]]:
    user = request.user
    cards: list[dict[str, object]] = []
    for section in SECTIONS:
        permission, note = _SECTION_ACTIONS[section.slug]
        if not user.is_authenticated:
            note = "Log in to open."
        elif user.has_perm(permission):
            note = ""
        cards.append({"section": section, "note": note})
    return cards


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"cards": _cards(request), "coming": COMING})


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    # Anyone (a load balancer, a monitor) reads the state of each part; details are for admins,
    # signed in or calling with an API token.
    details = _caller(request).has_perm(ROLE_REQUIREMENT[Role.ADMIN])
    healthy, report = health_report(details=details)
    return JsonResponse(report, status=200 if healthy else 503)


def _caller(request: HttpRequest) -> Any:
    """The signed-in user, or the user of a valid bearer token; a bad or unreadable token (the
    database may be what is down) is an anonymous caller, never an error of the health check."""
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return request.user
    try:
        return token_authenticate(secret=secret.strip())
    except (NotAuthenticated, DatabaseError):
        return AnonymousUser()


@require_GET
@login_required
def section(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in BY_SLUG:
        raise Http404(f"no section {slug}")
    return render(request, "section.html", {"section": BY_SLUG[slug]})


def _error(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"detail": message}, status=status)
    context = {"status": status, "title": title, "message": message}
    return render(request, "error.html", context, status=status)


TITLES = {
    400: "Bad request",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    413: "Too large",
    422: "Invalid",
    429: "Too many attempts",
}


def error_page(request: HttpRequest, status: int, message: str) -> HttpResponse:
    return _error(request, status, TITLES.get(status, "Error"), message)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error(request, 404, "Not found", f"Nothing lives at {request.path}.")


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error(request, 403, "Forbidden", "Your account does not have access to this page.")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error(request, 400, "Bad request", "The request could not be understood.")


def server_error(request: HttpRequest) -> HttpResponse:
    return _error(request, 500, "Server error", "Something broke on our side; it was logged.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return _error(
        request,
        403,
        "Form expired",
        "CSRF check failed: reload the page and submit again "
        "(API clients: send the X-CSRFToken header or use a bearer token).",
    )


def login_locked(
    request: HttpRequest, credentials: object = None, *args: object, **kwargs: object
) -> HttpResponse:
    """django-axes' lockout page: too many failed logins for this user name from this address."""
    minutes = round(settings.AXES_COOLOFF_TIME * 60)
    message = (
        f"Too many failed logins for this account from your address. Try again in {minutes} "
        "minutes, or ask an admin to unlock it."
    )
    return error_page(request, 429, message)
