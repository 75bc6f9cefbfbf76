"""Fitting a turn into the model's context window.

A model reads at most its context window, prompt and reply together: SmolLM2-135M 8,192 tokens,
a vLLM server whatever its `--max-model-len` says. A turn asks for at most the window minus the
prompt; when that leaves fewer than MIN_REPLY_TOKENS, the window is full and `ContextFull` says
so, instead of a request the server would refuse.

A server that refuses a length anyway states its limit; `stated_limit` reads it from vLLM's
messages, from OpenAI's and from `quest serve-llm`'s (`refusal`), so that the client can retry
once within it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import overload

from quest.llm.types import LLMError

# Below this a turn cannot hold a tool call; the window is taken as full.
MIN_REPLY_TOKENS = 64

_WINDOW = (
    # vLLM and OpenAI: "This model's maximum context length is 8192 tokens. ..."
    re.compile(r"maximum context length is (\d+) tokens"),
    # quest serve-llm: "... but SmolLM2-135M-Instruct reads at most 8192 tokens"
    re.compile(r"reads at most (\d+) tokens"),
)
_PROMPT = (
    # vLLM: "However, you requested 10663 tokens (423 in the messages, 10240 in the completion)"
    re.compile(r"\((\d+) in the messages"),
    # newer vLLM: "... and your request has 423 input tokens (10240 > 8192 - 423)"
    re.compile(r"request has (\d+) input tokens"),
    # OpenAI: "However, your messages resulted in 9000 tokens."
    re.compile(r"messages resulted in (\d+) tokens"),
    # quest serve-llm: "the prompt is 423 tokens and max_tokens is 10240, ..."
    re.compile(r"the prompt is (\d+) tokens"),
)


class ContextFull(LLMError):
    """The prompt leaves too little of the model's context window for a reply."""

    def __init__(self, model: str, window: int, prompt_tokens: int, *, estimated: bool) -> None:
        about = "about " if estimated else ""
        super().__init__(
            f"the context window of {model} ({window:,} tokens) is full: the prompt is "
            f"{about}{prompt_tokens:,} tokens, which leaves fewer than {MIN_REPLY_TOKENS} "
            "for a reply"
        )
        self.model, self.window, self.prompt_tokens = model, window, prompt_tokens


@dataclass(frozen=True)
class StatedLimit:
    window: int
    # The prompt's size, where the message gives it.
    prompt_tokens: int | None


@overload
def fit_reply(
    asked: int, *, window: int | None, prompt_tokens: int, model: str, estimated: bool = ...
) -> int: ...


@overload
def fit_reply(
    asked: int | None,
    *,
    window: int | None,
    prompt_tokens: int,
    model: str,
    estimated: bool = ...,
) -> int | None: ...


def fit_reply(
    asked: int | None,
    *,
    window: int | None,
    prompt_tokens: int,
    model: str,
    estimated: bool = False,
) -> int | None:
    """`asked` (None: the server's default) cut to what `window` leaves after the prompt;
    ContextFull when that is under MIN_REPLY_TOKENS (or under `asked`, when less is asked)."""
    if window is None:
        return asked
    room = window - prompt_tokens
    if room < min(MIN_REPLY_TOKENS, asked or MIN_REPLY_TOKENS):
        raise ContextFull(model, window, prompt_tokens, estimated=estimated)
    return room if asked is None else min(asked, room)


def stated_limit(message: str) -> StatedLimit | None:
    """The context window (and the prompt's size) that a server's refusal states; None when
    the message states no window."""
    window = _first_number(_WINDOW, message)
    if window is None:
        return None
    return StatedLimit(window, _first_number(_PROMPT, message))


def refusal(model: str, *, window: int, prompt_tokens: int, max_tokens: int) -> str:
    """What `quest serve-llm` says to a request longer than the window."""
    return (
        f"the prompt is {prompt_tokens} tokens and max_tokens is {max_tokens}, "
        f"but {model} reads at most {window} tokens"
    )


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return None
