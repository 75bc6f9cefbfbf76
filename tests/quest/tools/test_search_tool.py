from __future__ import annotations

from tools_doubles import ADA, BABBAGE, ListSearchBackend

from quest.tools import SCHOLAR, SearchHit, SearchTool


class ReversedRankBackend:
    """Returns its hits in reverse rank order, as a careless backend might."""

    def search(self, query: str, k: int) -> list[SearchHit]:
        return [
            SearchHit(2, "Second", "https://b.example/", "b"),
            SearchHit(1, "First", "https://a.example/", "a"),
        ]


class CrashingBackend:
    def search(self, query: str, k: int) -> list[SearchHit]:
        raise RuntimeError("index file missing")


def test_it_writes_results_as_quests_search_tool_does() -> None:
    tool = SearchTool(ListSearchBackend([ADA, BABBAGE]))

    result = tool("analytical engine")

    assert result.ok
    assert result.text == (
        "A search for 'analytical engine' found 2 results:\n\n"
        "## Web Results\n"
        f"1. [Ada Lovelace]({ADA.url})\n{' '.join(ADA.text[:80].split())}\n\n"
        f"2. [Charles Babbage]({BABBAGE.url})\n{' '.join(BABBAGE.text[:80].split())}"
    )


def test_it_runs_every_query_and_separates_them() -> None:
    backend = ListSearchBackend([ADA, BABBAGE])

    result = SearchTool(backend, k=3)(["lovelace", "polymath"])

    assert backend.queries == [("lovelace", 3), ("polymath", 3)]
    first, second = result.text.split("\n=======\n")
    assert first.startswith("A search for 'lovelace' found 1 results:")
    assert second.startswith("A search for 'polymath' found 1 results:")


def test_it_says_plainly_when_a_query_finds_nothing() -> None:
    result = SearchTool(ListSearchBackend([ADA]))(["quantum chromodynamics"])

    assert result.ok
    assert result.text == (
        "No results found for 'quantum chromodynamics'. Try with a more general query."
    )


def test_it_orders_hits_by_rank_and_keeps_at_most_k() -> None:
    result = SearchTool(ReversedRankBackend(), k=1)("anything")

    assert "found 1 results" in result.text
    assert "1. [First](https://a.example/)" in result.text
    assert "Second" not in result.text


def test_scholar_results_carry_their_own_heading() -> None:
    tool = SearchTool(ListSearchBackend([ADA]), name="google_scholar", style=SCHOLAR)

    result = tool(["lovelace"])

    assert result.text.startswith("A Google scholar search for 'lovelace' found 1 results:")
    assert "## Scholar Results\n1. [Ada Lovelace]" in result.text


def test_it_refuses_too_many_queries_without_running_any() -> None:
    backend = ListSearchBackend([ADA])

    result = SearchTool(backend)([f"query {n}" for n in range(6)])

    assert not result.ok
    assert result.text == "[search] Error: 6 queries were sent; at most 5 are allowed"
    assert backend.queries == []


def test_it_refuses_a_gigantic_query() -> None:
    backend = ListSearchBackend([ADA])

    result = SearchTool(backend)(["ada", "x" * 100_000])

    assert not result.ok
    assert result.error == "a query is 100,000 characters long; the limit is 500 characters"
    assert backend.queries == []


def test_it_refuses_an_empty_query_and_a_query_that_is_not_text() -> None:
    tool = SearchTool(ListSearchBackend([ADA]))

    assert tool.run({"query": "   "}).error == "a query is empty"
    assert tool.run({"query": [1, 2]}).error == (
        "'query' must be a string or a non-empty list of strings"
    )
    assert tool.run({}).error == "'query' must be a string or a non-empty list of strings"


def test_a_crashing_backend_becomes_an_error_result() -> None:
    result = SearchTool(CrashingBackend()).run({"query": ["ada"]})

    assert not result.ok
    assert result.text == "[search] Error: the search backend failed (RuntimeError)"


def test_long_results_are_cut_to_the_output_limit_with_a_marker() -> None:
    pages = [ADA] * 50

    result = SearchTool(ListSearchBackend(pages), k=50, output_limit=1_000)("lovelace")

    assert len(result.text) <= 1_000
    assert result.text.startswith("A search for 'lovelace' found 50 results:")
    assert result.text.endswith("\n[... output truncated: 7,297 characters, showing the first 934]")
