"""What every job's page shares: the progress fragment it polls while the job runs."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def progress_fragment(
    request: HttpRequest, template: str, job: Any, context: dict[str, Any]
) -> HttpResponse:
    """The polled fragment `template` of a job's page; once the job has ended, an htmx poll
    reloads the whole page (HX-Refresh) so it shows what the finished job made."""
    response = render(request, template, context)
    if not job.is_active and request.htmx:  # type: ignore[attr-defined]
        response["HX-Refresh"] = "true"
    return response
