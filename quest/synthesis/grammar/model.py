"""The grammar's output type and the seeded choices every generator shares."""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from typing import Literal

Verdict = Literal["right", "wrong", "uncommitted", "partial"]


@dataclass(frozen=True)
class GrammarAnswer:
    """One generated answer with the label a careful human grader would give it.

    `cls` names the grammar class (`attack:<where>:<what>` or `para:<axis>:<variant>`);
    `ceiling` is the most reward the answer truly deserves.
    """

    cls: str
    where: str
    what: str
    text: str
    verdict: Verdict
    ceiling: float


def rng_for(seed: int, *parts: str) -> random.Random:
    """A generator that depends only on the seed and the names given (stable across runs)."""
    key = "\x1f".join(parts).encode()
    return random.Random(seed * 1_000_003 + zlib.crc32(key))
