from __future__ import annotations

from quest.search.format import format_results, format_searches
from quest.search.fusion import reciprocal_rank_fusion
from quest.search.searcher import Result
from quest.search.snippets import make_snippet
from quest.search.tokens import terms


def result(rank: int, title: str, url: str, snippet: str) -> Result:
    return Result(rank, 1.0, url, title, snippet, (), 0)


def test_fusion_puts_an_item_ranked_well_by_both_lists_above_one_ranked_first_by_one() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d", "a"]])
    assert [key for key, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] == 1 / 62 + 1 / 61


def test_results_read_like_quests_search_tool() -> None:
    text = format_results(
        "eiffel tower",
        [
            result(1, "Eiffel Tower", "https://en.wikipedia.org/wiki/Eiffel_Tower", "A tower."),
            result(2, "Paris", "https://en.wikipedia.org/wiki/Paris", "A city."),
        ],
    )
    assert text == (
        "A search for 'eiffel tower' found 2 results:\n\n## Web Results\n"
        "1. [Eiffel Tower](https://en.wikipedia.org/wiki/Eiffel_Tower)\nA tower.\n\n"
        "2. [Paris](https://en.wikipedia.org/wiki/Paris)\nA city."
    )


def test_an_empty_result_list_suggests_a_more_general_query() -> None:
    assert format_results("zzyzx", []) == (
        "No results found for 'zzyzx'. Try with a more general query."
    )


def test_several_queries_are_separated_as_quest_separates_them() -> None:
    text = format_searches([("a", []), ("b", [])])
    assert text.split("\n=======\n") == [format_results("a", []), format_results("b", [])]


def test_a_long_passage_is_cut_to_the_window_holding_the_query_words() -> None:
    text = " ".join(["Filler words go here."] * 30) + " The comet returns every 76 years. The end."
    snippet = make_snippet(text, frozenset(terms("comet returns")), max_words=20)
    assert snippet.text.startswith("\u2026 ") and "comet returns" in snippet.text
    assert snippet.text.endswith("The end.")
    assert [snippet.text[a:b] for a, b in snippet.highlights] == ["comet", "returns"]


def test_query_words_match_their_plural_and_accented_forms() -> None:
    snippet = make_snippet("Cities of Curaçao.", frozenset(terms("city curacao")))
    assert [snippet.text[a:b] for a, b in snippet.highlights] == ["Cities", "Curaçao"]
