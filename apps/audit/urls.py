from __future__ import annotations

from django.urls import path

app_name = "audit"

urlpatterns: list[object] = []
