"""Watching a chat completion while it is generated, and giving it up on request.

`Watch` is what a caller hands `HTTPChat` to see a long generation: `on_tokens` hears how many
tokens the current request has produced so far, and `cancelled` is asked every `poll_s` seconds
whether to give the request up (then `complete` raises `Cancelled` within about `poll_s`, also
when the server sends nothing for minutes). The request runs on a helper thread; the callbacks
are always called on the caller's thread, so they may use its database connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from quest.llm.types import LLMError

T = TypeVar("T")


class Cancelled(LLMError):
    """The caller gave the request up (a person stopped the run) before it was answered."""


@dataclass(frozen=True)
class Watch:
    on_tokens: Callable[[int], None] | None = None
    cancelled: Callable[[], bool] | None = None
    poll_s: float = 0.2


@dataclass
class Progress:
    """What the helper thread has seen so far; `abort` tells it to hang up."""

    tokens: int = 0
    abort: threading.Event = field(default_factory=threading.Event)


def watched(watch: Watch, work: Callable[[Progress], T]) -> T:
    """`work(progress)` on a helper thread, polled from this one until it ends or is cancelled."""
    progress = Progress()
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = work(progress)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="llm-request", daemon=True).start()
    reported = 0
    while not done.wait(watch.poll_s):
        if watch.on_tokens is not None and progress.tokens != reported:
            reported = progress.tokens
            watch.on_tokens(reported)
        if watch.cancelled is not None and watch.cancelled():
            # The helper hangs up at its next chunk; a silent server holds it until its timeout.
            progress.abort.set()
            raise Cancelled("the request was given up: the run was stopped")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
