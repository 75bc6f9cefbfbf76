"""The research loop (QUEST-SPEC §5): policy turn -> tool -> tool response, condensing the
context when it grows past the threshold, until an answer, a budget, a stop or a failure.

Every run ends with an `answer` event and a `finished` event. Context size is tracked
incrementally (each message is counted once, when it is appended), so a step costs the same
however long the history is.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from quest.agent.budgets import ApproxTokens, Budgets, TokenCounter, message_tokens
from quest.agent.condenser import Condenser, RuleCondenser, keep_trusted
from quest.agent.display import (
    DISPLAY_CHARS,
    answer_citations,
    display_arguments,
    result_sources,
)
from quest.agent.events import EventSink, NullSink
from quest.agent.policies import Policy
from quest.agent.prompts import (
    final_answer_request,
    message,
    reminder,
    system_prompt,
    tool_response,
    user_prompt,
)
from quest.agent.research.report import write_report
from quest.agent.state import DRState
from quest.agent.trajectory import Trajectory
from quest.llm.streaming import Cancelled
from quest.llm.types import Message
from quest.llm.window import ContextFull
from quest.protocol.results import truncate
from quest.protocol.turns import Turn, parse_turn
from quest.tools.toolbox import Toolbox

PARTIAL_REASONS = {
    "stopped": "the run was stopped before the research was finished.",
    "forced": "the research budget ran out before a final answer was written.",
    "invalid": "the policy wrote too many invalid turns in a row.",
    "failed": "the policy failed before it could answer.",
}

REPLY_SHOWN = 2_000


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    tool_calls: int
    condensations: int


@dataclass(frozen=True)
class RunResult:
    question: str
    answer: str
    status: str  # answered | forced | stopped | invalid | failed
    forced: bool
    partial: bool
    turns: int
    usage: Usage
    final_state: DRState
    trajectory: Trajectory
    sources: tuple[dict[str, str], ...]  # pages read, {url, title}, in order
    citations: tuple[dict[str, object], ...]
    elapsed_s: float


class _PolicyFailed(Exception):
    pass


def _failure_reason(failure: _PolicyFailed) -> str | None:
    """Why the policy failed, where the report can say better than "it failed": the model's
    context window was full (quest.llm.window)."""
    if isinstance(failure.__cause__, ContextFull):
        return f"{failure.__cause__}."
    return None


def _cancelled(failure: _PolicyFailed) -> bool:
    """The client gave the request up because the run was stopped (quest.llm.streaming)."""
    return isinstance(failure.__cause__, Cancelled)


def run_agent(
    question: str,
    *,
    policy: Policy,
    toolbox: Toolbox,
    condenser: Condenser | None = None,
    budgets: Budgets | None = None,
    sink: EventSink | None = None,
    should_stop: Callable[[], bool] | None = None,
    clock: Callable[[], float] = time.monotonic,
    token_counter: TokenCounter | None = None,
    rollout_id: str | None = None,
) -> RunResult:
    """Research `question` until an answer; never raises for a policy, tool or condenser
    failure (they end the run with status "failed" or are recovered from)."""
    run = _Run(
        question.strip(),
        policy=policy,
        toolbox=toolbox,
        condenser=condenser or RuleCondenser(),
        budgets=budgets or Budgets.rl(),
        sink=sink or NullSink(),
        should_stop=should_stop or (lambda: False),
        clock=clock,
        counter=token_counter or ApproxTokens(),
        rollout_id=rollout_id or default_rollout_id(question),
    )
    return run.execute()


def default_rollout_id(question: str) -> str:
    return "rollout-" + hashlib.sha256(question.strip().encode()).hexdigest()[:12]


class _Run:
    def __init__(
        self,
        question: str,
        *,
        policy: Policy,
        toolbox: Toolbox,
        condenser: Condenser,
        budgets: Budgets,
        sink: EventSink,
        should_stop: Callable[[], bool],
        clock: Callable[[], float],
        counter: TokenCounter,
        rollout_id: str,
    ) -> None:
        self.question, self.policy, self.toolbox = question, policy, toolbox
        self.condenser, self.budgets, self.sink = condenser, budgets, sink
        self.should_stop, self.clock, self.counter = should_stop, clock, counter
        self.system = system_prompt(toolbox.names())
        self.trajectory = Trajectory(rollout_id)
        self.context: list[Message] = []
        self.state: DRState | None = None
        self.titles: dict[str, str] = {}
        self.read: dict[str, str] = {}
        self.context_tokens = self.total_tokens = self.session_response = 0
        self.turn = self.invalid = self.tool_calls = self.condensations = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.started = clock()

    def execute(self) -> RunResult:
        policy_name = getattr(self.policy, "name", type(self.policy).__name__)
        self.sink.emit(
            "started",
            {"question": self.question, "policy": policy_name, "budgets": self.budgets.to_json()},
        )
        self._restart(None)
        try:
            return self._research()
        except _PolicyFailed as failure:
            if _cancelled(failure):  # a stop cut a generation short: the run was stopped
                return self._partial("stopped", forced=False)
            self.sink.emit("error", {"turn": self.turn, "message": str(failure)})
            return self._partial("failed", forced=False, reason=_failure_reason(failure))

    def _research(self) -> RunResult:
        while True:
            if self.should_stop():
                return self._final("stopped", "The user stopped the research.")
            spent = self._spent()
            if spent:
                return self._final("forced", spent)
            ended = self._step()
            if ended is not None:
                return ended

    def _step(self) -> RunResult | None:
        turn = self._ask()
        if turn.kind == "answer":
            return self._finish("answered", turn.answer, forced=False, partial=False)
        if turn.kind == "invalid":
            return self._invalid(turn)
        self.invalid = 0
        self._use_tool(turn)
        if self.context_tokens >= self.budgets.condense_at_tokens:
            self._condense()
        return None

    def _ask(self) -> Turn:
        self.turn += 1
        try:
            # The live list is handed over (read-only by the Policy protocol): copying it
            # would make every step cost as much as the history is long.
            out = self.policy.next_turn(self.context)
        except Exception as error:  # any policy failure ends the run with a partial report
            raise _PolicyFailed(f"{type(error).__name__}: {error}") from error
        completion = out.completion_tokens
        if completion is None:
            completion = self.counter.count(out.text)
        self.prompt_tokens += (
            self.context_tokens if out.prompt_tokens is None else out.prompt_tokens
        )
        self.completion_tokens += completion
        self.session_response += completion
        self._append(message("assistant", out.text), model=True)
        turn = parse_turn(out.text)
        if turn.think:
            self.sink.emit("thought", {"turn": self.turn, "text": turn.think})
        return turn

    def _invalid(self, turn: Turn) -> RunResult | None:
        self.invalid += 1
        # What the policy wrote, so a viewer sees why the turn was refused.
        reply = self.context[-1]["content"][:REPLY_SHOWN]
        text = reminder(turn.problem)
        self._append(message("user", text), model=False)
        self.sink.emit(
            "reminder", {"turn": self.turn, "text": text, "problem": turn.problem, "reply": reply}
        )
        if self.invalid >= self.budgets.max_invalid:
            return self._partial("invalid", forced=False)
        return None

    def _use_tool(self, turn: Turn) -> None:
        arguments = display_arguments(turn.arguments)
        self.sink.emit("tool_call", {"turn": self.turn, "name": turn.name, "arguments": arguments})
        result = self.toolbox.call(turn.name, turn.arguments)
        text = truncate(result.text, self.budgets.max_tool_chars)
        self.tool_calls += 1
        sources = result_sources(turn.name, text)
        for source in sources:
            if source["title"]:
                self.titles.setdefault(source["url"], source["title"])
            if turn.name == "visit":
                self.read.setdefault(source["url"], source["title"])
        shown = text[:DISPLAY_CHARS]
        self.sink.emit(
            "tool_result",
            {
                "turn": self.turn,
                "name": turn.name,
                "ok": result.ok,
                "text": shown,
                "truncated": shown != result.text,
                "sources": sources,
            },
        )
        record = {"name": turn.name, "ok": result.ok, "details": [dict(d) for d in result.details]}
        self._append(message("user", tool_response(text)), model=False, tool=record)

    def _condense(self) -> None:
        before, events = self.context_tokens, self.context[2:]
        try:
            state = self.condenser.condense(self.question, events, self.state)
        except Exception as error:  # a broken condenser must not end the run
            if not isinstance(error, Cancelled):  # a stop is no condenser failure
                self.sink.emit("error", {"turn": self.turn, "message": f"condenser: {error}"})
            merged = RuleCondenser().condense(self.question, events, self.state)
            state = replace(keep_trusted(merged, self.state), recovery=str(error) or "failed")
        self.trajectory.close_segment(state)
        self.trajectory.add_condensation(self.question, events, self.state, state)
        self.state = state
        self.condensations += 1
        self._restart(state)
        self.sink.emit(
            "state",
            {
                "turn": self.turn,
                "state": state.to_json(),
                "recovered": state.recovered,
                "context_tokens_before": before,
                "context_tokens_after": self.context_tokens,
            },
        )

    def _restart(self, state: DRState | None) -> None:
        self.context = [
            message("system", self.system),
            message("user", user_prompt(self.question, state)),
        ]
        self.context_tokens = sum(message_tokens(self.counter, m["content"]) for m in self.context)
        if state is None:
            self.total_tokens += self.context_tokens
        self.session_response = 0
        self.trajectory.open_segment(self.context, state)

    def _append(self, item: Message, *, model: bool, tool: dict[str, object] | None = None) -> None:
        self.context.append(item)
        tokens = message_tokens(self.counter, item["content"])
        self.context_tokens += tokens
        self.total_tokens += tokens
        self.trajectory.add(item, model=model, tool=tool)

    def _spent(self) -> str:
        budgets = self.budgets
        if self.turn >= budgets.max_turns:
            return f"The turn budget ({budgets.max_turns} turns) is spent."
        if budgets.max_total_tokens is not None and self.total_tokens >= budgets.max_total_tokens:
            return f"The token budget ({budgets.max_total_tokens:,} tokens) is spent."
        limit = budgets.max_session_response_tokens
        if limit is not None and self.session_response >= limit:
            return f"The response budget of this session ({limit:,} tokens) is spent."
        return ""

    def _final(self, status: str, reason: str) -> RunResult:
        """Ask once for the final answer; if none comes, write a partial report."""
        text = final_answer_request(reason)
        self._append(message("user", text), model=False)
        self.sink.emit("reminder", {"turn": self.turn, "text": text, "problem": reason})
        try:
            turn = self._ask()
        except _PolicyFailed as failure:
            if not _cancelled(failure):
                self.sink.emit("error", {"turn": self.turn, "message": str(failure)})
            return self._partial(status, forced=True)
        if turn.kind == "answer":
            return self._finish(status, turn.answer, forced=True, partial=status == "stopped")
        if turn.answer:  # an unclosed answer: better than none when time is up
            return self._finish(status, turn.answer, forced=True, partial=True)
        return self._partial(status, forced=True)

    def _partial(self, status: str, *, forced: bool, reason: str | None = None) -> RunResult:
        state = self._current_state()
        why = reason or PARTIAL_REASONS[status]
        text = write_report(self.question, state, titles=self.titles, partial_reason=why)
        return self._finish(status, text, forced=forced, partial=True, state=state)

    def _current_state(self) -> DRState:
        """The state now, written without a model: the last state plus this session."""
        return RuleCondenser().condense(self.question, self.context[2:], self.state)

    def _finish(
        self, status: str, answer: str, *, forced: bool, partial: bool, state: DRState | None = None
    ) -> RunResult:
        final_state = state or self._current_state()
        self.trajectory.close_segment(final_state)
        citations = answer_citations(answer, self.titles)
        self.sink.emit(
            "answer", {"text": answer, "citations": citations, "forced": forced, "partial": partial}
        )
        elapsed = round(self.clock() - self.started, 3)
        usage = Usage(
            self.prompt_tokens, self.completion_tokens, self.tool_calls, self.condensations
        )
        self.sink.emit(
            "finished",
            {
                "status": status,
                "turns": self.turn,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "tool_calls": usage.tool_calls,
                "condensations": usage.condensations,
                "elapsed_s": elapsed,
            },
        )
        return RunResult(
            question=self.question,
            answer=answer,
            status=status,
            forced=forced,
            partial=partial,
            turns=self.turn,
            usage=usage,
            final_state=final_state,
            trajectory=self.trajectory,
            sources=tuple({"url": u, "title": t} for u, t in self.read.items()),
            citations=tuple(citations),
            elapsed_s=elapsed,
        )
