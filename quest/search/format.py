"""Results as QUEST's search tool shows them to the agent.

    A search for 'eiffel tower height' found 2 results:

    ## Web Results
    1. [Eiffel Tower](https://en.wikipedia.org/wiki/Eiffel_Tower)
    The Eiffel Tower is a wrought-iron lattice tower ...

Several queries in one call are joined by a line of `=======`, as QUEST's tool joins them.
"""

from __future__ import annotations

from collections.abc import Sequence

from quest.search.searcher import Result

QUERY_SEPARATOR = "\n=======\n"


def format_results(query: str, results: Sequence[Result]) -> str:
    if not results:
        return f"No results found for '{query}'. Try with a more general query."
    entries = [f"{r.rank}. [{r.title}]({r.url})\n{r.snippet}" for r in results]
    header = f"A search for '{query}' found {len(results)} results:\n\n## Web Results\n"
    return header + "\n\n".join(entries)


def format_searches(searches: Sequence[tuple[str, Sequence[Result]]]) -> str:
    return QUERY_SEPARATOR.join(format_results(query, results) for query, results in searches)
