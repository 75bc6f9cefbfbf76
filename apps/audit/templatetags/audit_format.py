"""How the audit pages write times and taxonomy codes, so every page says them the same way.

`{{ when|audit_time }}` writes one format everywhere ("2026-11-25 17:50 UTC") inside a <time>
element whose `datetime` carries the exact instant; audit-drafts.js writes the same format
when the page updates a time. `{{ code|error_type_label }}`, `{{ code|verdict_label }}` and
`{{ code|decision_label }}` give the taxonomy's readable names (exports keep the codes);
`{{ label|verdict_mark }}` draws a node's verdict as the audit page's badge does."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from quest.audit.taxonomy import DECISIONS, ERROR_TYPES, VERDICTS

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


@register.filter
def decision_label(code: Any) -> str:
    return DECISIONS.get(str(code), str(code)) if code else ""


# As audit.js draws a verdict on the audit page.
VERDICT_MARKS = {"correct": "✓ correct", "wrong": "✗ wrong", "unverifiable": "? unverifiable"}


@register.filter
def verdict_mark(label: Any) -> str:
    """A node's label as the audit page's badge says it: "✗ wrong · Not atomic"."""
    if not isinstance(label, Mapping) or not label.get("verdict"):
        return ""
    verdict: str = label["verdict"]
    mark = VERDICT_MARKS.get(verdict, verdict)
    kind = error_type_label(label.get("error_type"))
    return f"{mark} · {kind}" if kind else mark
