"""Values PostgreSQL cannot store, refused at the door with the field that holds them.

JSON from outside may hold NaN and Infinity (Python's json reads them, and reads 1e400 as
Infinity), lone surrogates (a "\\ud800" escape with no partner) and NUL characters. jsonb refuses
the first, UTF-8 the second, text columns the third: met at write time they are a 500, or an
import that never ends. Met here they are a 422 that names the field.
"""

from __future__ import annotations

import math
import re
from typing import Any

from apps.common.errors import Invalid

_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")
PATH_MAX = 200


def printable(text: str) -> str:
    """`text` with lone surrogates and NUL written as escapes: safe to store, log and render."""
    return _BAD_CHAR.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _problem(value: Any) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return f"is {name}: numbers must be finite"
    if isinstance(value, str):
        found = _BAD_CHAR.search(value)
        if found is None:
            return None
        if found.group() == "\x00":
            return "holds a NUL character (\\u0000), which cannot be stored"
        return f"holds a lone surrogate ({printable(found.group())}): text must be valid Unicode"
    return None


def _children(path: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [(f"{path}.{key}" if path else str(key), child) for key, child in value.items()]
    if isinstance(value, list | tuple):
        return [(f"{path}[{index}]", child) for index, child in enumerate(value)]
    return []


def unstorable(value: Any, *, field: str) -> str | None:
    """The first value under `field` that cannot be stored, as "<path> <why>"; None when all can.
    Iterative: a document nested as deep as the JSON parser allows does not overflow the stack."""
    stack = [(field, value)]
    while stack:
        path, item = stack.pop()
        problem = _problem(item)
        if problem is None and isinstance(item, dict):
            bad_key = next((k for k in item if _problem(k)), None)
            if bad_key is not None:
                problem = f"has a key that {_problem(bad_key)}"
        if problem is not None:
            shown = path if len(path) <= PATH_MAX else path[: PATH_MAX - 1] + "…"
            return f"{shown} {problem}"
        stack.extend(reversed(_children(path, item)))
    return None


def ensure_storable(value: Any, *, field: str) -> None:
    """Raise Invalid naming the first value under `field` that cannot be stored."""
    problem = unstorable(value, field=field)
    if problem is not None:
        raise Invalid(problem)
