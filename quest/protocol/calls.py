"""QUEST tool-call shapes: `{"name": ..., "arguments": {...}}`, where a query or url may be one
string or a list of strings, and Python code may follow the JSON inside `<code>…</code>`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from quest.protocol.results import ToolError

MAX_CALL_CHARS = 200_000
_CODE = re.compile(r"<code>(.*?)</code>", re.DOTALL)
_FENCE = re.compile(r"^```[a-zA-Z0-9_+-]*\n(.*?)\n?```$", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Mapping[str, object] = field(default_factory=dict)


def string_list(arguments: Mapping[str, object], key: str) -> list[str]:
    """`arguments[key]` as a list of strings; a lone string (or a JSON list written as a
    string, which models sometimes send) is accepted."""
    value = arguments.get(key)
    if isinstance(value, str) and value.lstrip().startswith("["):
        value = _json_string_list(value) or value
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return list(value)
    raise ToolError(f"'{key}' must be a string or a non-empty list of strings")


def required_string(arguments: Mapping[str, object], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"'{key}' must be a non-empty string")
    return value


def code_from(text: str) -> str:
    """The code inside `<code>…</code>` when present, else the text itself, without a markdown
    fence around it."""
    match = _CODE.search(text)
    code = match.group(1) if match else text
    fenced = _FENCE.match(code.strip())
    return fenced.group(1) if fenced else code.strip("\n")


def parse_tool_call(body: str | Mapping[str, object]) -> ToolCall:
    """A tool call from the text between `<tool_call>` tags, or from its decoded JSON."""
    if isinstance(body, str):
        body = _decode(body)
    name = body.get("name")
    arguments = body.get("arguments", {})
    if isinstance(arguments, str):
        arguments = _decode_arguments(arguments)
    if not isinstance(name, str) or not name:
        raise ToolError('a tool call needs a "name" string')
    if not isinstance(arguments, Mapping):
        raise ToolError('"arguments" must be a JSON object')
    return ToolCall(name=name, arguments=dict(arguments))


def _decode(text: str) -> Mapping[str, object]:
    if len(text) > MAX_CALL_CHARS:
        raise ToolError(f"the tool call is longer than {MAX_CALL_CHARS:,} characters")
    code = _CODE.search(text)
    head = text[: code.start()] if code else text
    try:
        decoded = json.loads(head)
    except json.JSONDecodeError as error:
        raise ToolError(f"the tool call is not valid JSON ({error.msg})") from None
    if not isinstance(decoded, dict):
        raise ToolError("the tool call must be a JSON object")
    if code:
        arguments = decoded.get("arguments")
        merged = dict(arguments) if isinstance(arguments, dict) else {}
        decoded["arguments"] = {**merged, "code": code.group(1)}
    return decoded


def _decode_arguments(text: str) -> object:
    try:
        return json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        raise ToolError('"arguments" is a string that is not a JSON object') from None


def _json_string_list(text: str) -> list[str] | None:
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(decoded, list) and decoded and all(isinstance(item, str) for item in decoded):
        return decoded
    return None
