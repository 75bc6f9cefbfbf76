"""Deterministic stand-ins for an LLM judge, named for what they are. They exist because the
rubric tests must run anywhere, without a model; they never stand in for a real judge's quality."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence

from quest.rubric.text import fold, key_tokens


class KeywordJudgeStandIn:
    """Says a claim holds when every content word of it appears in the text it was shown (the
    web page when one is given, else the answer). Records every prompt it receives."""

    name = "keyword-judge-stand-in"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        evidence, _, claim = prompt.rpartition("\nClaim: ")
        shown = (
            evidence.split("Web page ", 1)[1]
            if "Web page " in evidence
            else evidence.split("Answer:\n", 1)[-1]
        )
        words = set(fold(shown).split())
        result = all(token in words for token in key_tokens(claim))
        return json.dumps(
            {"reasoning": f"keywords {'found' if result else 'missing'}", "result": result}
        )


class ScriptedJudgeStandIn:
    """Replies with a fixed script, one reply per call (an Exception instance is raised)."""

    name = "scripted-judge-stand-in"

    def __init__(self, replies: Sequence[str | Exception]) -> None:
        self._replies: Iterator[str | Exception] = iter(replies)
        self.calls = 0

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        self.calls += 1
        reply = next(self._replies)
        if isinstance(reply, Exception):
            raise reply
        return reply


def verdict_json(result: bool) -> str:
    return json.dumps({"reasoning": "scripted", "result": result})
