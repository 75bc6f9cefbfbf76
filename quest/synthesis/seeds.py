"""Seeds of a synthesis batch: the QUEST taxonomy, the complexity classes and their targets, and
a sampler that balances both (QUEST-SPEC §3).

Subcategories are taken least-used first: the task store's counts plus what the batch has
already produced, ties broken by the batch's seed. Classes are drawn toward their targets by
largest deficit (the class furthest below its share of the candidates so far goes next), so a
batch of 200 lands within one task of its targets instead of wherever chance puts it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

TAXONOMY: dict[str, tuple[str, ...]] = {
    "Lifestyle & Leisure": (
        "Shopping",
        "Food & Cooking",
        "Sports & Fitness",
        "Health & Medicine",
        "Pets & Animal Welfare",
        "Fashion & Beauty",
        "Hobbies & DIY",
    ),
    "Entertainment": (
        "Films & TV Shows",
        "Gaming & Virtual Worlds",
        "Live Shows & Performances",
        "Music",
        "Books & Reading",
    ),
    "Misc.": (
        "General Info.",
        "News",
        "Legal & Government Services",
        "Real Estate",
        "Finance & Investment",
    ),
    "Science & Research": ("Research & Academia", "Technology & Science"),
    "Career & Education": ("Education & Learning", "Jobs & Career"),
    "Travel & Transportation": (
        "Travel & Accommodation",
        "Outdoor & Recreation",
        "Ticketed Activities",
    ),
}
SUBCATEGORIES: tuple[str, ...] = tuple(s for subs in TAXONOMY.values() for s in subs)
CATEGORY_OF: dict[str, str] = {s: c for c, subs in TAXONOMY.items() for s in subs}
CLASSES: tuple[str, ...] = tuple(f"C{i}" for i in range(1, 10))
# {C1,C4,C7} 50%, {C2,C5,C8} 40%, {C3,C6,C9} 10%, split evenly inside each group.
CLASS_TARGETS: dict[str, float] = {c: {1: 0.5, 2: 0.4, 0: 0.1}[int(c[1:]) % 3] / 3 for c in CLASSES}


def class_shape(name: str) -> tuple[int, int]:
    """ "C6" -> (breadth band 2, depth band 3): C = 3·(B-1) + D."""
    index = int(name[1:]) - 1
    return index // 3 + 1, index % 3 + 1


LANDED_ELSEWHERE = 0.5  # of a draw that was filed under another subcategory, given back


class SeedSampler:
    """Next (subcategory, class) for a batch, deterministic for a seed."""

    def __init__(
        self,
        *,
        seed: int,
        subcategories: Sequence[str],
        used: Mapping[str, int] | None = None,
        category_weights: Mapping[str, float] | None = None,
        class_weights: Mapping[str, float] | None = None,
    ) -> None:
        if not subcategories:
            raise ValueError("no subcategory to sample from")
        self._rng = random.Random(seed)
        self._subcategories = list(subcategories)
        self._used: dict[str, float] = {s: int((used or {}).get(s, 0)) for s in subcategories}
        weights = {k: float(v) for k, v in (category_weights or {}).items() if v > 0}
        self._category_weights = {s: weights[s] for s in subcategories if s in weights}
        targets = {k: float(v) for k, v in (class_weights or CLASS_TARGETS).items() if v > 0}
        total = sum(targets.values())
        self._class_targets = {c: v / total for c, v in targets.items()}
        self._classes: Counter[str] = Counter()
        self._drawn: Counter[str] = Counter()
        self._tiebreak = {s: self._rng.random() for s in subcategories}

    def next_subcategory(self) -> str:
        if self._category_weights:
            choice = self._largest_deficit(self._category_weights, self._drawn)
        else:
            choice = min(self._subcategories, key=lambda s: (self._used[s], self._tiebreak[s]))
        self._used[choice] += 1
        self._drawn[choice] += 1
        return choice

    def landed(self, drawn: str, subcategory: str) -> None:
        """A task drawn for `drawn` that was filed under `subcategory` (the kg generator files a
        task by the domain its answer belongs to): least-used first counts it where it landed,
        and half of it where it was drawn, so a subcategory whose drafts land elsewhere is
        drawn up to twice as often, never so often that the others starve."""
        if drawn != subcategory and subcategory in self._used and not self._category_weights:
            self._used[drawn] -= LANDED_ELSEWHERE
            self._used[subcategory] += 1

    def next_class(self) -> str:
        choice = self._largest_deficit(self._class_targets, self._classes)
        self._classes[choice] += 1
        return choice

    def _largest_deficit(self, targets: Mapping[str, float], seen: Counter[str]) -> str:
        total = sum(seen.values()) + 1
        norm = sum(targets.values())
        return max(
            targets,
            key=lambda k: (targets[k] / norm * total - seen[k], self._rng.random()),
        )
