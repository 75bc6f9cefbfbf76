from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

from apps.common.errors import DomainError, NotAuthenticated
from questweb.views import error_page


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
