"""How the API knows who is calling: a bearer API token, or the browser session with CSRF."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja.errors import AuthenticationError, HttpError
from ninja.security import HttpBearer
from ninja.security.apikey import APIKeyCookie
from ninja.utils import check_csrf

from apps.accounts.services import token_authenticate
from apps.common.errors import NotAuthenticated


class BearerToken(HttpBearer):
    def __call__(self, request: HttpRequest) -> Any:
        header = request.headers.get("Authorization")
        if header is None:
            return None
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            # A credential was offered and is unusable: say so instead of trying the session.
            raise AuthenticationError(message="Authorization header must be 'Bearer <token>'")
        return self.authenticate(request, secret.strip())

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        try:
            return token_authenticate(secret=token)
        except NotAuthenticated as exc:
            raise AuthenticationError(message=exc.message) from exc


class BrowserSession(APIKeyCookie):
    """The logged-in browser; unsafe methods need the CSRF token, as on the pages."""

    param_name = settings.SESSION_COOKIE_NAME

    def _get_key(self, request: HttpRequest) -> str | None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        exempt = getattr(request, "_ninja_csrf_exempt", False)
        if self.csrf and not exempt and check_csrf(request) is not None:
            raise HttpError(403, "CSRF check failed: send the X-CSRFToken header")
        return request.COOKIES.get(self.param_name)

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = getattr(request, "user", None)
        return user if user is not None and user.is_authenticated else None


API_AUTH = [BearerToken(), BrowserSession()]
