from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from questweb import __version__
from questweb.sections import SECTIONS


def navigation(request: HttpRequest) -> dict[str, Any]:
    return {"nav_sections": SECTIONS, "version": __version__}
