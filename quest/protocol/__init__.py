"""The QUEST text protocol (QUEST-SPEC §5), the contract between a model and the rest of the
engine: what a turn is (quest.protocol.turns), what a tool call is (quest.protocol.calls) and
what a tool answers (quest.protocol.results).

It sits at the bottom of the engine, beside quest.text and quest.llm, because the agent loop
acts on it, the rubric reward reads answers by it and training cuts sessions by it: each of
them reads a response the same way. Standard library only.
"""

from __future__ import annotations

from quest.protocol.calls import ToolCall, code_from, parse_tool_call
from quest.protocol.results import MAX_TOOL_OUTPUT, ToolError, ToolResult, truncate
from quest.protocol.turns import Turn, answer_text, parse_turn, split_think

__all__ = [
    "MAX_TOOL_OUTPUT",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "Turn",
    "answer_text",
    "code_from",
    "parse_tool_call",
    "parse_turn",
    "split_think",
    "truncate",
]
