"""`{{ run.model|bench_shown }}`: a server path as the benchmark pages show it (paths.shown)."""

from __future__ import annotations

from django import template

from apps.benchmarks.paths import shown

register = template.Library()


@register.filter
def bench_shown(text: str) -> str:
    return shown(str(text or ""))
