"""Condensers (QUEST-SPEC §5.1): the events of a session plus the previous state become the
next dr_state.

`RuleCondenser` is deterministic and needs no model. `LLMCondenser` asks a model for the strict
JSON, retries once quoting what was wrong, and otherwise recovers with the rule condenser's
merge, marking the state as recovered; it never raises and never loses a trusted fact. For a model
with a small context window, it shortens each event of its prompt until the prompt leaves room
for two replies (the second after a correction) of a quarter of the window, or of its
max_tokens if less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from quest.agent.prompts import message, unwrap_tool_response
from quest.agent.research.notebook import Notebook
from quest.agent.state import DRState, StateError, parse_state
from quest.llm.types import LLMClient, LLMError, Message, Windowed, context_window
from quest.llm.window import MIN_REPLY_TOKENS

MAX_EVENT_CHARS = 6_000  # per event in the condenser prompt; tool outputs are the long ones
MIN_EVENT_CHARS = 400  # shortened no further to fit a small window: the model gets a try
MAX_STATE_TOKENS = 4_096

CONDENSER_SYSTEM = """You condense a research agent's history into a strict JSON research state.
Reply with one JSON object and nothing else, in exactly this shape:
{"version": "dr_state",
 "search_queries": [{"q": "...", "intent": "..."}],
 "visited_sources": [{"url": "...", "note": "..."}],
 "information_state": {
   "trusted": [{"id": "...", "claim": "...", "sources": ["url"], "reason": "..."}],
   "untrusted": [{"id": "...", "claim": "...", "sources": ["url"], "reason": "..."}],
   "uncertain": [{"id": "...", "claim": "...", "sources": ["url"], "reason": "...",
                  "need": "visit <url> | search <query>"}]}}
Rules: keep every search and visit of the previous state and add the new ones; keep every
trusted fact of the previous state unless the new events refute it (then move it to
untrusted); trusted facts are confirmed by the sources; untrusted ones are contradicted;
uncertain ones say in "need" which visit or search would settle them. Ids are unique strings.
No other keys."""


class Condenser(Protocol):
    def condense(
        self, question: str, messages: Sequence[Message], previous: DRState | None
    ) -> DRState:
        """The state after `messages`, the session's events (the turns after its prompt)."""
        ...


class RuleCondenser:
    """Collects queries, visited URLs and the evidence in tool results into the schema."""

    def condense(
        self, question: str, messages: Sequence[Message], previous: DRState | None
    ) -> DRState:
        notebook = Notebook(question, previous)
        for item in messages:
            notebook.absorb(item)
        return notebook.to_state()


class LLMCondenser:
    def __init__(
        self,
        client: LLMClient,
        *,
        max_tokens: int = MAX_STATE_TOKENS,
        fallback: Condenser | None = None,
    ) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.fallback = fallback or RuleCondenser()

    def condense(
        self, question: str, messages: Sequence[Message], previous: DRState | None
    ) -> DRState:
        prompt = self._prompt(question, messages, previous)
        problem = ""
        for attempt in range(2):
            state, reply, problem = self._ask(prompt)
            if state is not None:
                return keep_trusted(state, previous)
            if attempt == 0:
                prompt = [*prompt, *_correction(reply, problem)]
        merged = self.fallback.condense(question, messages, previous)
        return replace(keep_trusted(merged, previous), recovery=problem)

    def _prompt(
        self, question: str, messages: Sequence[Message], previous: DRState | None
    ) -> list[Message]:
        """The condenser prompt, its events shortened to fit the model's window."""
        window = context_window(self.client)
        chars = MAX_EVENT_CHARS
        while True:
            text = condenser_prompt(question, messages, previous, event_chars=chars)
            prompt = [message("system", CONDENSER_SYSTEM), message("user", text)]
            if window is None or chars <= MIN_EVENT_CHARS or self._fits(prompt, window):
                return prompt
            chars = max(MIN_EVENT_CHARS, chars // 2)

    def _fits(self, prompt: list[Message], window: int) -> bool:
        """Whether `prompt` leaves room for a reply, and for a second one after a correction."""
        counted = self.client.prompt_tokens(prompt) if isinstance(self.client, Windowed) else 0
        reply = min(self.max_tokens, window // 4) + MIN_REPLY_TOKENS
        return counted + 2 * reply <= window

    def _ask(self, prompt: list[Message]) -> tuple[DRState | None, str, str]:
        """(state, reply text, problem)."""
        try:
            text = self.client.complete(prompt, max_tokens=self.max_tokens, temperature=0.0).text
        except LLMError as error:
            return None, "", f"the condenser model failed: {error}"
        try:
            return parse_state(text), text, ""
        except StateError as error:
            return None, text, f"the reply is not a valid dr_state ({error})"


def _correction(reply: str, problem: str) -> list[Message]:
    correction = (
        f"That reply could not be used: {problem}. Reply again with only the JSON object, "
        "exactly in the shape given, with no other keys."
    )
    return ([message("assistant", reply)] if reply else []) + [message("user", correction)]


def keep_trusted(state: DRState, previous: DRState | None) -> DRState:
    """`state` with every trusted fact of `previous` that it neither keeps nor refutes put
    back: a condenser may move a fact to untrusted, never silently drop it."""
    if previous is None:
        return state
    present = {fact.id for fact in state.facts()} | {fact.claim for fact in state.facts()}
    lost = tuple(f for f in previous.trusted if f.id not in present and f.claim not in present)
    return replace(state, trusted=state.trusted + lost) if lost else state


def condenser_prompt(
    question: str,
    messages: Sequence[Message],
    previous: DRState | None,
    *,
    event_chars: int = MAX_EVENT_CHARS,
) -> str:
    before = previous.dumps() if previous is not None else "none (this is the first condensation)"
    events = "\n\n".join(_event(item, event_chars) for item in messages)
    return (
        f"Question: {question}\n\nPrevious research state:\n{before}\n\n"
        f"Events since then:\n{events}\n\nWrite the new research state."
    )


def _event(item: Message, limit: int) -> str:
    content = item.get("content", "")
    tool = unwrap_tool_response(content) if item.get("role") == "user" else None
    label = "tool response" if tool is not None else item.get("role", "user")
    text = tool if tool is not None else content
    if len(text) > limit:
        text = text[:limit] + " [...]"
    return f"[{label}]\n{text}"
