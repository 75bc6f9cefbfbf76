"""The pages every job kind has, routed one way: its detail page, the partial that page polls
while the job runs and the button that cancels it. An app's urls.py lists only its own pages."""

from __future__ import annotations

from types import ModuleType

from django.urls import URLPattern, path


def job_routes(
    at: str, views: ModuleType, noun: str, *, name: str = "", names: str = "", polled: bool = True
) -> list[URLPattern]:
    """The pages of one job at `at` (a prefix that captures its id): the detail page
    (`views.<noun>_detail`, URL name `name`, else `noun`), the partial it polls
    (`<noun>_progress`, named `<names>progress`; none where `polled` is false: the page polls
    partials of its own) and the cancel (`<noun>_cancel`, named `<names>cancel`)."""
    routes = [path(at, getattr(views, f"{noun}_detail"), name=name or noun)]
    if polled:
        routes.append(
            path(f"{at}progress/", getattr(views, f"{noun}_progress"), name=f"{names}progress")
        )
    routes.append(path(f"{at}cancel/", getattr(views, f"{noun}_cancel"), name=f"{names}cancel"))
    return routes
