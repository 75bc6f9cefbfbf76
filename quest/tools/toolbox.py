"""The agent's tools by name. A tool call in QUEST's shape comes in; a ToolResult always comes
out, whatever the call or the backend did (an unknown tool, bad arguments or a crashing
backend is an error result the agent can read, never an exception)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from quest.protocol.calls import parse_tool_call
from quest.protocol.results import ToolError, ToolResult, failure
from quest.tools.protocols import ChatClient, PageSource, SearchBackend
from quest.tools.python_tool import PythonInterpreter
from quest.tools.search import SCHOLAR, SearchTool
from quest.tools.visit import VisitTool


class Tool(Protocol):
    name: str

    def run(self, arguments: Mapping[str, object]) -> ToolResult: ...


class Toolbox:
    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self.tools = dict(tools)

    @classmethod
    def build(
        cls,
        *,
        search: SearchBackend,
        pages: PageSource,
        scholar: SearchBackend | None = None,
        chat: ChatClient | None = None,
        python: PythonInterpreter | None = None,
    ) -> Toolbox:
        """QUEST's four tools; `google_scholar` only when a scholar backend is given."""
        tools: list[Tool] = [SearchTool(search), VisitTool(pages, chat=chat)]
        if scholar is not None:
            tools.append(SearchTool(scholar, name="google_scholar", style=SCHOLAR))
        tools.append(python or PythonInterpreter())
        return cls({tool.name: tool for tool in tools})

    def names(self) -> tuple[str, ...]:
        return tuple(self.tools)

    def call(self, name: str, arguments: Mapping[str, object]) -> ToolResult:
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(self.tools)
            return failure("tool_call", f"there is no tool named '{name:.100}'; tools: {known}")
        try:
            return tool.run(arguments)
        except ToolError as error:
            return failure(name, str(error))
        except Exception as error:  # a backend bug must not end the agent's run
            return failure(name, f"the tool failed unexpectedly ({type(error).__name__})")

    def call_json(self, body: str | Mapping[str, object]) -> ToolResult:
        """Run the call written between `<tool_call>` tags (or its decoded JSON)."""
        try:
            call = parse_tool_call(body)
        except ToolError as error:
            return failure("tool_call", str(error))
        return self.call(call.name, call.arguments)
