"""The scripted policy end to end: real corpus, real search index, real tools."""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent_helpers import CANBERRA, QUESTION

from quest.agent import (
    Budgets,
    DRState,
    Fact,
    ListSink,
    PolicyTurn,
    Query,
    RunResult,
    ScriptedPolicy,
    Source,
    parse_turn,
    run_agent,
)
from quest.agent.prompts import (
    FINAL_MARKER,
    REMINDER_MARKER,
    split_user_prompt,
    system_prompt,
    unwrap_tool_response,
    user_prompt,
)
from quest.agent.research.question import Question
from quest.llm.types import Message
from quest.tools import Toolbox


class Recording:
    """Wraps a policy and keeps a copy of every conversation it was given."""

    def __init__(self, inner: ScriptedPolicy) -> None:
        self.inner = inner
        self.name = inner.name
        self.seen: list[list[dict[str, str]]] = []

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        self.seen.append([dict(m) for m in messages])
        return self.inner.next_turn(messages)


def scripted_run(
    toolbox: Toolbox, budgets: Budgets | None = None
) -> tuple[RunResult, ListSink, Recording]:
    policy = Recording(ScriptedPolicy())
    sink = ListSink()
    result = run_agent(
        QUESTION, policy=policy, toolbox=toolbox, budgets=budgets or Budgets.rl(), sink=sink
    )
    return result, sink, policy


def test_it_answers_a_factual_question_citing_the_right_page(toolbox: Toolbox) -> None:
    result, sink, _ = scripted_run(toolbox)
    assert result.status == "answered"
    first_line = result.answer.splitlines()[0]
    expected = "**Answer:** Canberra. Canberra is the capital city of Australia [1]"
    assert first_line.startswith(expected)
    assert sink.of("answer")[0]["citations"][0] == {"n": 1, "url": CANBERRA, "title": "Canberra"}
    assert "Sydney" not in result.answer  # a partial match is uncertain and stays out
    assert {"url": CANBERRA, "title": "Canberra"} in result.sources
    calls = [parse_turn(m) for m in result.trajectory.segments[0].model_outputs()]
    assert calls[0].kind == "tool_call" and calls[0].name == "search" and calls[0].think


def test_the_same_question_gives_the_same_trajectory(toolbox: Toolbox) -> None:
    first, first_events, _ = scripted_run(toolbox)
    second, second_events, _ = scripted_run(toolbox)

    def timeless(events: ListSink) -> list[tuple[str, dict[str, object]]]:
        return [(t, {k: v for k, v in p.items() if k != "elapsed_s"}) for t, p in events.events]

    assert timeless(first_events) == timeless(second_events)
    assert first.trajectory.to_jsonl() == second.trajectory.to_jsonl()


def test_it_reads_nothing_but_the_question_and_tool_responses(toolbox: Toolbox) -> None:
    result, _, policy = scripted_run(toolbox, Budgets(condense_at_tokens=450))
    own = {out for segment in result.trajectory.segments for out in segment.model_outputs()}
    for conversation in policy.seen:
        system, prompt, *rest = conversation
        assert system == {"role": "system", "content": system_prompt(toolbox.names())}
        assert split_user_prompt(prompt["content"])[0] == QUESTION
        for item in rest:
            if item["role"] == "assistant":
                assert item["content"] in own
            else:
                content = item["content"]
                assert unwrap_tool_response(content) is not None or content.startswith(
                    (REMINDER_MARKER, FINAL_MARKER)
                )


def test_it_keeps_researching_after_the_context_restarts(toolbox: Toolbox) -> None:
    result, sink, policy = scripted_run(toolbox, Budgets(condense_at_tokens=450))
    assert len(sink.of("state")) >= 1
    restarted = [c for c in policy.seen if "RESEARCH STATE SUMMARY" in c[1]["content"]]
    assert restarted and len(restarted[0]) == 2
    assert result.status == "answered"
    assert CANBERRA in result.answer
    queries = [
        q for p in sink.of("tool_call") if p["name"] == "search" for q in p["arguments"]["query"]
    ]  # type: ignore[index]
    assert len(queries) == len(set(queries))  # no search repeated across the restart
    visits = [p["arguments"]["url"][0] for p in sink.of("tool_call") if p["name"] == "visit"]  # type: ignore[index]
    assert len(visits) == len(set(visits))


def test_a_fresh_policy_resumes_from_a_state_block_alone() -> None:
    state = DRState(
        search_queries=(Query("capital city Australia", "key words"),),
        visited_sources=(Source(CANBERRA, "From 'Canberra': Canberra is the capital."),),
        uncertain=(
            Fact(
                "u1",
                "Hobart may be relevant.",
                ("https://h.org",),
                "snippet",
                "visit https://h.org",
            ),
        ),
    )
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": user_prompt(QUESTION, state)},
    ]
    turn = parse_turn(ScriptedPolicy().next_turn(messages).text)
    assert turn.kind == "tool_call" and turn.name == "visit"
    assert turn.arguments["url"] == ["https://h.org"]


def test_two_sources_stating_the_answer_in_the_state_are_enough_to_answer() -> None:
    sources = (CANBERRA, "https://www.geonames.org/2172517")
    state = DRState(
        trusted=(Fact("t", "Canberra is the capital city of Australia.", sources, "confirmed"),),
    )
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": user_prompt(QUESTION, state)},
    ]
    turn = parse_turn(ScriptedPolicy().next_turn(messages).text)
    assert turn.kind == "answer"
    assert "## Sources\n1. " + CANBERRA in turn.answer


def test_a_final_answer_request_is_answered_at_once(toolbox: Toolbox) -> None:
    result, sink, _ = scripted_run(toolbox, Budgets(max_turns=3))
    assert result.status == "forced" and result.turns == 4
    assert sink.of("answer")[0]["forced"] is True and not result.partial


def test_the_trajectory_holds_exactly_what_the_policy_saw(toolbox: Toolbox) -> None:
    result, _, policy = scripted_run(toolbox, Budgets(condense_at_tokens=450))
    replayed = [
        segment.messages_at(turn)
        for segment in result.trajectory.segments
        for turn in range(len(segment.model_outputs()))
    ]
    assert replayed == policy.seen
    records = [json.loads(line) for line in result.trajectory.to_jsonl().splitlines()]
    segments = [r for r in records if r["kind"] == "segment"]
    pairs = [r for r in records if r["kind"] == "condensation"]
    assert len(pairs) == len(segments) - 1 >= 1
    assert segments[0]["state_before"] is None
    assert segments[1]["state_before"] == segments[0]["state_after"] == pairs[0]["state_after"]
    assert all(t["model"] == (t["role"] == "assistant") for t in segments[0]["completion_turns"])
    assert pairs[0]["events"] == [
        {"role": t["role"], "content": t["content"]} for t in segments[0]["completion_turns"]
    ]


class CountingTokens:
    def __init__(self) -> None:
        self.texts = 0

    def count(self, text: str) -> int:
        self.texts += 1
        return len(text) // 4


def test_the_context_is_counted_once_per_new_message(toolbox: Toolbox) -> None:
    counter = CountingTokens()
    result = run_agent(QUESTION, policy=ScriptedPolicy(), toolbox=toolbox, token_counter=counter)
    messages = sum(len(s.prompt_messages) + len(s.turns) for s in result.trajectory.segments)
    # each message once, plus each policy output once more for its completion tokens
    assert counter.texts == messages + result.turns


def test_the_planner_searches_for_quoted_and_named_things() -> None:
    question = Question('Which film did the director of "2001: A Space Odyssey" make in 1971?')
    queries = [q for q, _ in question.plan()]
    assert queries[0].startswith("2001: A Space Odyssey")
    assert "1971" in queries[1]
    assert question.numbers == {"2001", "1971"}
