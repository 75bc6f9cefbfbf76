"""Every text the loop puts in front of a policy: the system prompt, the user prompt (question,
plus the research state after a restart), tool responses, reminders and final-answer requests.

The loop's own interjections start with fixed markers so a policy (the scripted one) can tell
them from tool responses without any side channel.
"""

from __future__ import annotations

from collections.abc import Sequence

from quest.agent.state import BLOCK_TITLE, DRState, parse_state, render_state_block
from quest.llm.types import Message

REMINDER_MARKER = "[reminder]"
FINAL_MARKER = "[final answer required]"
TOOL_OPEN = "<tool_response>"
TOOL_CLOSE = "</tool_response>"

TOOL_HELP = {
    "search": 'search: web search. {"query": ["query one", "query two"]}',
    "google_scholar": 'google_scholar: scholarly search. {"query": ["query"]}',
    "visit": (
        "visit: read pages and pull out what serves the goal. "
        '{"url": ["https://..."], "goal": "what to find on the pages"}'
    ),
    "PythonInterpreter": (
        "PythonInterpreter: run Python; put the code after the JSON inside <code></code>: "
        '<tool_call>{"name": "PythonInterpreter", "arguments": {}}<code>print(2 + 2)</code>'
        "</tool_call>"
    ),
}

SYSTEM_TEMPLATE = """You are a deep-research assistant. Answer the user's question by searching \
for and reading sources, then write a final answer that cites them.

Each turn, think briefly inside <think></think>, then do exactly one of:
- call one tool: <tool_call>{{"name": "<tool name>", "arguments": {{...}}}}</tool_call>
- give the final answer: <answer>...</answer>

Tools:
{tools}

Tool results come back inside <tool_response></tool_response>.

The final answer starts with a short, direct answer to the question, then the findings, each \
fact followed by the number of its source in brackets, like [1], and ends with a numbered list \
of the source URLs. When the question asks for an exact answer, the last line before the \
sources is `Exact answer: <the answer>` (several items separated by semicolons), written once, \
with nothing after it but the sources.

If the question is followed by a {block}, it replaces the earlier conversation: reuse its \
trusted facts, treat its untrusted facts as refuted, follow each uncertain item's need, do not \
repeat the searches and visits it lists, and leave uncertain information out of the final \
answer."""


def system_prompt(tool_names: Sequence[str]) -> str:
    tools = "\n".join(f"- {TOOL_HELP.get(name, name)}" for name in tool_names)
    return SYSTEM_TEMPLATE.format(tools=tools, block=BLOCK_TITLE)


def user_prompt(question: str, state: DRState | None = None) -> str:
    if state is None:
        return question
    return f"{question}\n\n{render_state_block(state)}"


def split_user_prompt(text: str) -> tuple[str, DRState | None]:
    """The question and the research state of a user prompt written by `user_prompt`. A state
    block that does not parse is ignored rather than trusted."""
    question, marker, block = text.partition(f"\n\n{BLOCK_TITLE}\n")
    if not marker:
        return text.strip(), None
    try:
        return question.strip(), parse_state(block)
    except ValueError:
        return question.strip(), None


def tool_response(text: str) -> str:
    return f"{TOOL_OPEN}\n{text}\n{TOOL_CLOSE}"


def unwrap_tool_response(content: str) -> str | None:
    """The tool's text, or None when the message is not a tool response."""
    if not content.startswith(TOOL_OPEN):
        return None
    body = content[len(TOOL_OPEN) :]
    return body.removesuffix(TOOL_CLOSE).strip("\n")


def reminder(problem: str) -> str:
    return (
        f"{REMINDER_MARKER} Your last turn was not valid: {problem}. A turn is optional "
        "<think>...</think> followed by exactly one "
        '<tool_call>{"name": ..., "arguments": {...}}</tool_call> or one final '
        "<answer>...</answer>."
    )


def final_answer_request(reason: str) -> str:
    return (
        f"{FINAL_MARKER} {reason} Stop researching and give your final answer now, inside "
        "<answer></answer>: a short direct answer first, then the findings with [n] citations "
        "and a numbered list of the source URLs. Leave out anything you could not confirm."
    )


def message(role: str, content: str) -> Message:
    return {"role": role, "content": content}
