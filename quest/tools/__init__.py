"""The agent's research tools (QUEST-SPEC §5): search, google_scholar, visit and
PythonInterpreter, reaching the corpus, the search index and an LLM only through the Protocols
in quest.tools.protocols."""

from __future__ import annotations

from quest.protocol.calls import ToolCall, code_from, parse_tool_call
from quest.protocol.results import MAX_TOOL_OUTPUT, ToolError, ToolResult, truncate
from quest.tools.live import JinaReader, LiveBackends, LiveHttp, SerperSearch, live_backends
from quest.tools.netguard import PublicAddressGuard, UnsafeUrlError, UrlGuard, blocked_reason
from quest.tools.passages import Extract, extract
from quest.tools.protocols import (
    ChatClient,
    Hit,
    Page,
    PageSource,
    SearchBackend,
    SearchHit,
    WebPage,
)
from quest.tools.python_tool import Limits, PythonInterpreter
from quest.tools.search import SCHOLAR, WEB, SearchTool
from quest.tools.summariser import LlmSummariser
from quest.tools.toolbox import Tool, Toolbox
from quest.tools.urls import check_url
from quest.tools.visit import Visit, VisitTool

__all__ = [
    "MAX_TOOL_OUTPUT",
    "SCHOLAR",
    "WEB",
    "ChatClient",
    "Extract",
    "Hit",
    "JinaReader",
    "Limits",
    "LiveBackends",
    "LiveHttp",
    "LlmSummariser",
    "Page",
    "PageSource",
    "PublicAddressGuard",
    "PythonInterpreter",
    "SearchBackend",
    "SearchHit",
    "SearchTool",
    "SerperSearch",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "Toolbox",
    "UnsafeUrlError",
    "UrlGuard",
    "Visit",
    "VisitTool",
    "WebPage",
    "blocked_reason",
    "check_url",
    "code_from",
    "extract",
    "live_backends",
    "parse_tool_call",
    "truncate",
]
