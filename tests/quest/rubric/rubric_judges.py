"""Deterministic stand-ins for an LLM judge, named for what they are. They exist because the
rubric tests must run anywhere, without a model; they never stand in for a real judge's quality."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence

from quest.text.fold import fold
from quest.text.words import key_tokens


def _prompt_parts(prompt: str) -> tuple[str, list[str], str]:
    """(answer, source passages, claim) of a claim_messages() prompt."""
    body, _, claim = prompt.rpartition("\n\nClaim: ")
    answer = body.split("Answer:\n", 1)[-1]
    answer, *sources = re.split(r"\n\nSource \[\d+\] ", answer)
    answer = answer.split("\n\nSources: none", 1)[0]
    passages = [source.split("\n", 2)[-1] for source in sources]
    return answer, passages, claim


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+|\n+", text) if part.strip()]


def _best(text: str, words: set[str]) -> tuple[str, int]:
    scored = [(s, len(words & set(fold(s).split()))) for s in _sentences(text)]
    return max(scored, key=lambda pair: pair[1], default=("", 0))


class KeywordJudgeStandIn:
    """Says a claim holds when every content word of it appears in one sentence of a source
    passage (of the answer when no source is shown), and quotes that sentence and the answer's
    sentence sharing most words with the claim. Records every prompt it receives."""

    name = "keyword-judge-stand-in"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        answer, passages, claim = _prompt_parts(prompt)
        words = set(key_tokens(claim))
        answer_quote, _ = _best(answer, words)
        source_quote, hits = max(
            (_best(p, words) for p in passages or [answer]), key=lambda pair: pair[1]
        )
        result = bool(words) and hits == len(words)
        return json.dumps(
            {
                "reasoning": f"keywords {'found' if result else 'missing'}",
                "answer_quote": answer_quote,
                "source_quote": source_quote if passages else "",
                "result": result,
            }
        )


class GullibleJudgeStandIn:
    """Says every claim holds, as a judge fooled by a "master key" answer does, and quotes the
    first sentence of the answer and of the first passage as its evidence."""

    name = "gullible-judge-stand-in"

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str:
        self.calls += 1
        answer, passages, _ = _prompt_parts(messages[-1]["content"])
        first = _sentences(answer)[:1] or [answer]
        source = _sentences(passages[0])[:1] if passages else [""]
        return json.dumps(
            {
                "reasoning": "looks right",
                "answer_quote": first[0],
                "source_quote": source[0],
                "result": True,
            }
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


def verdict_json(result: bool, answer_quote: str = "", source_quote: str = "") -> str:
    return json.dumps(
        {
            "reasoning": "scripted",
            "answer_quote": answer_quote,
            "source_quote": source_quote,
            "result": result,
        }
    )
