"""Where a run's files may come from and how their paths are shown.

A benchmark run reads files on the server, so a path a request names must lie inside
settings.BENCHMARKS_DIR (uploads are stored there too): anything else is refused, a symbolic
link that leads out included. Paths are shown relative to it, as `<benchmarks>/…`, and other
server paths as the training pages show them: a viewer never reads an absolute path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from apps.common.errors import Invalid
from apps.common.jsonmap import strings_mapped
from apps.training.paths import shown_paths

SHOWN_ROOT = "<benchmarks>"


def benchmarks_root() -> Path:
    return Path(settings.BENCHMARKS_DIR).resolve()


def inside_path(value: str, *, field: str, kind: str = "file") -> Path:
    """The server path a request names (relative to the benchmarks directory, written
    `<benchmarks>/…`, or absolute inside it); Invalid names `field` when it is outside,
    missing or not a `kind` ("file", "directory" or "any")."""
    text = value.strip()
    if text.startswith(SHOWN_ROOT):
        text = text.removeprefix(SHOWN_ROOT).lstrip("/")
    root = benchmarks_root()
    try:
        path = (root / text).resolve()
        if not text or not path.is_relative_to(root) or path == root:
            raise Invalid(f"{field}: {value!r} is not a path inside the benchmarks directory")
        found = "file" if path.is_file() else "directory" if path.is_dir() else ""
        exists = bool(found) or path.exists()
    except OSError as error:  # a name too long for the file system, a loop of links, …
        raise Invalid(f"{field}: {value[:80]!r} is not a usable path: {error.strerror}") from None
    if not exists:
        raise Invalid(f"{field}: {shown(str(path))} does not exist")
    if kind in ("file", "directory") and found != kind:
        raise Invalid(f"{field}: {shown(str(path))} is not a {kind}")
    return path


def shown(text: str) -> str:
    """`text` (a path, an error) with server paths made relative."""
    root = str(benchmarks_root())
    return shown_paths(text.replace(root + "/", SHOWN_ROOT + "/"))


def shown_in(value: Any) -> Any:
    """A JSON value (a setup, metrics) with `shown` applied to every string in it."""
    return strings_mapped(value, shown)
