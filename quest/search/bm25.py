"""BM25 over passages with `bm25s`, on questweb's own tokenizer (quest.search.tokens)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quest.search.hits import Hit
from quest.search.tokens import terms

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

META = "meta.json"


class Bm25Index:
    def __init__(self, retriever: Any, size: int) -> None:
        self._retriever = retriever
        self.size = size

    @classmethod
    def build(cls, texts: Sequence[str]) -> Bm25Index:
        import bm25s  # type: ignore[import-untyped]

        retriever = bm25s.BM25()
        retriever.index([terms(text) for text in texts], show_progress=False)
        return cls(retriever, len(texts))

    def save(self, directory: Path, *, meta: dict[str, Any]) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._retriever.save(str(directory), show_progress=False)
        (directory / META).write_text(json.dumps({**meta, "passages": self.size}) + "\n")

    @classmethod
    def load(cls, directory: Path) -> Bm25Index:
        import bm25s

        retriever = bm25s.BM25.load(str(directory), show_progress=False)
        return cls(retriever, int(read_meta(directory)["passages"]))

    def search(self, query: str, k: int) -> list[Hit]:
        vocabulary = self._retriever.vocab_dict
        ids = [vocabulary[term] for term in dict.fromkeys(terms(query)) if term in vocabulary]
        if not ids or self.size == 0:
            return []
        return top_hits(self._retriever.get_scores(ids), k)


def read_meta(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / META).read_text())
    return data


def top_hits(scores: npt.NDArray[np.float32], k: int) -> list[Hit]:
    """The `k` best positive scores, best first, ties by row (deterministic)."""
    import numpy as np

    count = min(k, len(scores))
    if count <= 0:
        return []
    best = np.argpartition(-scores, count - 1)[:count]
    order = sorted(best.tolist(), key=lambda row: (-float(scores[row]), row))
    return [Hit(row, float(scores[row])) for row in order if scores[row] > 0]
