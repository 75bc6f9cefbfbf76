"""The LLM judge for `judge` leaves and citations (QUEST-SPEC §1.3), minus QUEST's known faults:
an unreachable page is *unsupported* without a judge call (never sent as the text "None"), and a
judge that fails yields an `error` verdict, never a failed criterion.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from quest.rubric.documents import Document, DocumentStore
from quest.rubric.verdict import MAX_REASONING, Evidence, LeafVerdict

TRIALS = 3
MAX_ANSWER_CHARS = 20_000
MAX_PAGE_CHARS = 12_000
MAX_TASK_CHARS = 4_000

SYSTEM_PROMPT = (
    "You verify one claim about an answer to a research task. Judge only the stated claim, using "
    "only the text you are given; do not use outside knowledge. Be lenient on name variants, "
    "abbreviations and rounding (66.7 may be written 67). When a web page is given, the claim is "
    "supported only if that page states it; an irrelevant page means unsupported. Reply with JSON "
    'only: {"reasoning": "<one or two sentences>", "result": true or false}.'
)


class ChatClient(Protocol):
    """Any chat-completion backend: messages are {"role", "content"} mappings."""

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str: ...


@dataclass(frozen=True)
class Trial:
    result: bool | None  # None: the call failed or the reply could not be read
    reasoning: str


@dataclass(frozen=True)
class Ruling:
    result: bool | None  # None: no two trials agreed
    reasoning: str
    calls: int


def judge_name(client: object) -> str:
    name = getattr(client, "name", None)
    return name if isinstance(name, str) and name else type(client).__name__


def parse_reply(reply: str) -> Trial:
    """`{"reasoning": str, "result": bool}`, possibly fenced or surrounded by prose."""
    data = json_object(reply)
    if data is None:
        return Trial(None, f"unparseable judge reply: {reply[:120]!r}")
    result = _as_bool(data.get("result"))
    reasoning = data.get("reasoning")
    text = reasoning[:MAX_REASONING] if isinstance(reasoning, str) else ""
    if result is None:
        return Trial(None, f"judge reply has no true/false result: {reply[:120]!r}")
    return Trial(result, text)


def json_object(reply: str) -> dict[str, object] | None:
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(reply[start : end + 1])
    except (ValueError, RecursionError):
        match = re.search(r'"result"\s*:\s*(true|false)', reply, re.IGNORECASE)
        return {"result": match[1].lower() == "true"} if match else None
    return data if isinstance(data, dict) else None


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "pass", "supported"):
            return True
        if lowered in ("false", "no", "fail", "unsupported"):
            return False
    return None


def majority(
    client: ChatClient, messages: Sequence[Mapping[str, str]], trials: int = TRIALS
) -> Ruling:
    """Up to `trials` calls; stops as soon as a majority agrees (2 of 3 by default)."""
    needed = trials // 2 + 1
    votes: dict[bool, list[str]] = {True: [], False: []}
    problems: list[str] = []
    for call in range(1, trials + 1):
        trial = _trial(client, messages)
        if trial.result is None:
            problems.append(trial.reasoning)
        else:
            votes[trial.result].append(trial.reasoning)
            if len(votes[trial.result]) >= needed:
                return Ruling(trial.result, votes[trial.result][0], call)
    detail = "; ".join(problems[:2]) or "trials disagreed"
    return Ruling(None, f"no {needed} of {trials} judge trials agreed ({detail})", trials)


def _trial(client: ChatClient, messages: Sequence[Mapping[str, str]]) -> Trial:
    try:
        reply = client.chat(messages)
    except Exception as exc:  # any backend failure is an undecided trial, never a crash
        return Trial(None, f"judge call failed: {type(exc).__name__}: {str(exc)[:200]}")
    if not isinstance(reply, str):
        return Trial(None, "judge returned no text")
    return parse_reply(reply)


def claim_messages(
    claim: str, *, task: str, answer: str, page: Document | None
) -> list[dict[str, str]]:
    parts = [f"Task:\n{task[:MAX_TASK_CHARS]}", f"Answer:\n{answer[:MAX_ANSWER_CHARS]}"]
    if page is not None:
        parts.append(f"Web page {page.url}\nTitle: {page.title}\n{page.text[:MAX_PAGE_CHARS]}")
        question = "Does the web page support this claim about the answer?"
    else:
        question = "Is this claim about the answer true, judging from the answer alone?"
    parts.append(f"{question}\nClaim: {claim}")
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


@dataclass
class ClaimJudge:
    """Routes a claim as QUEST does: no sources -> task + answer only; sources -> each page,
    passing if any page supports it."""

    client: ChatClient
    store: DocumentStore | None
    trials: int = TRIALS
    calls: int = 0

    def verdict(self, claim: str, *, task: str, answer: str, sources: Sequence[str]) -> LeafVerdict:
        name = judge_name(self.client)
        if not sources:
            ruling = self._ask(claim_messages(claim, task=task, answer=answer, page=None))
            return _verdict(ruling, Evidence(), name)
        if self.store is None:
            return LeafVerdict(
                "error", reasoning="sources given but no document store configured", judge=name
            )
        return self._from_pages(claim, task, answer, sources, name)

    def _from_pages(
        self, claim: str, task: str, answer: str, sources: Sequence[str], name: str
    ) -> LeafVerdict:
        assert self.store is not None
        unreachable: list[str] = []
        undecided: list[str] = []
        refusals: list[str] = []
        for url in sources:
            page = self.store.get(url)
            if page is None:
                unreachable.append(url)
                continue
            ruling = self._ask(claim_messages(claim, task=task, answer=answer, page=page))
            if ruling.result:
                return _verdict(ruling, Evidence(url=url), name)
            (undecided if ruling.result is None else refusals).append(f"{url}: {ruling.reasoning}")
        if undecided:
            return LeafVerdict("error", reasoning="; ".join(undecided)[:MAX_REASONING], judge=name)
        notes = refusals + [f"{url}: page unreachable, so unsupported" for url in unreachable]
        return LeafVerdict("fail", reasoning="; ".join(notes)[:MAX_REASONING], judge=name)

    def _ask(self, messages: list[dict[str, str]]) -> Ruling:
        ruling = majority(self.client, messages, self.trials)
        self.calls += ruling.calls
        return ruling


def _verdict(ruling: Ruling, evidence: Evidence, name: str) -> LeafVerdict:
    if ruling.result is None:
        return LeafVerdict("error", evidence, ruling.reasoning, name)
    return LeafVerdict("pass" if ruling.result else "fail", evidence, ruling.reasoning, name)
