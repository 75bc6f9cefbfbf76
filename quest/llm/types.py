"""The one chat-completion interface every LLM backend implements (HTTP, transformers, vLLM).

Messages are plain `{"role": ..., "content": ...}` mappings so that the agent, the rubric judge and
the visit tool can share a backend; `chat()` keeps the older `ChatClient` protocols satisfied.
`ChatBackend` is the base the three backends share: the call's settings, falling back to the
client's own, and `chat()`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

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


@runtime_checkable
class Windowed(Protocol):
    """A client that knows how many tokens its model reads (prompt and reply together)."""

    def context_window(self) -> int | None:
        """The model's context window in tokens; None when it cannot be learned."""
        ...

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """How many tokens `messages` make as a prompt (exact in process, estimated over HTTP)."""
        ...


def context_window(client: object) -> int | None:
    """The context window of `client`'s model, when the client can tell it."""
    return client.context_window() if isinstance(client, Windowed) else None


@dataclass(frozen=True)
class Settings:
    """One request's settings: the caller's, else the client's defaults."""

    max_tokens: int | None
    stop: tuple[str, ...]
    temperature: float | None


class ChatBackend(ABC):
    """What the backends share; a subclass answers `_complete`."""

    max_tokens: int | None
    temperature: float | None

    def chat(self, messages: Sequence[Message]) -> str:
        return self.complete(messages).text

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        temperature: float | None = None,
    ) -> Completion:
        settings = Settings(
            self.max_tokens if max_tokens is None else max_tokens,
            tuple(s for s in stop or () if s),
            self.temperature if temperature is None else temperature,
        )
        return self._complete(messages, settings)

    @abstractmethod
    def _complete(self, messages: Sequence[Message], settings: Settings) -> Completion:
        """One completion with the settings resolved: what each backend does its own way."""
