"""Agent step overhead: what one loop step costs besides the tool, as the history grows.

    .venv/bin/python benchmarks/agent_bench.py [--repeats 3]

The scripted policy researches against canned tools (`CannedSearch`, `CannedVisit`: stand-ins
that answer instantly, so only the loop, the policy, the protocol parser, the event sink and
the trajectory are measured). Every search lists fresh pages and every page names a fresh lead,
so the policy never runs out of work; condensation is switched off so the history really grows
to 10, 100 and 400 turns. A step's overhead is the time from one tool call to the next, minus
the tool's own time; the figure is the median over the last steps of the run (the steps taken
with the longest history). Ratios are against the 10-turn run measured in the same process.
Goal: under 5 ms a step, and flat (ratio near 1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.agent import Budgets, RuleCondenser, ScriptedPolicy, run_agent
from quest.protocol.calls import string_list
from quest.tools import Toolbox, ToolResult

HISTORIES = (10, 100, 400)
QUESTION = "What is the capital city of Freedonia?"
WINDOW = 20  # steps measured at the end of each run
GOAL_MS = 5.0


class CannedSearch:
    """Three fresh, relevant-looking results per query."""

    name = "search"

    def __init__(self, clock: list[float]) -> None:
        self.calls = 0
        self.clock = clock

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        started = time.perf_counter()
        self.calls += 1
        parts = []
        for q, query in enumerate(string_list(arguments, "query")):
            hits = "\n\n".join(
                f"{i}. [Freedonia capital notes {self.calls}-{q}-{i}]"
                f"(https://bench.example/{self.calls}/{q}/{i})\n"
                f"A note about Freedonia and its capital, part {i}."
                for i in range(1, 4)
            )
            parts.append(f"A search for '{query}' found 3 results:\n\n## Web Results\n{hits}")
        result = ToolResult("\n=======\n".join(parts), ok=True)
        self.clock.append(time.perf_counter() - started)
        return result


class CannedVisit:
    """A page that half-answers the question and names a new lead each time."""

    name = "visit"

    def __init__(self, clock: list[float]) -> None:
        self.calls = 0
        self.clock = clock

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        started = time.perf_counter()
        self.calls += 1
        url = string_list(arguments, "url")[0]
        goal = str(arguments.get("goal", ""))
        lead = f"Lead{self.calls} Holdings"
        text = (
            f"The useful information in {url} for user goal {goal} as follows: \n\n"
            f"Evidence in page: \n{lead} runs a city office in Freedonia. "
            "The weather there is mild.\n\n"
            f"Summary: \nFrom 'Page {self.calls}': {lead} runs a city office in Freedonia.\n\n"
        )
        self.clock.append(time.perf_counter() - started)
        return ToolResult(text, ok=True)


class StepClock:
    """Times each tool_call event."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def emit(self, type: str, payload: dict[str, object]) -> None:
        if type == "tool_call":
            self.calls.append(time.perf_counter())


def step_overhead(turns: int) -> float:
    """Milliseconds one step costs besides its tool, with a history of `turns` turns: the
    median over the last steps of a run of that length."""
    tool_times: list[float] = []
    toolbox = Toolbox({"search": CannedSearch(tool_times), "visit": CannedVisit(tool_times)})
    clock = StepClock()
    budgets = Budgets(
        max_turns=turns,
        max_total_tokens=None,
        max_session_response_tokens=None,
        condense_at_tokens=10**12,
    )
    run_agent(
        QUESTION,
        policy=ScriptedPolicy(max_steps=10**9),
        toolbox=toolbox,
        condenser=RuleCondenser(),
        budgets=budgets,
        sink=clock,
    )
    if len(clock.calls) < turns:
        raise RuntimeError(f"the run ended after {len(clock.calls)} tool calls, not {turns}")
    steps = [
        (clock.calls[i + 1] - clock.calls[i] - tool_times[i]) * 1000
        for i in range(len(clock.calls) - 1)
    ]
    return statistics.median(steps[-min(WINDOW, len(steps)) :])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per history length")
    args = parser.parse_args()
    results = {
        n: statistics.median(step_overhead(n) for _ in range(args.repeats)) for n in HISTORIES
    }
    baseline = results[HISTORIES[0]]
    print(f"agent step overhead (scripted policy, canned tools), median of {args.repeats} runs")
    print(f"{'history':>8}  {'ms/step':>8}  {'vs 10':>6}")
    for turns, ms in results.items():
        print(f"{turns:>8}  {ms:>8.3f}  {ms / baseline:>5.2f}x")
    worst = max(results.values())
    verdict = "met" if worst < GOAL_MS else "MISSED"
    print(f"goal < {GOAL_MS} ms/step at every history length: {verdict} (worst {worst:.3f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
