"""Websocket routes. Each app that streams (live sessions, training curves) adds its own here."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
