"""The scripted policy: a deterministic, LLM-free researcher (DESIGN "Policy").

It reads only the conversation it is given: the question (with the RESEARCH STATE SUMMARY after
a context restart), its own earlier turns and the tool responses. It plans searches from the
question, reads the most promising unread results, keeps the sentences that answer the
question, follows leads and settles conflicting numbers. It counts the answer candidates the
evidence offers for each part of the question (research.answers), reads the page about the
leading candidate and searches to test it, and answers with a cited report once every part has
an answer two sources state (or nothing is left to try). Its turns are protocol text, so the
loop cannot tell it from a model.

Same conversation, same turn: the policy memoises its notebook for the conversation it last
saw, which only saves re-reading the history (each step costs the same at turn 400 as at 4).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from quest.agent.policies import PolicyTurn
from quest.agent.prompts import FINAL_MARKER, split_user_prompt
from quest.agent.research.focus import Focus, answer, research_focus, stated_parts
from quest.agent.research.notebook import Candidate, Notebook
from quest.agent.research.records import SelectionQuestion
from quest.agent.research.report import write_report
from quest.agent.research.selection import next_step
from quest.agent.research.shape import Shape
from quest.llm.types import Message

MAX_GOAL_CHARS = 900
PAGES_PER_VISIT = 3
RECORD_FAMILIES = 2
TOP_RESULTS = 2  # the first search's best results are read whatever the question names


@dataclass(frozen=True)
class Limits:
    max_steps: int = 14  # queries run + pages visited before it answers with what it has
    min_sources: int = 2  # sources that must state the answer directly
    queries_per_search: int = 2


class ScriptedPolicy:
    name = "scripted"

    def __init__(
        self, *, max_steps: int = 14, min_sources: int = 2, queries_per_search: int = 2
    ) -> None:
        self.limits = Limits(max_steps, min_sources, queries_per_search)
        self._seen: list[Message] = []  # the conversation the memoised notebook has read
        self._notebook: Notebook | None = None

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        selection = self._selection(messages)
        if selection is not None:
            return PolicyTurn(next_step(selection, messages).text())
        notebook = self._read(messages)
        final = messages[-1].get("content", "").startswith(FINAL_MARKER) if messages else False
        if final:
            return PolicyTurn(_answer(notebook, "the answer was asked for now"))
        return PolicyTurn(self._decide(notebook))

    def _selection(self, messages: Sequence[Message]) -> SelectionQuestion | None:
        """A question that selects countries by what their records state (research.records),
        asked afresh: a resumed run's state summary is read by the general research."""
        if len(messages) < 2:
            return None
        question, state = split_user_prompt(messages[1].get("content", ""))
        return SelectionQuestion.parse(question) if state is None else None

    def _read(self, messages: Sequence[Message]) -> Notebook:
        if len(messages) < 2:
            raise ValueError("the scripted policy needs a system and a user message")
        if not self._extends(messages) or self._notebook is None:
            question, state = split_user_prompt(messages[1].get("content", ""))
            self._notebook, self._seen = Notebook(question, state), list(messages[:2])
        for message in messages[len(self._seen) :]:
            self._notebook.absorb(message)
            self._seen.append(message)
        return self._notebook

    def _extends(self, messages: Sequence[Message]) -> bool:
        """Whether `messages` continues the conversation already read: checked on the prompt
        and the last message read, by identity, so the check costs O(1)."""
        seen = self._seen
        if not seen or len(messages) < len(seen):
            return False
        return all(messages[i] is seen[i] for i in (0, 1, len(seen) - 1))

    def _enough_sources(self, notebook: Notebook) -> bool:
        """The rule for a question whose answer is no named thing, number or year: enough
        sources state most of what it asks, and none disagree."""
        return len(notebook.strong_urls) >= self.limits.min_sources and not notebook.conflicts

    def _decide(self, notebook: Notebook) -> str:
        why = self._done(notebook)
        if why:
            return _answer(notebook, why)
        return self._research(notebook) or _answer(notebook, "nothing left to search or read")

    def _done(self, notebook: Notebook) -> str:
        """Why to answer now, or "" to keep researching."""
        limits, ledger = self.limits, notebook.ledger
        if notebook.steps() >= limits.max_steps:
            return f"{notebook.steps()} research steps taken, the most allowed"
        if _focus_pages(notebook) or _focus_lacks(notebook):
            return ""
        if ledger.all_settled(limits.min_sources):
            return "every part of the question has a confirmed answer"
        if not ledger.answers() and self._enough_sources(notebook):
            return f"{len(notebook.strong_urls)} sources state the answer"
        return ""

    def _research(self, notebook: Notebook) -> str:
        """The next tool call, most telling first: the pages about what the question names
        (research.focus), the page about a candidate answer, a search that tests one, the best
        unread result, then the planned searches."""
        limits = self.limits
        focused = self._focus_step(notebook)
        if focused:
            return focused
        page = notebook.next_answer_page(limits.min_sources)
        if page is not None:
            return _visit(notebook, page, "the page about a candidate answer")
        checks = notebook.next_checks(limits.queries_per_search)
        if checks:
            return _search(notebook, checks)
        candidate = notebook.next_candidate()
        if candidate is not None:
            return _visit(notebook, candidate, "the best unread result")
        queries = notebook.next_queries(limits.queries_per_search)
        return _search(notebook, queries) if queries else ""

    def _focus_step(self, notebook: Notebook) -> str:
        """Read the pages about what the question (or its bridge) names, then the other pages
        a figure or a statement is still lacking from, found by search if need be."""
        focus = research_focus(notebook.question.text, notebook.said)
        pages = _focus_pages(notebook)
        if pages:
            return _visit_pages(notebook, pages, focus.question)
        others = [url for name in focus.more if (url := notebook.other_page_about(name))]
        if others:
            return _visit_pages(notebook, others[:PAGES_PER_VISIT], focus.question)
        searches = _focus_searches(notebook, focus)
        if searches:
            return _search(notebook, searches[: self.limits.queries_per_search])
        return ""


def _plan_answers(notebook: Notebook) -> str:
    ledger = notebook.ledger
    found = [(part, ledger.best(index)) for index, part in enumerate(ledger.parts)]
    shown = [f"'{part.text}' -> {best.text if best else '?'}" for part, best in found]
    return "; ".join(shown)


def _plan(notebook: Notebook, next_step: str) -> str:
    terms = ", ".join(notebook.question.term_words) or "(none)"
    return (
        f"Looking for: {terms}. So far: {len(notebook.queries)} searches, "
        f"{len(notebook.visited)} pages visited, {len(notebook.strong_urls)} sources stating "
        f"the answer directly. Candidates: {_plan_answers(notebook)}. {next_step}"
    )


def _search(notebook: Notebook, queries: list[str]) -> str:
    intents = "; ".join(notebook.intent(q) for q in queries)
    return _call(_plan(notebook, f"Next: search ({intents})."), "search", {"query": queries})


def _visit(notebook: Notebook, page: Candidate, why: str) -> str:
    plan = _plan(notebook, f"Next: read '{page.title or page.url}', {why}.")
    goal = f"Find: {notebook.question.text}"[:MAX_GOAL_CHARS]
    return _call(plan, "visit", {"url": [page.url], "goal": goal})


def _focus_pages(notebook: Notebook) -> list[str]:
    """The unread pages about what the question (or its bridge) names."""
    focus = research_focus(notebook.question.text, notebook.said)
    found = [notebook.page_about(name) for name in focus.names]
    top = [url for url in notebook.first_results[:TOP_RESULTS] if url not in notebook.visited]
    return list(dict.fromkeys(url for url in [*found, *top] if url))[:PAGES_PER_VISIT]


def _focus_lacks(notebook: Notebook) -> bool:
    """Whether a comparison still lacks a figure that a page or search not yet tried could
    give."""
    focus = research_focus(notebook.question.text, notebook.said)
    if any(notebook.other_page_about(name) for name in focus.more):
        return True
    return bool(_focus_searches(notebook, focus))


def _focus_searches(notebook: Notebook, focus: Focus) -> list[str]:
    """Searches for a lacking figure not yet run: the name with what it is and the attribute,
    then the name with each family of record pages seen."""
    labels = notebook.record_labels()[:RECORD_FAMILIES]
    records = [f"{name} {label}" for name in focus.more for label in labels]
    # A name the results only use to place other things ("Padang, Indonesia") has its own
    # page drowned by theirs: searched as the country a gazetteer says it is.
    countries = [
        f"{name} country"
        for name in focus.names
        if notebook.page_about(name) is None and notebook.contains_others(name)
    ]
    return [q for q in [*countries, *focus.searches, *records] if q not in notebook.queries]


def _visit_pages(notebook: Notebook, urls: list[str], question: str) -> str:
    shown = ", ".join(f"'{notebook.titles.get(url, url)}'" for url in urls)
    plan = _plan(notebook, f"Next: read {shown}, the pages about what the question names.")
    # A resolved two-hop question loses the bridge's kind ("the country where ..."), which a
    # page's defining sentence states: the question as asked stays in the goal.
    asked = notebook.question.text
    goal = f"Find: {question}" + (f" ({asked})" if question != asked else "")
    goal = goal[:MAX_GOAL_CHARS]
    return _call(plan, "visit", {"url": urls, "goal": goal})


def _call(plan: str, name: str, arguments: dict[str, object]) -> str:
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<think>\n{plan}\n</think>\n<tool_call>\n{body}\n</tool_call>"


def _answer(notebook: Notebook, why: str) -> str:
    # A question of several parts is answered part by part from the trusted facts (research.
    # answers); a single question by what the pages read state (research.extract). A field a
    # record states of what the question names answers its part first (research.fields).
    single = len(notebook.ledger.parts) == 1 or Shape(notebook.question.text).comparison is not None
    retrieved = notebook.first_results[:TOP_RESULTS]
    question, said = notebook.question.text, notebook.said
    direct = answer(question, said, retrieved) if single else None
    stated = {} if single else stated_parts(question, said)
    report = write_report(
        question, notebook.to_state(), titles=notebook.titles, direct=direct, stated=stated
    )
    plan = _plan(notebook, f"Answering: {why}.")
    return f"<think>\n{plan}\n</think>\n<answer>\n{report}\n</answer>"
