"""`visit(url: [str], goal: str)`: each page becomes goal-directed `{rational, evidence,
summary}`, written as QUEST's visit tool writes it. A refused or unreadable URL gets its own
plain message; it never turns into a page whose text is "None"."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from quest.protocol.calls import required_string, string_list
from quest.protocol.results import MAX_TOOL_OUTPUT, ToolError, ToolResult, failure, success
from quest.tools.passages import Extract, extract
from quest.tools.protocols import ChatClient, Page, PageSource
from quest.tools.summariser import LlmSummariser
from quest.tools.urls import check_url

MAX_URLS = 5
MAX_GOAL_CHARS = 1_000
URL_SEPARATOR = "\n=======\n"

Summariser = Callable[[Page, str], Extract]


@dataclass(frozen=True)
class Visit:
    """One URL's outcome: `found` when a page was read, else `problem`."""

    url: str
    goal: str
    found: Extract | None = None
    problem: str = ""

    def text(self) -> str:
        if self.found is None:
            return self.problem
        return (
            f"The useful information in {self.url} for user goal {self.goal} as follows: \n\n"
            f"Evidence in page: \n{self.found.evidence}\n\n"
            f"Summary: \n{self.found.summary}\n\n"
        )

    def record(self) -> dict[str, str]:
        if self.found is None:
            return {"url": self.url, "goal": self.goal, "error": self.problem}
        return {"url": self.url, "goal": self.goal, **self.found.as_dict()}


class VisitTool:
    name = "visit"

    def __init__(
        self,
        pages: PageSource,
        *,
        chat: ChatClient | None = None,
        max_urls: int = MAX_URLS,
        output_limit: int = MAX_TOOL_OUTPUT,
    ) -> None:
        self.pages = pages
        self.summarise: Summariser = LlmSummariser(chat) if chat is not None else extract
        self.max_urls = max_urls
        self.output_limit = output_limit

    def __call__(self, url: str | Sequence[str], goal: str) -> ToolResult:
        return self.run({"url": url if isinstance(url, str) else list(url), "goal": goal})

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        try:
            urls, goal = self._arguments(arguments)
        except ToolError as error:
            return failure(self.name, str(error), self.output_limit)
        visits = [self.read(url, goal) for url in urls]
        text = URL_SEPARATOR.join(visit.text() for visit in visits)
        details = tuple(visit.record() for visit in visits)
        if any(visit.found for visit in visits):
            return success(text, self.output_limit, details)
        return failure(self.name, f"no page could be read\n\n{text}", self.output_limit, details)

    def read(self, url: str, goal: str) -> Visit:
        shown = " ".join(url.split())[:200]
        reason = "no such page, or it has no text"
        try:
            page = self.pages.get(check_url(url))
        except ToolError as error:
            return Visit(shown, goal, problem=f"The page was not visited: {error} ({shown}).")
        except Exception as error:  # one failing source must not lose the other URLs
            page, reason = None, f"the page source failed with {type(error).__name__}"
        if page is None or not page.text.strip():
            problem = f"The page could not be read: {shown} ({reason})."
            return Visit(shown, goal, problem=problem)
        return Visit(page.url or shown, goal, found=self.summarise(page, goal))

    def _arguments(self, arguments: Mapping[str, object]) -> tuple[list[str], str]:
        urls = string_list(arguments, "url")
        if len(urls) > self.max_urls:
            raise ToolError(f"{len(urls)} URLs were sent; at most {self.max_urls} are allowed")
        goal = " ".join(required_string(arguments, "goal").split())
        if len(goal) > MAX_GOAL_CHARS:
            raise ToolError(
                f"the goal is {len(goal):,} characters long; the limit is {MAX_GOAL_CHARS:,}"
            )
        return urls, goal
