"""A page's button runs one service and says on the next page how it went."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.contrib import messages
from django.http import HttpRequest

from apps.common.errors import DomainError

T = TypeVar("T")


def flashed(
    request: HttpRequest,
    action: Callable[[], T],
    said: str | Callable[[T], str],
    *,
    refused: type[DomainError] | tuple[type[DomainError], ...] = DomainError,
) -> T | None:
    """Run `action`; on the next page say `said` (a text, or one made from what it returned), or
    the refusal's own message when it raised one of `refused` (others propagate)."""
    try:
        result = action()
    except refused as exc:
        messages.error(request, exc.message)
        return None
    messages.success(request, said if isinstance(said, str) else said(result))
    return result
