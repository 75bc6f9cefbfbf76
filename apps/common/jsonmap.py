"""One walk over a JSON value that rewrites its strings (a config, results, a setup): what the
pages and the REST API use to show server paths relative to their roots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def strings_mapped(value: Any, change: Callable[[str], str]) -> Any:
    """`value` with `change` applied to every string in it, keys left as they are; a tuple
    comes back a list, as JSON has it."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: strings_mapped(item, change) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strings_mapped(item, change) for item in value]
    return value
