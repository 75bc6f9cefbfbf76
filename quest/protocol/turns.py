"""One assistant turn of the QUEST text protocol (QUEST-SPEC §5), read strictly.

A turn is optional `<think>…</think>`, then `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
or `<answer>…</answer>`. Decisions where the protocol is silent:

- Several tool calls: the last complete one is used; the others are listed in `ignored`.
- A non-empty answer and a tool call in one turn: the answer wins and the call is not run. An
  answer commits the run to its end, and QUEST's reference loop also ends a turn that holds both
  (after running a tool whose result nobody reads, which we skip).
- An empty answer is not an answer: the turn is invalid, so the model is reminded instead of
  ending the run with nothing (an empty answer would score 0).
- Tags inside `<think>` are thoughts, never actions. `</think>` without an opening tag (chat
  templates that open the think block in the prompt) closes a think block that began the turn.
- Nested tags (`<tool_call><tool_call>{…}</tool_call></tool_call>`): the innermost block is read.
- Unclosed tags make the turn invalid; an unclosed answer's text is kept in `answer` so a loop
  that is forcing a final answer can still use it as a partial one.
- Tags are matched exactly as written here, in lower case: `<ANSWER>` or `<Answer>` is no tag,
  only text of the answer. `answer_text` applies this same reading wherever an answer is taken
  out of a response (the reward, the rubric CLI, the web's "try an answer"), so the answer a
  reader is shown is the text that is scored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from quest.protocol.calls import parse_tool_call
from quest.protocol.results import ToolError

TurnKind = Literal["tool_call", "answer", "invalid"]
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_STRAY = re.compile(r"</?(?:answer|tool_call|think)>")


def _block(tag: str) -> re.Pattern[str]:
    # The body may not contain another opening tag, which selects the innermost block.
    return re.compile(rf"<{tag}>((?:(?!<{tag}>).)*?)</{tag}>", re.DOTALL)


_CALL = _block("tool_call")
_ANSWER = _block("answer")


@dataclass(frozen=True)
class Turn:
    kind: TurnKind
    think: str = ""
    name: str = ""
    arguments: Mapping[str, object] = field(default_factory=dict)
    answer: str = ""
    problem: str = ""  # why the turn is invalid, in words the reminder can quote
    ignored: tuple[str, ...] = ()  # what in a valid turn was not acted on


def parse_turn(text: str) -> Turn:
    think, body, problem = split_think(text)
    if problem:
        return Turn("invalid", think=think, problem=problem)
    calls = [m.group(1) for m in _CALL.finditer(body)]
    answers = [_clean(m.group(1)) for m in _ANSWER.finditer(body)]
    filled = [answer for answer in answers if answer]
    if filled:
        ignored = _ignored_beside_answer(len(calls), len(filled))
        return Turn("answer", think=think, answer=filled[-1], ignored=ignored)
    if calls:
        return _tool_turn(think, calls)
    return Turn(
        "invalid", think=think, problem=_why_invalid(think, body, answers), answer=_salvage(body)
    )


def answer_text(text: str) -> str:
    """The answer a response gives, read as parse_turn reads it: the last closed, non-empty
    `<answer>…</answer>` outside `<think>`, or "" when a response with answer tags has none (an
    unclosed or empty block, an answer only inside thoughts). Text without any `<answer>` tag is
    all answer: an answer written on its own, or the final answer already taken out of its tags,
    which this returns unchanged (parse_turn's answers are stripped and hold no tags)."""
    if "<answer>" not in text:
        return text.strip()
    turn = parse_turn(text)
    return turn.answer if turn.kind == "answer" else ""


def split_think(text: str) -> tuple[str, str, str]:
    """(thoughts, the rest, problem): every think block is taken out of the turn."""
    body = text
    head, closer, tail = body.partition("</think>")
    if closer and "<think>" not in head:
        thoughts, body = _closed_thoughts(tail)
        return _join([head, *thoughts]), body, ""
    thoughts, body = _closed_thoughts(body)
    if "<think>" in body:
        before, _, after = body.partition("<think>")
        return _join([*thoughts, after]), before, "the <think> block is never closed with </think>"
    return _join(thoughts), body, ""


def _closed_thoughts(text: str) -> tuple[list[str], str]:
    """The closed think blocks of `text`, and `text` without them. Only the text up to the last
    `</think>` can hold one: searching beyond it would scan to the end from every unclosed
    `<think>`, time quadratic in a turn that repeats the tag."""
    last = text.rfind("</think>")
    if last < 0:
        return [], text
    cut = last + len("</think>")
    head = text[:cut]
    return _THINK.findall(head), _THINK.sub("", head) + text[cut:]


def _tool_turn(think: str, calls: list[str]) -> Turn:
    ignored = (
        (f"{len(calls) - 1} earlier tool call(s) in the turn were not run",)
        if len(calls) > 1
        else ()
    )
    try:
        call = parse_tool_call(calls[-1].strip())
    except ToolError as error:
        return Turn("invalid", think=think, problem=f"the tool call could not be read: {error}")
    return Turn("tool_call", think=think, name=call.name, arguments=call.arguments, ignored=ignored)


def _ignored_beside_answer(calls: int, answers: int) -> tuple[str, ...]:
    notes = []
    if calls:
        notes.append(f"{calls} tool call(s) beside the answer were not run")
    if answers > 1:
        notes.append(f"{answers - 1} earlier answer(s) in the turn were replaced by the last")
    return tuple(notes)


def _why_invalid(think: str, body: str, answers: list[str]) -> str:
    if answers:
        return "the answer is empty"
    if "<tool_call>" in body:
        return "the <tool_call> tag is never closed with </tool_call>"
    if "<answer>" in body:
        return "the <answer> tag is never closed with </answer>"
    if "<tool_call>" in think or "<answer>" in think:
        return "the tool call or answer is inside <think>; write it after </think>"
    if think and not body.strip():
        return "the turn has only thinking, with no tool call and no answer after it"
    return "the turn has neither a <tool_call> nor an <answer>"


def _salvage(body: str) -> str:
    _, opener, rest = body.rpartition("<answer>")
    return _clean(rest) if opener else ""


def _clean(text: str) -> str:
    return _STRAY.sub("", text).strip()


def _join(parts: list[str]) -> str:
    return "\n\n".join(part.strip() for part in parts if part.strip())
