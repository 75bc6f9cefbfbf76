"""`{{ job.model|shown_paths }}`: a path, or text holding paths (an error), as the training
pages show it, relative to the training directory (apps/training/paths.py)."""

from __future__ import annotations

from typing import Any

from django import template

from apps.training import paths

register = template.Library()


@register.filter
def shown_paths(value: Any) -> str:
    return paths.shown_paths("" if value is None else str(value))
