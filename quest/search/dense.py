"""Dense retrieval: normalised embeddings in FAISS, exact below a size and approximate above.

Below `approximate_above` passages (50,000 by default) the index is `IndexFlatIP`: exact inner
product, which on unit vectors is cosine similarity. Above it, `IndexHNSWFlat` (a graph index
that needs no training and accepts additions), tuned so recall@10 against exact search stays
at or above 0.95 (benchmarks/search_bench.py measures it). The kind chosen is reported.

Vectors are cached by passage content hash (`EmbeddingCache`), so a rebuild embeds only new or
changed passages, and an interrupted build resumes from its last checkpoint.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quest.llm.loading import prefer_passive_openmp
from quest.search.hits import Hit

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

FLAT = "flat"
HNSW = "hnsw"
APPROXIMATE_ABOVE = 50_000
HNSW_NEIGHBOURS = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 96

INDEX_FILE = "faiss.index"
CACHE_VECTORS = "embeddings.npy"
CACHE_MANIFEST = "embeddings.json"


class DenseIndex:
    def __init__(self, index: Any, kind: str) -> None:
        self._index = index
        self.kind = kind

    @classmethod
    def from_vectors(
        cls, vectors: Matrix, *, approximate_above: int = APPROXIMATE_ABOVE
    ) -> DenseIndex:
        """Exact when there are at most `approximate_above` vectors, HNSW above."""
        prefer_passive_openmp()
        import faiss
        import numpy as np

        dimension = int(vectors.shape[1])
        index: Any
        if len(vectors) <= approximate_above:
            index, kind = faiss.IndexFlatIP(dimension), FLAT
        else:
            index = faiss.IndexHNSWFlat(dimension, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            index.hnsw.efSearch = HNSW_EF_SEARCH
            kind = HNSW
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        return cls(index, kind)

    @property
    def size(self) -> int:
        return int(self._index.ntotal)

    def search(self, vector: Matrix, k: int) -> list[Hit]:
        """Nearest passages to one query vector, best first."""
        scores, rows = self.search_batch(vector.reshape(1, -1), k)
        return [Hit(int(r), float(s)) for r, s in zip(rows[0], scores[0], strict=True) if r >= 0]

    def search_batch(self, vectors: Matrix, k: int) -> tuple[Any, Any]:
        """FAISS's (scores, rows) arrays for many queries; rows are -1 past the index size."""
        import numpy as np

        found: tuple[Any, Any] = self._index.search(
            np.ascontiguousarray(vectors, dtype=np.float32), k
        )
        return found

    def save(self, path: Path) -> None:
        import faiss

        tmp = path.with_name(path.name + ".tmp")
        faiss.write_index(self._index, str(tmp))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, kind: str) -> DenseIndex:
        prefer_passive_openmp()
        import faiss

        index: Any = faiss.read_index(str(path))
        if kind == HNSW:
            index.hnsw.efSearch = HNSW_EF_SEARCH
        return cls(index, kind)


class EmbeddingCache:
    """Vectors keyed by passage content hash, for one model."""

    def __init__(self, model: str, dimension: int) -> None:
        self.model = model
        self.dimension = dimension
        self._hashes: list[str] = []
        self._position: dict[str, int] = {}
        self._parts: list[Matrix] = []

    def __contains__(self, content_hash: object) -> bool:
        return content_hash in self._position

    def __len__(self) -> int:
        return len(self._hashes)

    def add(self, hashes: Sequence[str], vectors: Matrix) -> None:
        for content_hash in hashes:
            self._position[content_hash] = len(self._hashes)
            self._hashes.append(content_hash)
        self._parts.append(vectors)

    def select(self, hashes: Sequence[str]) -> Matrix:
        """One row per hash, in order (every hash must be cached)."""
        import numpy as np

        matrix = self._matrix()
        return matrix[np.asarray([self._position[h] for h in hashes], dtype=np.int64)]

    def _matrix(self) -> Matrix:
        import numpy as np

        if len(self._parts) != 1:
            empty = np.zeros((0, self.dimension), dtype=np.float32)
            self._parts = [np.concatenate([empty, *self._parts])]
        return self._parts[0]

    def save(self, folder: Path, *, keep: Sequence[str] | None = None) -> None:
        """Write the cache; with `keep`, only those hashes (dropping vectors no passage uses)."""
        import numpy as np

        hashes = list(dict.fromkeys(keep)) if keep is not None else self._hashes
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / (CACHE_VECTORS + ".tmp")
        with tmp.open("wb") as handle:
            np.save(handle, self.select(hashes))
        os.replace(tmp, folder / CACHE_VECTORS)
        manifest = {"model": self.model, "dimension": self.dimension, "hashes": hashes}
        write_json(folder / CACHE_MANIFEST, manifest)

    @classmethod
    def load(cls, folder: Path, *, model: str, dimension: int) -> EmbeddingCache:
        """The cache in `folder`, or an empty one when there is none for this model."""
        import numpy as np

        cache = cls(model, dimension)
        try:
            manifest = json.loads((folder / CACHE_MANIFEST).read_text())
            vectors = np.load(folder / CACHE_VECTORS)
        except (OSError, ValueError):
            return cache
        if (manifest.get("model"), manifest.get("dimension")) == (model, dimension) and len(
            vectors
        ) == len(manifest.get("hashes", [])):
            cache.add(manifest["hashes"], vectors.astype(np.float32, copy=False))
        return cache


def write_json(path: Path, data: object) -> None:
    """Replace `path` at once, so a reader sees the old file or the new one."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data) + "\n")
    os.replace(tmp, path)
