"""The loop's rules, driven by the LLM policy over `CannedReplies` (see agent_helpers) and the
real offline tools."""

from __future__ import annotations

import json
from dataclasses import replace

from agent_helpers import CANBERRA, QUESTION, SEARCH_CALL, VISIT_CALL, CannedReplies

from quest.agent import Budgets, ListSink, LLMPolicy, RunResult, run_agent
from quest.agent.condenser import RuleCondenser
from quest.agent.prompts import FINAL_MARKER, REMINDER_MARKER
from quest.llm.types import LLMError
from quest.tools import Toolbox

ANSWER = f"<think>I know it now.</think><answer>Canberra is the capital [1].\n\n1. {CANBERRA}"


def run(
    replies: list[str | LLMError], toolbox: Toolbox, budgets: Budgets | None = None, **kw: object
) -> tuple[RunResult, ListSink, CannedReplies]:
    client = CannedReplies(replies)
    sink = ListSink()
    result = run_agent(
        QUESTION,
        policy=LLMPolicy(client),
        toolbox=toolbox,
        budgets=budgets or Budgets.rl(),
        sink=sink,
        **kw,  # type: ignore[arg-type]
    )
    return result, sink, client


def test_an_answer_after_a_tool_call_ends_the_run(toolbox: Toolbox) -> None:
    result, sink, _ = run([SEARCH_CALL, ANSWER], toolbox)
    assert result.status == "answered" and not result.forced and not result.partial
    assert sink.types() == [
        "started", "tool_call", "tool_result", "thought", "answer", "finished",
    ]  # fmt: skip
    assert sink.of("answer")[0]["citations"] == [{"n": 1, "url": CANBERRA, "title": "Canberra"}]
    assert sink.of("tool_result")[0]["sources"][0]["url"].startswith("https://")


def test_every_event_payload_is_json(toolbox: Toolbox) -> None:
    _, sink, _ = run([SEARCH_CALL, "oops", VISIT_CALL, ANSWER], toolbox)
    json.dumps(sink.events)
    finished = sink.of("finished")[0]
    assert set(finished) == {
        "status", "turns", "prompt_tokens", "completion_tokens", "tool_calls", "condensations",
        "elapsed_s",
    }  # fmt: skip
    assert finished["turns"] == 4 and finished["tool_calls"] == 2


def test_the_turn_budget_asks_once_for_a_final_answer(toolbox: Toolbox) -> None:
    result, sink, client = run([SEARCH_CALL, SEARCH_CALL, ANSWER], toolbox, Budgets(max_turns=2))
    assert result.status == "forced" and result.forced and not result.partial
    assert result.turns == 3
    final_request = client.requests[2][-1]["content"]
    assert final_request.startswith(FINAL_MARKER) and "turn budget (2 turns)" in final_request
    assert sink.of("answer")[0]["forced"] is True


def test_a_forced_turn_that_does_not_answer_gets_a_partial_report(toolbox: Toolbox) -> None:
    replies = [SEARCH_CALL, VISIT_CALL, SEARCH_CALL]
    result, sink, _ = run(replies, toolbox, Budgets(max_turns=2))
    assert result.status == "forced" and result.partial
    assert result.answer.startswith("_Partial report: the research budget ran out")
    assert "Canberra is the capital city of Australia" in result.answer
    assert sink.of("answer")[0]["citations"][0]["url"] == CANBERRA


def test_the_total_token_budget_forces_the_answer(toolbox: Toolbox) -> None:
    budgets = replace(Budgets.inference(), max_total_tokens=470)
    result, sink, _ = run([SEARCH_CALL, SEARCH_CALL, ANSWER], toolbox, budgets)
    assert result.status == "forced" and result.turns == 2
    assert "token budget (470 tokens)" in sink.of("reminder")[0]["problem"]


def test_the_session_response_budget_forces_the_answer(toolbox: Toolbox) -> None:
    budgets = Budgets(max_session_response_tokens=10)
    result, sink, _ = run([SEARCH_CALL, ANSWER], toolbox, budgets)
    assert result.status == "forced" and result.turns == 2
    assert "response budget of this session" in sink.of("reminder")[0]["text"]


def test_three_invalid_turns_in_a_row_end_the_run(toolbox: Toolbox) -> None:
    replies = ["no tags", '<tool_call>{"name": </tool_call>', "<think>hmm</think>", ANSWER]
    result, sink, client = run(replies, toolbox)
    assert result.status == "invalid" and result.partial and result.turns == 3
    problems = [p["problem"] for p in sink.of("reminder")]
    assert problems[0] == "the turn has neither a <tool_call> nor an <answer>"
    assert problems[1].startswith("the tool call could not be read")
    assert [p["reply"] for p in sink.of("reminder")][:2] == replies[:2]
    assert len(client.requests) == 3
    assert client.requests[1][-1]["content"].startswith(REMINDER_MARKER)


def test_a_valid_turn_resets_the_invalid_count(toolbox: Toolbox) -> None:
    replies = ["x", "y", SEARCH_CALL, "z", "w", ANSWER]
    result, _, _ = run(replies, toolbox)
    assert result.status == "answered" and result.turns == 6


def test_tool_output_is_cut_to_the_budget(toolbox: Toolbox) -> None:
    _, sink, client = run([SEARCH_CALL, ANSWER], toolbox, Budgets(max_tool_chars=300))
    response = client.requests[1][-1]["content"]
    assert response.startswith("<tool_response>\n") and len(response) < 340
    assert "[... output truncated" in response
    assert sink.of("tool_result")[0]["truncated"] is True


def test_stopping_asks_for_the_answer_now(toolbox: Toolbox) -> None:
    polls = iter([False, True])
    result, sink, client = run([SEARCH_CALL, ANSWER], toolbox, should_stop=lambda: next(polls))
    assert result.status == "stopped" and result.forced and result.partial
    assert "The user stopped the research." in client.requests[1][-1]["content"]
    assert sink.of("answer")[0]["text"].startswith("Canberra is the capital")


def test_a_stop_the_policy_cannot_answer_ends_with_a_report_from_the_state(
    toolbox: Toolbox,
) -> None:
    polls = iter([False, False, True])
    replies: list[str | LLMError] = [SEARCH_CALL, VISIT_CALL, LLMError("endpoint down")]
    result, sink, _ = run(replies, toolbox, should_stop=lambda: next(polls))
    assert result.status == "stopped" and result.partial
    assert sink.types()[-3:] == ["error", "answer", "finished"]
    assert "Canberra is the capital city of Australia" in result.answer


def test_a_policy_failure_is_reported_and_ends_with_a_partial_report(toolbox: Toolbox) -> None:
    result, sink, _ = run([VISIT_CALL, LLMError("model server gone")], toolbox)
    assert result.status == "failed" and result.partial
    error = sink.of("error")[0]
    assert error == {"turn": 2, "message": "LLMError: model server gone"}
    assert CANBERRA in result.answer
    assert sink.of("finished")[0]["status"] == "failed"


class BrokenCondenser:
    def condense(self, question, messages, previous):  # type: ignore[no-untyped-def]
        raise RuntimeError("condenser crashed")


def test_a_crashing_condenser_is_recovered_from(toolbox: Toolbox) -> None:
    client = CannedReplies([VISIT_CALL, ANSWER])
    sink = ListSink()
    result = run_agent(
        QUESTION,
        policy=LLMPolicy(client),
        toolbox=toolbox,
        condenser=BrokenCondenser(),
        budgets=Budgets(condense_at_tokens=1),
        sink=sink,
    )
    assert result.status == "answered"
    assert sink.of("error")[0]["message"] == "condenser: condenser crashed"
    state = sink.of("state")[0]
    assert state["recovered"] is True
    trusted = state["state"]["information_state"]["trusted"]  # type: ignore[index]
    assert trusted[0]["claim"] == "Canberra is the capital city of Australia."


def test_condensing_restarts_the_context_from_the_state(toolbox: Toolbox) -> None:
    client = CannedReplies([VISIT_CALL, SEARCH_CALL, ANSWER])
    sink = ListSink()
    result = run_agent(
        QUESTION,
        policy=LLMPolicy(client),
        toolbox=toolbox,
        condenser=RuleCondenser(),
        budgets=Budgets(condense_at_tokens=450),
        sink=sink,
    )
    after = client.requests[1]
    assert [m["role"] for m in after] == ["system", "user"]
    assert after[1]["content"].startswith(QUESTION + "\n\nRESEARCH STATE SUMMARY\n")
    state = sink.of("state")[0]
    restarted = result.trajectory.segments[1].prompt_messages
    # The default counter: about four characters a token, plus four per message.
    assert state["context_tokens_after"] == sum((len(m["content"]) + 3) // 4 + 4 for m in restarted)
    assert state["context_tokens_before"] >= 450  # type: ignore[operator]
    assert result.usage.condensations == len(sink.of("state")) >= 1
    assert len(result.trajectory.segments) == result.usage.condensations + 1
