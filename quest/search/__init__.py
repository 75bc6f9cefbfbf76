"""Search over a corpus directory: BM25 (bm25s), dense (all-MiniLM-L6-v2 + FAISS), hybrid (RRF).

Importing this package is cheap: numpy, bm25s, faiss, torch and transformers are imported only
inside the functions that use them.
"""

from __future__ import annotations

from quest.search.dense import APPROXIMATE_ABOVE, DenseIndex
from quest.search.encoder import Encoder, MiniLMEncoder, ProgressFn
from quest.search.format import format_results, format_searches
from quest.search.fusion import RRF_K, reciprocal_rank_fusion
from quest.search.hits import Hit, SearchError
from quest.search.indexing import (
    Bm25Report,
    DenseReport,
    IndexStatus,
    bm25_build,
    dense_build,
    index_status,
)
from quest.search.searcher import MODES, Result, Searcher
from quest.search.strength import MIN_SIMILARITY, matches_well, weak_match

__all__ = [
    "APPROXIMATE_ABOVE",
    "MIN_SIMILARITY",
    "MODES",
    "RRF_K",
    "Bm25Report",
    "DenseIndex",
    "DenseReport",
    "Encoder",
    "Hit",
    "IndexStatus",
    "MiniLMEncoder",
    "ProgressFn",
    "Result",
    "SearchError",
    "Searcher",
    "bm25_build",
    "dense_build",
    "format_results",
    "format_searches",
    "index_status",
    "matches_well",
    "reciprocal_rank_fusion",
    "weak_match",
]
