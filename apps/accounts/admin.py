from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import ApiToken, User

admin.site.register(User, UserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("name", "user", "prefix", "created_at", "expires_at", "revoked_at")
    readonly_fields = ("prefix", "digest", "created_at", "last_used_at")
    search_fields = ("name", "user__username", "prefix")
