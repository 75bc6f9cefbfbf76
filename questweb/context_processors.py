from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from questweb import __version__
from questweb.sections import SECTIONS


def navigation(request: HttpRequest) -> dict[str, Any]:
    first = request.path.strip("/").split("/", 1)[0]
    return {"nav_sections": SECTIONS, "current_section": first, "questweb_version": __version__}


def judge(request: HttpRequest) -> dict[str, Any]:
    """The configured judge model ("" when none): pages that score judge leaves say when there
    is none (templates/_no_judge.html)."""
    return {"judge_model": settings.LLM_JUDGE_MODEL}
