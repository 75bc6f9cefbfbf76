from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from apps.accounts import views

app_name = "accounts"

urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("settings/", views.account_settings, name="settings"),
    path("settings/tokens/", views.token_create, name="token-create"),
    path("settings/tokens/<int:token_id>/revoke/", views.token_revoke, name="token-revoke"),
]
