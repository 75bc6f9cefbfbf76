"""Inter-annotator agreement on nominal labels (verdicts, decisions).

Units are whatever was rated (a node of a tree in a campaign); each unit holds the labels its
raters gave, with None where a rater gave none. Every function returns None when agreement is
undefined — no pairable units, or a single label used throughout, where chance agreement is
already perfect — rather than a misleading 0 or 1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence

Label = Hashable


def cohen_kappa(pairs: Iterable[tuple[Label, Label]]) -> float | None:
    """Cohen's kappa for two raters: `pairs` holds (first rater's label, second's) per unit."""
    rows = list(pairs)
    n = len(rows)
    if n == 0:
        return None
    first = Counter(a for a, _ in rows)
    second = Counter(b for _, b in rows)
    observed = sum(a == b for a, b in rows) / n
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    if expected >= 1:
        return None
    return (observed - expected) / (1 - expected)


def _pairable(units: Iterable[Sequence[Label | None]]) -> list[list[Label]]:
    """Units with at least two labels; a unit rated once carries no agreement information."""
    kept = []
    for unit in units:
        labels = [label for label in unit if label is not None]
        if len(labels) >= 2:
            kept.append(labels)
    return kept


def krippendorff_alpha(units: Iterable[Sequence[Label | None]]) -> float | None:
    """Krippendorff's alpha for nominal data with any number of raters and missing labels.

    With o the coincidence matrix and n_c its marginals, alpha = 1 - D_o / D_e, where the
    observed disagreement sums o_ck over c != k, and each unit of m labels adds
    (m^2 - sum of squared label counts) / (m - 1) to it.
    """
    disagreement = 0.0
    totals: Counter[Label] = Counter()
    for labels in _pairable(units):
        counts = Counter(labels)
        m = len(labels)
        disagreement += (m * m - sum(c * c for c in counts.values())) / (m - 1)
        totals.update(counts)
    n = sum(totals.values())
    expected_pairs = n * n - sum(c * c for c in totals.values())
    if n == 0 or expected_pairs == 0:
        return None
    return 1 - (n - 1) * disagreement / expected_pairs


def percent_agreement(units: Iterable[Sequence[Label | None]]) -> float | None:
    """The share of units (rated at least twice) on which every rater gave the same label."""
    rated = _pairable(units)
    if not rated:
        return None
    return sum(len(set(labels)) == 1 for labels in rated) / len(rated)
