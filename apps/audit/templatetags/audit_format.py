"""How the audit pages write times and taxonomy codes, so every page says them the same way.

`{{ when|audit_time }}` writes one format everywhere ("2026-11-25 17:50 UTC") inside a <time>
element whose `datetime` carries the exact instant; audit-drafts.js writes the same format
when the page updates a time. `{{ code|error_type_label }}` and `{{ code|verdict_label }}` give the
taxonomy's readable names (exports keep the codes)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from quest.audit.taxonomy import ERROR_TYPES, VERDICTS

register = template.Library()

TIME_FORMAT = "%Y-%m-%d %H:%M UTC"


def audit_time_text(value: datetime) -> str:
    return value.astimezone(UTC).strftime(TIME_FORMAT)


@register.filter
def audit_time(value: Any, element_id: str = "") -> SafeString | str:
    if not isinstance(value, datetime):
        return "—"
    exact = value.astimezone(UTC).isoformat()
    if element_id:
        return format_html(
            '<time id="{}" datetime="{}">{}</time>', element_id, exact, audit_time_text(value)
        )
    return format_html('<time datetime="{}">{}</time>', exact, audit_time_text(value))


@register.filter
def error_type_label(code: Any) -> str:
    return ERROR_TYPES.get(str(code), str(code)) if code else ""


@register.filter
def verdict_label(code: Any) -> str:
    return VERDICTS.get(str(code), str(code)) if code else ""
