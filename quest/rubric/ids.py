"""Node ids: slug-like, unique within a tree, derived deterministically from labels."""

from __future__ import annotations

import re
from collections.abc import Sequence

from quest.rubric.model import MAX_ID_LENGTH
from quest.text.fold import strip_accents

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_NOT_SLUG = re.compile(r"[^a-z0-9_-]+")


def is_valid_id(value: str) -> bool:
    return ID_PATTERN.fullmatch(value) is not None


def slugify(label: str) -> str:
    """`Patent #1 (US)` -> `patent_1_us`; accents are folded, never dropped with their letter."""
    folded = strip_accents(label[: MAX_ID_LENGTH * 4])
    ascii_only = folded.encode("ascii", "ignore").decode("ascii").lower()
    slug = _NOT_SLUG.sub("_", ascii_only).strip("_-")
    return slug[:MAX_ID_LENGTH].rstrip("_-") or "node"


def derive_ids(
    labels: Sequence[str], explicit: Sequence[str | None]
) -> tuple[list[str], list[tuple[int, str]]]:
    """Ids for nodes listed in pre-order. Explicit ids are kept (validated elsewhere) and
    reserved first, so a derived id never takes a name the file spelled out. A derived id that
    collides gets the smallest free `_2`, `_3`, ... suffix. Returns the ids and the
    (position, original slug) of every node that was renamed, for the import notes."""
    taken = {value for value in explicit if value is not None}
    ids: list[str] = []
    renamed: list[tuple[int, str]] = []
    for position, (label, given) in enumerate(zip(labels, explicit, strict=True)):
        if given is not None:
            ids.append(given)
            continue
        base = slugify(label)
        candidate = base
        suffix = 2
        while candidate in taken:
            tail = f"_{suffix}"
            candidate = base[: MAX_ID_LENGTH - len(tail)] + tail
            suffix += 1
        if candidate != base:
            renamed.append((position, base))
        taken.add(candidate)
        ids.append(candidate)
    return ids, renamed
