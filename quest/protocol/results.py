"""What every tool returns (its output cut to the protocol's 12,000 characters), and the one
error type a tool raises inside itself."""

from __future__ import annotations

from dataclasses import dataclass

MAX_TOOL_OUTPUT = 12_000  # QUEST-SPEC §5: tool output is cut to 12,000 characters


class ToolError(Exception):
    """A refusal or failure the agent should read: its message becomes the tool's answer."""


@dataclass(frozen=True)
class ToolResult:
    """`text` is what the agent reads; `details` carries structured records for callers that
    want them (visit: one `{url, goal, rational, evidence, summary}` or `{url, error}` per URL)."""

    text: str
    ok: bool
    error: str | None = None
    details: tuple[dict[str, str], ...] = ()


def truncate(text: str, limit: int = MAX_TOOL_OUTPUT) -> str:
    """`text` cut to at most `limit` characters, ending in a marker the agent can see."""
    if len(text) <= limit:
        return text
    marker = f"\n[... output truncated: {len(text):,} characters, showing the first {{kept:,}}]"
    kept = max(limit - len(marker.format(kept=limit)), 0)
    return text[:kept] + marker.format(kept=kept)


def success(
    text: str, limit: int = MAX_TOOL_OUTPUT, details: tuple[dict[str, str], ...] = ()
) -> ToolResult:
    return ToolResult(text=truncate(text, limit), ok=True, details=details)


def failure(
    tool: str,
    message: str,
    limit: int = MAX_TOOL_OUTPUT,
    details: tuple[dict[str, str], ...] = (),
) -> ToolResult:
    text = truncate(f"[{tool}] Error: {message}", limit)
    return ToolResult(text=text, ok=False, error=message.split("\n", 1)[0], details=details)
