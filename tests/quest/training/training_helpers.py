"""Helpers for the training-dataset tests: a small real corpus with a BM25 index, gated task
records whose trees the real rubric reward scores without a judge, and real rollouts of the
scripted agent over the corpus, with budgets small enough that every run condenses several
times (multi-session trajectories and condenser pairs)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from quest.agent import Budgets, PolicyTurn, RunResult, ScriptedPolicy, run_agent
from quest.corpus import Document, corpus_write
from quest.llm.types import Message
from quest.search.indexing import bm25_build
from quest.tools import Toolbox
from quest.training import rollout_records

CANBERRA = "https://en.wikipedia.org/wiki/Canberra"
PARIS = "https://en.wikipedia.org/wiki/Paris"
AUSTRALIA = "What is the capital city of Australia?"
FRANCE = "What is the capital city of France?"
# Small enough that the context restarts after most tool turns.
SMALL = Budgets(condense_at_tokens=600)

DOCS = [
    (CANBERRA, "Canberra", "wikipedia",
     "Canberra is the capital city of Australia. Lake Burley Griffin lies at its centre."),
    ("https://www.geonames.org/2172517", "Canberra, Australia (GeoNames)", "geonames",
     "Canberra is a city in Australia. It is the capital of Australia."),
    ("https://en.wikipedia.org/wiki/Sydney", "Sydney", "wikipedia",
     "Sydney is the largest city in Australia. It is the capital of New South Wales."),
    ("https://en.wikipedia.org/wiki/Hobart", "Hobart", "wikipedia",
     "Hobart is the capital of Tasmania, an island state of Australia."),
    (PARIS, "Paris", "wikipedia",
     "Paris is the capital city of France, on the river Seine."),
    ("https://www.geonames.org/2988507", "Paris, France (GeoNames)", "geonames",
     "Paris is a city in France. It is the capital of France."),
    ("https://en.wikipedia.org/wiki/Lyon", "Lyon", "wikipedia",
     "Lyon is the third-largest city of France, at the confluence of the Rhone and the Saone."),
]  # fmt: skip


def build_corpus(folder: Path) -> Path:
    documents = [
        Document(url=u, title=t, text=x, source=s, licence="test", topic="", fetched_at="2026")
        for u, t, s, x in DOCS
    ]
    corpus_write(folder, documents)
    bm25_build(folder)
    return folder


def flat_tree(question: str, leaves: list[dict[str, Any]]) -> dict[str, Any]:
    """Canonical JSON: a parallel root over `leaves`."""
    root = {"id": "root", "description": question, "critical": False, "strategy": "parallel",
            "children": leaves}  # fmt: skip
    return {"format": "questweb.rubric/1", "scoring": "quest", "task_description": question,
            "root": root}  # fmt: skip


def capital_tree(question: str, city: str, *, pages: bool = False) -> dict[str, Any]:
    """The answer names `city` as the capital (critical), and it cites a page (`pages`: a page
    it cites states that `city` is the capital, which needs the corpus)."""
    cited: dict[str, Any] = {"kind": "cites_url"}
    if pages:
        cited = {"kind": "source_supports", "value": city}
    return flat_tree(question, [
        {"id": "names_city", "description": f"The answer names {city} as the capital",
         "critical": True, "check": {"kind": "mentions", "value": city, "context": ["capital"]}},
        {"id": "cited", "description": "The answer cites its sources", "critical": False,
         "check": cited},
    ])  # fmt: skip


def judged_tree(question: str) -> dict[str, Any]:
    """A tree only an LLM judge can decide."""
    return flat_tree(question, [
        {"id": "well_argued", "description": "The answer explains why the capital was chosen",
         "critical": False, "check": {"kind": "judge", "claim": "The answer explains the choice"}},
    ])  # fmt: skip


def task(task_id: str, question: str, rubric: dict[str, Any], **extra: str) -> dict[str, Any]:
    return {"task_id": task_id, "question": question, "rubric": rubric, **extra}


TASKS = [
    task("australia", AUSTRALIA, capital_tree(AUSTRALIA, "Canberra"), category="Travel"),
    task("france", FRANCE, capital_tree(FRANCE, "Paris"), type="objective"),
    # Same question, a tree that wants another city: the agent's answer scores 0 on it.
    task("australia-melbourne", AUSTRALIA, capital_tree(AUSTRALIA, "Melbourne")),
    task("judged", AUSTRALIA, judged_tree(AUSTRALIA)),
]


def write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def scripted_run(toolbox: Toolbox, question: str, rollout_id: str) -> RunResult:
    return run_agent(
        question, policy=ScriptedPolicy(), toolbox=toolbox, budgets=SMALL, rollout_id=rollout_id
    )


def rollout_file(path: Path, runs: Sequence[tuple[RunResult, dict[str, Any]]]) -> Path:
    """Each run with its header (task id, group id, reward) as the collect job writes them."""
    records = [record for result, header in runs for record in rollout_records(result, **header)]
    return write_jsonl(path, records)


class SlipsOnce:
    """The scripted policy, except that its first turn breaks the protocol: the loop answers
    it with a reminder. (No real model can be made to slip on demand.)"""

    name = "scripted-slipping-once"

    def __init__(self) -> None:
        self.inner = ScriptedPolicy()
        self.slipped = False

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        if not self.slipped:
            self.slipped = True
            return PolicyTurn("I believe the capital is Canberra.")
        return self.inner.next_turn(messages)


class RecordingScriptedPolicy:
    """The scripted policy, noting every user message it is shown (the prompt, tool responses,
    reminders): what the tests compare with what a recorded trajectory holds."""

    name = "scripted-recording"

    def __init__(self, seen: set[str]) -> None:
        self.inner = ScriptedPolicy()
        self.seen = seen

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        self.seen.update(m["content"] for m in messages if m["role"] == "user")
        return self.inner.next_turn(messages)


class RejectingJudgeStandIn:
    """Stands in for an LLM judge (none runs in these tests) and finds that no claim holds: a
    judge leaf is then decided, as failed, instead of leaving its task dropped."""

    name = "rejecting-judge-stand-in"

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: Sequence[Message]) -> str:
        self.calls += 1
        return '{"reasoning": "not shown", "answer_quote": "", "source_quote": "", "result": false}'
