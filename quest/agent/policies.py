"""Who writes the assistant turns: the `Policy` protocol and the LLM policy. The scripted policy
lives in quest.agent.scripted; the loop treats both the same way, as text in the protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from quest.llm.types import LLMClient, Message

STOP = ("</tool_call>", "</answer>")
MAX_TURN_TOKENS = 10_240  # QUEST-SPEC §5


@dataclass(frozen=True)
class PolicyTurn:
    text: str
    # What the backend counted; None when the policy has no tokenizer (the loop then uses its
    # own estimate).
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class Policy(Protocol):
    name: str

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        """The next assistant turn for the conversation so far. May raise (an LLMError, say);
        the loop then ends the run with a partial report."""
        ...


class LLMPolicy:
    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        *,
        max_turn_tokens: int = MAX_TURN_TOKENS,
        temperature: float | None = None,
    ) -> None:
        self.client = client
        self.max_turn_tokens = max_turn_tokens
        self.temperature = temperature

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        completion = self.client.complete(
            messages,
            max_tokens=self.max_turn_tokens,
            stop=list(STOP),
            temperature=self.temperature,
        )
        text = completion.text
        if completion.finish_reason != "length":
            text = close_stopped_tag(text)
        return PolicyTurn(text, completion.prompt_tokens, completion.completion_tokens)


def close_stopped_tag(text: str) -> str:
    """`text` with the closing tag of its last open block put back: OpenAI-compatible servers
    cut a stop sequence out of the reply, others keep it, so both spellings come out the same.
    A reply cut by the token limit is left alone; the protocol reports it as unclosed."""
    stripped = text.rstrip()
    for opener, closer in (("<tool_call>", "</tool_call>"), ("<answer>", "</answer>")):
        opened = stripped.rfind(opener)
        if opened >= 0 and stripped.find(closer, opened) < 0 and _last_open(stripped) == opener:
            return f"{stripped}{closer}"
    return text


def _last_open(text: str) -> str:
    positions = {tag: text.rfind(tag) for tag in ("<tool_call>", "<answer>")}
    return max(positions, key=lambda tag: positions[tag])
