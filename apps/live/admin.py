from __future__ import annotations

from django.contrib import admin

from apps.live.models import LLMEndpoint, Session


@admin.register(LLMEndpoint)
class LLMEndpointAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "model", "base_url", "enabled", "priority", "updated_at")
    list_editable = ("enabled", "priority")


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("public_id", "question", "policy", "model", "status", "owner", "created_at")
    list_filter = ("status", "policy", "visibility")
    search_fields = ("question",)
    readonly_fields = ("public_id", "last_seq", "created_at", "started_at", "finished_at")
