from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts import selectors, services
from apps.accounts.forms import TokenForm
from apps.common.errors import DomainError


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def form_invalid(self, form: Any) -> HttpResponse:
        # A failed login is an authentication failure, not a successful page view.
        response = super().form_invalid(form)
        response.status_code = 401
        return response


def _settings_context(request: HttpRequest, **extra: Any) -> dict[str, Any]:
    return {
        "tokens": selectors.token_list(user=request.user),  # type: ignore[arg-type]
        "roles": selectors.user_roles(user=request.user),  # type: ignore[arg-type]
        "form": TokenForm(),
        **extra,
    }


def _render_tokens(
    request: HttpRequest, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    template = "accounts/settings.html#tokens" if request.htmx else "accounts/settings.html"  # type: ignore[attr-defined]
    return render(request, template, context, status=status)


@login_required
@require_http_methods(["GET"])
def account_settings(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/settings.html", _settings_context(request))


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _render_tokens(request, _settings_context(request, form=form), status=422)
    try:
        issued = services.token_create(
            user=request.user,  # type: ignore[arg-type]
            name=form.cleaned_data["name"],
            expires_in_days=form.cleaned_data["expires_in_days"],
        )
    except DomainError as exc:
        form.add_error(None, exc.message)
        return _render_tokens(request, _settings_context(request, form=form), status=exc.status)
    return _render_tokens(request, _settings_context(request, issued=issued))


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    status = 200
    try:
        token = services.token_revoke(user=request.user, token_id=token_id)  # type: ignore[arg-type]
        messages.success(request, f"Token “{token.name}” revoked.")
    except DomainError as exc:
        messages.error(request, exc.message)
        status = exc.status
    if request.htmx:  # type: ignore[attr-defined]
        return _render_tokens(request, _settings_context(request), status=status)
    return redirect("accounts:settings")
