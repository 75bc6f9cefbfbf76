from __future__ import annotations

import json
from typing import Any


def loads_untrusted(raw: str | bytes) -> Any:
    """json.loads for bodies and files from outside: deep nesting is a ValueError like any other
    bad JSON, instead of the RecursionError the json module raises."""
    try:
        return json.loads(raw)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
