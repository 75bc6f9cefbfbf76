"""Real Wikipedia samples and a recording wrapper around the real encoder, for search tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from quest.corpus import Document, load_wikipedia
from quest.search.encoder import MiniLMEncoder

STAMP = "2026-01-01T00:00:00+00:00"
NAMED = (
    "Eiffel Tower",
    "Mona Lisa",
    "Photosynthesis",
    "2001: A Space Odyssey",
    "Albert Einstein",
    "Volcano",
    "Coffee",
    "Penicillin",
)


def sample(count: int) -> list[Document]:
    """`count` real Wikipedia summaries: the NAMED articles, then every 50th article."""
    everything = list(load_wikipedia(fetched_at=STAMP))
    named = [d for d in everything if d.title in NAMED]
    rest = [d for d in everything[::50] if d.title not in NAMED]
    return (named + rest)[:count]


class CountingEncoder:
    """The real encoder, recording every text it is asked to embed."""

    def __init__(self, inner: MiniLMEncoder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts.extend(texts)
        return self.inner.encode(texts)
