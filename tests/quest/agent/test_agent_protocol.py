from __future__ import annotations

from agent_helpers import CannedReplies

from quest.agent import LLMPolicy, parse_turn
from quest.agent.policies import close_stopped_tag
from quest.llm.types import Completion

CALL = '<tool_call>{"name": "search", "arguments": {"query": ["alpha"]}}</tool_call>'


def test_a_think_then_a_tool_call_is_read() -> None:
    turn = parse_turn(f"<think>I should search.</think>\n{CALL}")
    assert turn.kind == "tool_call"
    assert turn.think == "I should search."
    assert turn.name == "search" and turn.arguments == {"query": ["alpha"]}
    assert turn.ignored == ()


def test_only_the_last_of_several_tool_calls_is_used_and_the_rest_are_noted() -> None:
    second = (
        '<tool_call>{"name": "visit", "arguments": {"url": "https://a.org", "goal": "g"}}'
        "</tool_call>"
    )
    turn = parse_turn(f"{CALL}\n{second}")
    assert turn.kind == "tool_call" and turn.name == "visit"
    assert turn.ignored == ("1 earlier tool call(s) in the turn were not run",)


def test_nested_tool_call_tags_are_read_from_the_innermost_block() -> None:
    turn = parse_turn(f"<tool_call>{CALL}</tool_call>")
    assert turn.kind == "tool_call" and turn.arguments == {"query": ["alpha"]}


def test_malformed_json_makes_the_turn_invalid_and_says_why() -> None:
    turn = parse_turn('<tool_call>{"name": "search", "arguments": {"query": [}</tool_call>')
    assert turn.kind == "invalid"
    assert "not valid JSON" in turn.problem


def test_a_tool_call_without_a_name_is_invalid() -> None:
    turn = parse_turn('<tool_call>{"arguments": {}}</tool_call>')
    assert turn.kind == "invalid" and '"name"' in turn.problem


def test_an_unclosed_tool_call_is_invalid() -> None:
    turn = parse_turn('<tool_call>{"name": "search", "arguments": {"query": "x"}}')
    assert turn.kind == "invalid"
    assert turn.problem == "the <tool_call> tag is never closed with </tool_call>"


def test_an_unclosed_answer_is_invalid_but_its_text_is_kept() -> None:
    turn = parse_turn("<answer>Canberra is the capital [1].")
    assert turn.kind == "invalid" and "never closed" in turn.problem
    assert turn.answer == "Canberra is the capital [1]."


def test_a_tool_call_inside_think_is_a_thought_not_an_action() -> None:
    turn = parse_turn(f"<think>maybe {CALL}</think>")
    assert turn.kind == "invalid"
    assert "inside <think>" in turn.problem
    assert "alpha" in turn.think


def test_a_turn_of_thinking_only_is_invalid() -> None:
    turn = parse_turn("<think>Still pondering.</think>")
    assert turn.kind == "invalid"
    assert turn.problem.startswith("the turn has only thinking")


def test_plain_prose_is_invalid() -> None:
    turn = parse_turn("The capital is Canberra.")
    assert turn.kind == "invalid"
    assert turn.problem == "the turn has neither a <tool_call> nor an <answer>"


def test_an_unclosed_think_is_invalid() -> None:
    turn = parse_turn(f"<think>I will {CALL}")
    assert turn.kind == "invalid" and "<think>" in turn.problem


def test_a_closing_think_without_an_opening_one_ends_the_thoughts() -> None:
    turn = parse_turn(f"planning here</think>\n{CALL}")
    assert turn.kind == "tool_call" and turn.think == "planning here"


def test_an_answer_beside_a_tool_call_wins_and_the_call_is_not_run() -> None:
    turn = parse_turn(f"{CALL}<answer>Canberra.</answer>")
    assert turn.kind == "answer" and turn.answer == "Canberra."
    assert turn.ignored == ("1 tool call(s) beside the answer were not run",)


def test_an_empty_answer_is_invalid() -> None:
    turn = parse_turn("<think>done</think><answer>  </answer>")
    assert turn.kind == "invalid" and turn.problem == "the answer is empty"


def test_an_empty_answer_does_not_hide_a_tool_call() -> None:
    assert parse_turn(f"<answer></answer>{CALL}").kind == "tool_call"


def test_nested_answer_tags_give_the_inner_text() -> None:
    turn = parse_turn("<answer><answer>Canberra.</answer></answer>")
    assert turn.kind == "answer" and turn.answer == "Canberra."


def test_python_code_inside_the_tool_call_becomes_the_code_argument() -> None:
    turn = parse_turn(
        '<tool_call>{"name": "PythonInterpreter", "arguments": {}}'
        "<code>print(6 * 7)</code></tool_call>"
    )
    assert turn.kind == "tool_call" and turn.arguments == {"code": "print(6 * 7)"}


def test_a_stripped_stop_sequence_is_put_back_once() -> None:
    assert close_stopped_tag(CALL[: -len("</tool_call>")]) == CALL
    assert close_stopped_tag(CALL) == CALL
    assert close_stopped_tag("<answer>Canberra.") == "<answer>Canberra.</answer>"
    assert close_stopped_tag("<answer>x</answer>") == "<answer>x</answer>"


def test_the_llm_policy_asks_for_both_stop_sequences_and_closes_the_tag() -> None:
    client = CannedReplies([CALL[: -len("</tool_call>")]])
    turn = LLMPolicy(client, max_turn_tokens=512).next_turn(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    )
    assert client.stops == [["</tool_call>", "</answer>"]]
    assert turn.text == CALL
    assert parse_turn(turn.text).kind == "tool_call"


class LengthCut(CannedReplies):
    def complete(self, messages, *, max_tokens=None, stop=None, temperature=None):  # type: ignore[no-untyped-def]
        done = super().complete(messages, max_tokens=max_tokens, stop=stop)
        return Completion(done.text, 1, 1, "canned", "length")


def test_a_reply_cut_by_the_token_limit_is_not_closed() -> None:
    turn = LLMPolicy(LengthCut(["<answer>Canber"])).next_turn([{"role": "user", "content": "q"}])
    assert turn.text == "<answer>Canber"
    assert parse_turn(turn.text).kind == "invalid"
