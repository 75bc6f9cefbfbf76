"""Names in a claim: whole-word mentions of a tree's names, the longest where two overlap."""

from __future__ import annotations

from collections.abc import Sequence

from quest.text.fold import fold_with_origin

Span = tuple[int, int, str]  # (start, end, folded name)


def entity_mentions(text: str, keys: Sequence[str]) -> list[Span]:
    """Whole-word mentions of the names, longest first where they overlap ("South Sudan" is
    one mention, not also "Sudan")."""
    if not keys:
        return []
    folded = fold_with_origin(text)
    found = [(a, b, key) for key in keys for a, b in folded.find_all(key)]
    found.sort(key=lambda m: (m[0], -(m[1] - m[0])))
    kept: list[Span] = []
    for span in found:
        if kept and span[0] < kept[-1][1]:
            continue
        kept.append(span)
    return kept
