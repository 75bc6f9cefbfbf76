"""`{{ url|external_link }}`: a link for an http(s) URL, plain text for anything else."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator

from apps.common.links import http_url

register = template.Library()


@register.filter
def external_link(value: Any, length: int = 70) -> SafeString:
    text = Truncator(str(value)).chars(length)
    href = http_url(value)
    if href is None:
        return format_html('<span class="url">{}</span>', text)
    return format_html('<a href="{}" rel="noopener noreferrer">{}</a>', href, text)
