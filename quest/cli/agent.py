"""`python -m quest agent run "QUESTION"`: research a question over the offline corpus and print
a readable trace (turns, tool calls, short results, state summaries, the final answer).

    python -m quest agent run "What is the capital of Australia?" --corpus DIR
        [--policy scripted|llm] [--model SPEC] [--endpoints LIST]
        [--events out.jsonl] [--trajectory out.jsonl] [--max-turns N]
        [--max-turn-tokens N] [--budgets rl|inference] [--quiet]

The corpus is --corpus, else $QUESTWEB_CORPUS_DIR. `--policy llm` needs --model, a backend
spec for quest.llm.config.client_from_config (`http` with --endpoints or
$QUESTWEB_LLM_ENDPOINTS, `transformers:<dir or smollm2>`, a training run's checkpoint
directory alone, `vllm:<model>`); its condenser is
then the LLM condenser on the same model, and the history condenses by half the model's context
window at the latest (quest.agent.budgets), whatever the preset says. Exits 0 when the run
produced an answer (answered, forced or stopped), 1 otherwise; bad input exits 1 with one line
on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import Any, TextIO

from quest.agent.budgets import Budgets
from quest.agent.condenser import LLMCondenser, RuleCondenser
from quest.agent.events import EventSink, FanOut, JsonlSink
from quest.agent.loop import run_agent
from quest.agent.policies import LLMPolicy
from quest.agent.scripted import ScriptedPolicy
from quest.cli.common import UsageError, guarded
from quest.llm.config import client_from_config
from quest.llm.types import LLMError, context_window
from quest.tools.offline import offline_toolbox

STATE_LINE = "trusted {t} / untrusted {u} / uncertain {n}"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("agent", help="run the research agent on a question")
    actions = parser.add_subparsers(dest="agent_action", metavar="ACTION", required=True)
    run = actions.add_parser("run", help="research a question and print the trace")
    run.add_argument("question")
    run.add_argument("--policy", choices=("scripted", "llm"), default="scripted")
    run.add_argument(
        "--model", help="LLM backend spec or a checkpoint directory (needed by --policy llm)"
    )
    run.add_argument("--endpoints", help="endpoint list for --model http")
    run.add_argument("--corpus", metavar="DIR", help="corpus directory (or $QUESTWEB_CORPUS_DIR)")
    run.add_argument("--events", metavar="FILE", help="write the events as JSON lines")
    run.add_argument("--trajectory", metavar="FILE", help="write the trajectory as JSON lines")
    run.add_argument("--max-turns", type=int, help="turn budget (default: the preset's)")
    run.add_argument(
        "--max-turn-tokens", type=int, help="tokens per policy turn (default: the preset's)"
    )
    run.add_argument("--budgets", choices=("rl", "inference"), default="inference")
    run.add_argument("--quiet", action="store_true", help="print only the final answer")
    run.set_defaults(func=guarded(_run))


def _run(args: argparse.Namespace) -> int:
    corpus = args.corpus or os.environ.get("QUESTWEB_CORPUS_DIR")
    if not corpus:
        raise UsageError("give --corpus DIR or set QUESTWEB_CORPUS_DIR")
    budgets = _budgets(args)
    policy, condenser, window = _policy(args, budgets)
    budgets = budgets.within(window)
    sinks: list[EventSink] = [] if args.quiet else [ConsoleSink(sys.stdout)]
    events = JsonlSink.open(args.events) if args.events else None
    try:
        result = run_agent(
            args.question,
            policy=policy,
            toolbox=offline_toolbox(corpus),
            condenser=condenser,
            budgets=budgets,
            sink=FanOut(*sinks, *([events] if events else [])),
        )
    finally:
        if events is not None:
            events.close()
    if args.trajectory:
        result.trajectory.write_jsonl(args.trajectory)
    if args.quiet:
        sys.stdout.write(result.answer + "\n")
    return 0 if result.status in ("answered", "forced", "stopped") else 1


def _budgets(args: argparse.Namespace) -> Budgets:
    budgets = Budgets.rl() if args.budgets == "rl" else Budgets.inference()
    for field in ("max_turns", "max_turn_tokens"):
        value = getattr(args, field)
        if value is not None and value < 1:
            raise UsageError(f"--{field.replace('_', '-')} must be at least 1")
        if value is not None:
            budgets = replace(budgets, **{field: value})
    return budgets


def _policy(args: argparse.Namespace, budgets: Budgets) -> tuple[Any, Any, int | None]:
    """The policy, its condenser and its model's context window (None: unknown or no model)."""
    if args.policy == "scripted":
        return ScriptedPolicy(), RuleCondenser(), None
    if not args.model:
        raise UsageError("--policy llm needs --model SPEC")
    endpoints = args.endpoints or os.environ.get("QUESTWEB_LLM_ENDPOINTS", "")
    try:
        client = client_from_config(args.model, endpoints=endpoints)
        window = context_window(client)
    except (ValueError, LLMError) as error:  # LLMError: a local model that cannot load
        raise UsageError(str(error)) from None
    policy = LLMPolicy(client, max_turn_tokens=budgets.max_turn_tokens)
    return policy, LLMCondenser(client), window


class ConsoleSink:
    """The events as a short, readable trace."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def emit(self, type: str, payload: dict[str, object]) -> None:
        line = getattr(self, f"_{type}")(payload)
        if line:
            self.out.write(line + "\n")
            self.out.flush()

    def _started(self, p: dict[str, Any]) -> str:
        return f"Question: {p['question']}\nPolicy: {p['policy']}"

    def _thought(self, p: dict[str, Any]) -> str:
        return f"[{p['turn']}] think: {_short(p['text'], 300)}"

    def _tool_call(self, p: dict[str, Any]) -> str:
        arguments = p["arguments"]
        shown = arguments.get("query") or arguments.get("url") or arguments
        return f"[{p['turn']}] {p['name']}: {_short(str(shown), 200)}"

    def _tool_result(self, p: dict[str, Any]) -> str:
        titles = [s["title"] or s["url"] for s in p["sources"]]
        body = "; ".join(titles[:6]) if titles else _short(p["text"], 200)
        return f"     -> {'ok' if p['ok'] else 'error'}: {_short(body, 300)}"

    def _reminder(self, p: dict[str, Any]) -> str:
        return f"[{p['turn']}] reminder: {p['problem']}"

    def _state(self, p: dict[str, Any]) -> str:
        info = p["state"]["information_state"]
        counts = STATE_LINE.format(
            t=len(info["trusted"]), u=len(info["untrusted"]), n=len(info["uncertain"])
        )
        recovered = " (recovered)" if p["recovered"] else ""
        sizes = f"{p['context_tokens_before']:,} -> {p['context_tokens_after']:,} tokens"
        return f"[{p['turn']}] state condensed{recovered}: {counts}; context {sizes}"

    def _answer(self, p: dict[str, Any]) -> str:
        kind = "partial " if p["partial"] else "forced " if p["forced"] else ""
        return f"\n=== {kind}answer ===\n{p['text']}\n"

    def _error(self, p: dict[str, Any]) -> str:
        return f"[{p['turn']}] error: {p['message']}"

    def _finished(self, p: dict[str, Any]) -> str:
        return (
            f"status {p['status']}: {p['turns']} turns, {p['tool_calls']} tool calls, "
            f"{p['condensations']} condensations, {p['elapsed_s']} s"
        )


def _short(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
