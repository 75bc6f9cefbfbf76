from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from search_helpers import STAMP, CountingEncoder, sample

from quest.corpus import Document, corpus_write
from quest.search import indexing
from quest.search.encoder import DIMENSION, MiniLMEncoder
from quest.search.indexing import dense_build, index_status
from quest.search.searcher import Searcher


@pytest.fixture(scope="module")
def searcher(wiki40: Path, encoder: MiniLMEncoder) -> Searcher:
    return Searcher.open(wiki40, encoder=encoder)


def test_the_bundled_model_loads_offline_and_gives_unit_vectors(encoder: MiniLMEncoder) -> None:
    vectors = encoder.encode(["A cat sat on the mat.", "A kitten rested on a rug.", "Tax law."])
    assert vectors.shape == (3, DIMENSION)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_dense_search_finds_an_article_from_a_paraphrase_with_no_shared_words(
    searcher: Searcher,
) -> None:
    query = "drug that kills germs, first found in a fungus"
    assert "Penicillin" not in [r.title for r in searcher.search(query, mode="bm25", k=5)]
    assert searcher.search(query, mode="dense", k=5)[0].title == "Penicillin"


def test_hybrid_switches_on_when_the_dense_index_is_ready_and_fuses_both_rankings(
    searcher: Searcher,
) -> None:
    assert searcher.modes == ("bm25", "dense", "hybrid")
    assert searcher.default_mode == "hybrid"
    results = searcher.search("which tower stands in Paris", k=5)
    assert results[0].title == "Eiffel Tower"
    assert all(0 < r.score <= 2 / 61 for r in results)  # reciprocal rank fusion, k = 60
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_the_dense_index_persists_and_reopens_with_the_same_results(
    wiki40: Path, encoder: MiniLMEncoder, searcher: Searcher
) -> None:
    again = Searcher.open(wiki40, encoder=encoder)
    query = "a painting in the Louvre"
    assert again.search(query, mode="dense") == searcher.search(query, mode="dense")
    assert index_status(wiki40).dense_kind == "flat"


def test_a_rebuild_embeds_only_new_and_changed_passages(
    wiki40: Path, encoder: MiniLMEncoder, tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(wiki40, folder)
    coffee = next(d for d in sample(40) if d.title == "Coffee")
    changed = Document(**{**coffee.to_json(), "text": coffee.text + " It is grown in Brazil."})
    corpus_write(folder, [changed, _page("Tea is an aromatic beverage.")])
    counting = CountingEncoder(encoder)
    report = dense_build(folder, encoder=counting)
    assert sorted(text.split("\n")[0] for text in counting.texts) == ["Coffee", "Tea"]
    assert (report.embedded, report.reused, report.passages) == (2, report.passages - 2, 42)
    unchanged = dense_build(folder, encoder=CountingEncoder(encoder))
    assert unchanged.embedded == 0


def test_an_interrupted_build_resumes_from_its_checkpoint_and_reports_progress(
    wiki40: Path, encoder: MiniLMEncoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(wiki40, folder)
    shutil.rmtree(folder / "index" / "dense")
    monkeypatch.setattr(indexing, "CHECKPOINT_EVERY", 8)
    with pytest.raises(RuntimeError, match="worker stopped"):
        dense_build(folder, encoder=_StopsAfter(encoder, batches=2), batch_size=8)
    status = index_status(folder)
    assert (status.dense, status.dense_embedded) == ("partial", 16)
    assert Searcher.open(folder, encoder=encoder).modes == ("bm25",)
    calls: list[tuple[int, int]] = []
    resumed = dense_build(
        folder, encoder=encoder, batch_size=8, on_progress=lambda *c: calls.append(c)
    )
    left = status.passages - 16
    assert resumed.embedded == left
    assert calls == [(0, left), *((done, left) for done in range(8, left, 8)), (left, left)]
    assert index_status(folder).dense == "ready"


def test_the_index_is_approximate_above_the_threshold_and_exact_at_or_below(
    wiki40: Path, encoder: MiniLMEncoder, tmp_path: Path
) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(wiki40, folder)
    passages = index_status(folder).passages
    assert dense_build(folder, encoder=encoder, approximate_above=passages).kind == "flat"
    report = dense_build(folder, encoder=encoder, approximate_above=passages - 1)
    assert (report.kind, report.embedded) == ("hnsw", 0)
    assert index_status(folder).dense_kind == "hnsw"
    searcher = Searcher.open(folder, encoder=encoder)
    assert searcher.search("a fungus that kills germs", mode="dense")[0].title == "Penicillin"


def _page(text: str) -> Document:
    return Document(
        url="https://example.org/tea",
        title="Tea",
        text=text,
        source="user",
        licence="CC0",
        fetched_at=STAMP,
    )


class _StopsAfter:
    """The real encoder, stopping like a killed worker after `batches` batches."""

    def __init__(self, inner: MiniLMEncoder, *, batches: int) -> None:
        self.inner, self.left = inner, batches
        self.name, self.dimension = inner.name, inner.dimension

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.left == 0:
            raise RuntimeError("worker stopped")
        self.left -= 1
        return self.inner.encode(texts)
