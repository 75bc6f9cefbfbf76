"""The one chat-completion interface every LLM backend implements (HTTP, transformers, vLLM).

Messages are plain `{"role": ..., "content": ...}` mappings so that the agent, the rubric judge and
the visit tool can share a backend; `chat()` keeps the older `ChatClient` protocols satisfied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

Message = Mapping[str, str]


class LLMError(Exception):
    """No completion could be had: every endpoint failed, or the backend refused the request."""


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str
    # "stop" (natural end or a stop sequence), "length" (max_tokens reached) or the backend's word.
    finish_reason: str
    # Which backend answered: an endpoint URL, "transformers:<path>" or "vllm:<model>".
    backend: str = ""


class LLMClient(Protocol):
    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """One assistant turn for `messages`; raises LLMError when none can be had."""
        ...

    def chat(self, messages: Sequence[Message]) -> str:
        """`complete(messages).text`, for callers that only want the text."""
        ...
