"""`search(query: [str])` and `google_scholar(query: [str])`: each query is run against its
backend and the results are written as QUEST's search tool writes them, queries separated by
`=======`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from quest.protocol.calls import string_list
from quest.protocol.results import MAX_TOOL_OUTPUT, ToolError, ToolResult, failure, success
from quest.tools.protocols import Hit, SearchBackend

MAX_QUERIES = 5
MAX_QUERY_CHARS = 500
QUERY_SEPARATOR = "\n=======\n"


@dataclass(frozen=True)
class ResultStyle:
    """The wording QUEST uses around one query's results."""

    lead: str
    heading: str


WEB = ResultStyle(lead="A search for", heading="## Web Results")
SCHOLAR = ResultStyle(lead="A Google scholar search for", heading="## Scholar Results")


class SearchTool:
    def __init__(
        self,
        backend: SearchBackend,
        *,
        name: str = "search",
        style: ResultStyle = WEB,
        k: int = 10,
        max_queries: int = MAX_QUERIES,
        max_query_chars: int = MAX_QUERY_CHARS,
        output_limit: int = MAX_TOOL_OUTPUT,
    ) -> None:
        self.backend = backend
        self.name = name
        self.style = style
        self.k = k
        self.max_queries = max_queries
        self.max_query_chars = max_query_chars
        self.output_limit = output_limit

    def __call__(self, query: str | Sequence[str]) -> ToolResult:
        return self.run({"query": query if isinstance(query, str) else list(query)})

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        try:
            queries = self._queries(arguments)
            text = QUERY_SEPARATOR.join(self._answer(query) for query in queries)
        except ToolError as error:
            return failure(self.name, str(error), self.output_limit)
        except Exception as error:  # a broken index must not end the agent's run
            message = f"the search backend failed ({type(error).__name__})"
            return failure(self.name, message, self.output_limit)
        return success(text, self.output_limit)

    def _queries(self, arguments: Mapping[str, object]) -> list[str]:
        queries = [query.strip() for query in string_list(arguments, "query")]
        if len(queries) > self.max_queries:
            raise ToolError(
                f"{len(queries)} queries were sent; at most {self.max_queries} are allowed"
            )
        for query in queries:
            if not query:
                raise ToolError("a query is empty")
            if len(query) > self.max_query_chars:
                raise ToolError(
                    f"a query is {len(query):,} characters long; "
                    f"the limit is {self.max_query_chars} characters"
                )
        return queries

    def _answer(self, query: str) -> str:
        hits = sorted(self.backend.search(query, self.k), key=lambda hit: hit.rank)[: self.k]
        if not hits:
            return f"No results found for '{query}'. Try with a more general query."
        listing = "\n\n".join(format_hit(position, hit) for position, hit in enumerate(hits, 1))
        return (
            f"{self.style.lead} '{query}' found {len(hits)} results:\n\n"
            f"{self.style.heading}\n{listing}"
        )


def format_hit(position: int, hit: Hit) -> str:
    title = " ".join(hit.title.split()) or hit.url
    snippet = " ".join(hit.snippet.split())
    line = f"{position}. [{title}]({hit.url})"
    return f"{line}\n{snippet}" if snippet else line
