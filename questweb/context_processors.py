from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from questweb import __version__
from questweb.sections import SECTIONS


def navigation(request: HttpRequest) -> dict[str, Any]:
    first = request.path.strip("/").split("/", 1)[0]
    return {"nav_sections": SECTIONS, "current_section": first, "questweb_version": __version__}
