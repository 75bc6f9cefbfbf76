"""What a live run does around each policy turn: keep the chosen pace, tell viewers that the model
is generating (and how many tokens it has written), and notice a stop quickly.

The agent loop knows nothing of this: the runner wraps the policy in `TurnWatch.policy`, and
hands `TurnWatch.client_watch()` to an HTTP client so a generation is streamed and given up when
the session is stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from apps.live.broadcast import progress_send
from apps.live.models import Session
from quest.llm.streaming import Watch

# How often the database is asked whether the session was stopped, and how often a generation's
# token count is sent: a model may stream a hundred chunks a second.
STOP_CHECK_S = 0.25
TOKENS_EVERY_S = 0.5
# A paced wait looks at the stop flag this often.
WAIT_SLICE_S = 0.1


class StopFlag:
    """Whether the session was asked to stop, read at most every `every` seconds; once stopped,
    stopped for good."""

    def __init__(
        self, session_id: int, *, every: float = STOP_CHECK_S, clock: Callable[[], float]
    ) -> None:
        self.session_id, self.every, self.clock = session_id, every, clock
        self._stopped, self._checked = False, -every

    def __call__(self) -> bool:
        now = self.clock()
        if not self._stopped and now - self._checked >= self.every:
            self._checked = now
            self._stopped = Session.objects.filter(pk=self.session_id, stop_requested=True).exists()
        return self._stopped


class TurnWatch:
    def __init__(
        self,
        session: Session,
        *,
        pace_s: float,
        announce: bool,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.session_id, self.public_id = session.pk, session.public_id
        self.pace_s, self.announce = pace_s, announce
        self.clock, self.sleep = clock, sleep
        self.stopped = StopFlag(session.pk, clock=clock)
        self.turn = self.total = self.current = 0
        self.turn_started = self.last_start = self.last_sent = 0.0
        self.first = True

    def policy(self, policy: Any) -> _WatchedPolicy:
        return _WatchedPolicy(policy, self)

    def client_watch(self) -> Any:
        return Watch(on_tokens=self.tokens, cancelled=self.stopped)

    def before_turn(self) -> None:
        self._keep_pace()
        self.last_start = self.clock()
        if self.announce:
            self.turn += 1
            self.turn_started, self.current = self.last_start, 0
            self._send("generating")

    def loading(self, model: str, *, done: bool) -> None:
        """The model is being loaded into this worker (minutes for a vLLM engine, half a
        minute for SmolLM2 on a CPU), or has just been."""
        if self.announce:
            self._send("loaded" if done else "loading", model=model)

    def after_turn(self, completion_tokens: int | None) -> None:
        if not self.announce:
            return
        self.current = completion_tokens if completion_tokens is not None else self.current
        self.total += self.current
        self._send("done")

    def tokens(self, count: int) -> None:
        """The current generation has written `count` tokens (from a streaming client)."""
        self.current = count
        if self.announce and self.clock() - self.last_sent >= TOKENS_EVERY_S:
            self._send("generating")

    def _keep_pace(self) -> None:
        """Wait until `pace_s` after the last turn began; a stop ends the wait."""
        if self.first:
            self.first = False
            return
        until = self.last_start + self.pace_s
        while not self.stopped():
            left = until - self.clock()
            if left <= 0:
                return
            self.sleep(min(WAIT_SLICE_S, left))

    def _send(self, phase: str, **extra: Any) -> None:
        now = self.clock()
        self.last_sent = now
        generating = self.current if phase == "generating" else 0
        payload = {
            "phase": phase,
            "turn": self.turn,
            "tokens": self.current,
            "total_tokens": self.total + generating,
            "turn_s": round(now - self.turn_started, 1),
            **extra,
        }
        progress_send(session_id=self.session_id, public_id=self.public_id, payload=payload)


class _WatchedPolicy:
    """A policy with the watch around each of its turns; the loop sees the same protocol."""

    def __init__(self, policy: Any, watch: TurnWatch) -> None:
        self.inner, self.watch = policy, watch
        self.name = getattr(policy, "name", type(policy).__name__)

    def next_turn(self, messages: Sequence[Any]) -> Any:
        self.watch.before_turn()
        out = self.inner.next_turn(messages)
        self.watch.after_turn(out.completion_tokens)
        return out
