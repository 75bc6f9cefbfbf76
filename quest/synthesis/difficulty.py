"""The difficulty stage: a task the lazy answer already solves teaches a researcher nothing.

The lazy answer searches the question once, as the agent's search tool would, and answers with
the first hit alone, citing it: its title, the snippet the results page shows, or the opening
sentence of its page. Each is scored with the task's real reward (quest.rubric.reward); when the
best earns TOP_HIT_MAX or more, the task is rejected, so that accepted tasks need reading past
the first result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from quest.rubric.documents import DocumentStore
from quest.rubric.judge import ChatClient
from quest.rubric.reward import answer_reward
from quest.rubric.score import CompiledTree
from quest.synthesis.model import Stage
from quest.text.sentences import split_sentences
from quest.tools import Toolbox
from quest.tools.protocols import Hit, SearchBackend
from quest.tools.search import MAX_QUERY_CHARS, SearchTool

TOP_HIT_MAX = 0.5  # a task whose top-hit answer earns this much is too easy to keep
NAME = "difficulty"
# "Burundi (GeoNames)", "Georgia (country)": the qualifier is not part of the name.
_QUALIFIER = re.compile(r"\s*\([^()]*\)$")


def search_of(toolbox: Toolbox) -> SearchBackend | None:
    """The backend behind the toolbox's `search` tool: the searches the agent makes."""
    tool = toolbox.tools.get("search")
    return tool.backend if isinstance(tool, SearchTool) else None


def top_hit_answers(hit: Hit, pages: DocumentStore) -> list[tuple[str, str]]:
    """(what it answers with, the answer) for the lazy answers from one hit, each citing it: its
    title as it stands; its title, then its snippet (what the results page shows) and the first
    sentence of its page, each ending with the title as the exact answer that QUEST's questions
    ask for."""
    title = " ".join(hit.title.split())
    name = _QUALIFIER.sub("", title) or title
    source, exact = f"\n\n[1]: {hit.url}", f"\n\nExact answer: {name}"
    page = pages.get(hit.url)
    opening = split_sentences(page.text if page is not None else hit.snippet)
    said = {
        "title, exact": name,
        "snippet": " ".join(hit.snippet.split()),
        "first sentence": opening[0] if opening else "",
    }
    return [
        ("title", f"**Answer:** {title} [1]{source}"),
        *((kind, f"**Answer:** {text} [1]{exact}{source}") for kind, text in said.items() if text),
    ]


def difficulty_stage(
    question: str,
    compiled: CompiledTree,
    pages: DocumentStore,
    search: SearchBackend | None,
    judge: ChatClient | None = None,
) -> Stage:
    """Rejects the task when an answer made of its question's first search hit earns at least
    TOP_HIT_MAX; records that reward and the hit either way."""
    if search is None:
        why = "not run: no search index to find the question's first hit with"
        return Stage(NAME, True, why, {"reward": None})
    hits = search.search(" ".join(question.split())[:MAX_QUERY_CHARS], 1)
    if not hits:
        return Stage(NAME, True, "the question's search finds nothing", {"reward": 0.0})
    hit = hits[0]
    scored = _scored(top_hit_answers(hit, pages), compiled, pages, judge)
    kind, reward = max(scored, key=lambda pair: pair[1])
    detail: dict[str, Any] = {
        "reward": reward,
        "answer": kind,
        "rewards": dict(scored),
        "hit": {"url": hit.url, "title": hit.title},
    }
    lazy = f"answering with the first search hit's {kind} ({hit.title[:120]}), cited,"
    if reward >= TOP_HIT_MAX:
        return Stage(NAME, False, f"too easy: {lazy} earns {reward:.3f}", detail)
    return Stage(NAME, True, f"{lazy} earns {reward:.3f} (under {TOP_HIT_MAX})", detail)


def _scored(
    answers: Sequence[tuple[str, str]],
    compiled: CompiledTree,
    pages: DocumentStore,
    judge: ChatClient | None,
) -> list[tuple[str, float]]:
    """Each answer's reward; one that cannot be scored (an undecided judge leaf) counts as 0."""
    scored = []
    for kind, answer in answers:
        value = answer_reward(compiled, answer, pages, judge).value
        scored.append((kind, 0.0 if value is None or math.isnan(value) else value))
    return scored
