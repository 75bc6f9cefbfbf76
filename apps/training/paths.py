"""Server paths as the training pages and REST show them: never absolute. A path under the
training directory is shown relative to it (runs/3/checkpoint-20), which is how a job's files
are named anyway; under another directory the server keeps (the corpus, the data directory,
the project, Python's) it is shown from that directory's name in angle brackets
(<corpus>/corpus.json, <python>/lib/python3.12/...). The same text reads the same for every
role. Stored configs keep their absolute paths: the gpu worker needs them."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import Any

from django.conf import settings

from apps.common.jsonmap import strings_mapped

TRAINING = ""  # a path under the training directory is shown relative to it


def _roots() -> tuple[tuple[str, str], ...]:
    named = (
        (settings.TRAINING_DIR, TRAINING),
        (settings.CORPUS_DIR, "<corpus>"),
        (settings.DATA_DIR, "<data>"),
        (settings.BASE_DIR, "<questweb>"),
        (sys.prefix, "<python>"),
        (sys.base_prefix, "<python>"),
    )
    roots = {str(Path(root)): name for root, name in reversed(named)}  # the first name wins
    return tuple((root, name) for root, name in roots.items() if root not in ("", "/", "."))


@functools.lru_cache(maxsize=8)
def _pattern(roots: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    # Longest first, so a root inside another (training inside data) is matched as itself.
    # A root begins and ends where path names do: /srv/data is in neither /srv/database nor
    # /mnt/srv/data.
    alternatives = sorted((re.escape(root) for root, _ in roots), key=len, reverse=True)
    return re.compile(f"(?<![\\w.~/-])({'|'.join(alternatives)})(?![\\w-]|\\.\\w)(/?)")


def shown_paths(text: str) -> str:
    """`text` (a path, a log, an error, YAML) with every server path in it made relative."""
    roots = _roots()
    if not text or not any(root in text for root, _ in roots):
        return text
    names = dict(roots)

    def replace(found: re.Match[str]) -> str:
        name, slash = names[found.group(1)], found.group(2)
        if name == TRAINING:
            return "" if slash else "."
        return name + slash

    return _pattern(roots).sub(replace, text)


def shown_paths_in(value: Any) -> Any:
    """A JSON value (a config, results) with shown_paths applied to every string in it."""
    return strings_mapped(value, shown_paths)
