from __future__ import annotations

from pathlib import Path

from quest.search import RRF_K, MiniLMEncoder, Searcher, matches_well, weak_match


def test_hybrid_results_say_where_each_retriever_ranked_them(
    wiki40: Path, encoder: MiniLMEncoder
) -> None:
    results = Searcher.open(wiki40, encoder=encoder).search("Eiffel Tower height", k=5)
    top = results[0]
    assert top.title == "Eiffel Tower"
    assert top.bm25_rank == 1 and top.dense_rank == 1
    assert top.score == 2 / (RRF_K + 1)
    assert top.similarity is not None and 0.5 < top.similarity <= 1.0
    # "eiffel" and "tower": the summary never says "height"
    assert (top.matched_terms, top.query_terms) == (2, 3)


def test_a_bm25_search_has_no_dense_rank_or_similarity(
    wiki40: Path, encoder: MiniLMEncoder
) -> None:
    results = Searcher.open(wiki40, encoder=encoder).search("Mona Lisa", mode="bm25", k=3)
    assert [r.bm25_rank for r in results] == [r.rank for r in results]
    assert {(r.dense_rank, r.similarity) for r in results} == {(None, None)}


def test_a_query_about_an_article_matches_well_even_in_other_words(
    wiki40: Path, encoder: MiniLMEncoder
) -> None:
    searcher = Searcher.open(wiki40, encoder=encoder)
    for query in ("Eiffel Tower height", "how plants turn light into sugar"):
        assert weak_match(searcher.search(query, k=5)) == ""


def test_a_query_about_what_the_corpus_lacks_is_called_weak_with_the_reason(
    wiki40: Path, encoder: MiniLMEncoder
) -> None:
    results = Searcher.open(wiki40, encoder=encoder).search("zebra migration serengeti", k=5)
    assert results, "hybrid search always returns its nearest documents"
    assert not any(matches_well(r) for r in results)
    reason = weak_match(results)
    assert reason.startswith("no result holds more than half of the query's 3 terms")
    assert "none is close in meaning" in reason


def test_a_bm25_result_with_most_of_the_query_words_matches_well(wiki200: Path) -> None:
    searcher = Searcher.open(wiki200)
    assert weak_match(searcher.search("Albert Einstein relativity", k=3)) == ""
    weak = searcher.search("Albert Marmalade Submarine Harpsichord", k=3)
    assert weak and "(the best holds" in weak_match(weak)


def test_nothing_found_is_not_called_weak(wiki200: Path) -> None:
    assert weak_match(Searcher.open(wiki200).search("qwxyzzy", k=3)) == ""
