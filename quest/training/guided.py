"""A path-guided teacher: SFT demonstrations for every task family, from each task's solution
path (quest.training.guided_path) rather than from rules for one kind of question.

The scripted researcher was written for natural questions and country records and solves
little else; the loop trains on comparisons, aggregations, chains and lists too. The teacher
knows the pages of the path and the sentences each is cited for, and walks there the way a
researcher could have, every action justified by what the trajectory has already seen:

- a search query is made only of words of the question and of earlier tool outputs: the words
  of a path sentence that are known by then (its subject once a page named it, the relation the
  question asks for), else the question's own words;
- a page is visited only once a search result listed its URL;
- the answer states a path sentence only where the visit's text supports it, cites that page,
  and commits to an answer only as far as what was read allows (guided_path.committed).

The agent loop shows each tool output cut to `max_tool_chars`, and in the loop's budgets a run
has four turns. So the teacher rehearses: it runs candidate calls through the same tools, cut
the same way (guided_seen.Scout), and makes the call whose shown output serves the path best:
the query that lists the page, the queries and pages that fit one output together, the visit
goal under which the shown text states the facts. Whether to search or to visit next is
planned over the turns left (`_plan`): searching first lists more pages for each visit to
pack, but a chain's next hop is only known once its page was read. A page whose shown text
states none of the facts is left out, as is a page no query lists: the demonstration then
lacks that fact and its reward says so. Rehearsing costs the trajectory nothing and the policy
never sees it: it sees the question, the calls and what they returned, as from any researcher.

Which demonstrations are kept is never the teacher's to say: collect scores each one with the
rubric reward and keeps those above the threshold.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quest.agent.budgets import Budgets
from quest.agent.policies import Policy, PolicyTurn
from quest.llm.types import Message
from quest.synthesis.facts import EXACT_ASK
from quest.synthesis.kgsynth import FRAMINGS
from quest.text.fold import fold
from quest.text.sentences import split_sentences
from quest.text.words import STOPWORDS, word_set
from quest.tools.search import MAX_QUERIES
from quest.tools.toolbox import Toolbox
from quest.tools.visit import MAX_URLS
from quest.training.evaluate import TaskPolicyFactory
from quest.training.guided_path import (
    NO_PATH,
    PathFact,
    SolutionPath,
    Step,
    committed,
    read_path,
    write_answer,
)
from quest.training.guided_seen import Scout, Seen, words_of
from quest.training.tasks import TrainingTask

MAX_QUERY_WORDS = 12
MAX_GOAL_WORDS = 30
PLAN_DEPTH = 4  # turns planned ahead: the loop's CPU budgets give a run four
# The question's instructions about the answer's form, and its framings: no words to search.
_FORM = ("Cite ", "Support each", EXACT_ASK.split("{", 1)[0].strip())
_FRAMINGS = sorted((f for fs in FRAMINGS.values() for f in fs if f), key=len, reverse=True)
_INSTRUCTIONS = word_set("start begin find give name identify report state list take also")
Score = tuple[bool, int, int]  # see GuidedTeacher._score


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, object]
    think: str

    def text(self) -> str:
        body = json.dumps({"name": self.name, "arguments": self.arguments}, ensure_ascii=False)
        return f"<think>\n{self.think}\n</think>\n<tool_call>\n{body}\n</tool_call>"


class GuidedTeacher:
    name = "guided"

    def __init__(self, path: SolutionPath, scout: Scout, *, max_turns: int | None = None) -> None:
        self.path, self.scout, self.max_turns = path, scout, max_turns

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        seen = Seen.read(messages)
        left = PLAN_DEPTH if self.max_turns is None else self.max_turns - seen.turns
        call = None if seen.final else self._plan(seen, min(left, PLAN_DEPTH))[1]
        return PolicyTurn(call.text() if call is not None else self._answer(seen))

    def _plan(self, seen: Seen, turns: int) -> tuple[Score, Call | None]:
        """The call that ends `turns` turns from now with the most of the path read (None:
        answering now does as well). Each call is followed by the best calls after it, on
        the outputs the tools would show."""
        best: tuple[Score, Call | None] = (self._score(seen), None)
        if turns <= 0:
            return best
        for call in (self._search(seen), self._visit(seen)):
            if call is None:
                continue
            after = seen.copy()
            after.absorb(self.scout.shown(call.name, call.arguments))
            score = self._plan(after, turns - 1)[0]
            if score > best[0]:
                best = (score, call)
        return best

    def _score(self, seen: Seen) -> Score:
        """Whether an answer can be committed to, then how far along the path the facts are
        read without a gap (a chain's later hops are worth little without its first), then
        how many are read."""
        cited = self.path.cited()
        read = seen.sources(cited)
        unread = [index for index, fact in enumerate(cited) if fact not in read]
        exact = committed(self.path, read, seen.pages.values())
        return bool(exact), unread[0] if unread else len(cited), len(read)

    def _unread(self, seen: Seen) -> list[PathFact]:
        read = seen.sources(self.path.cited())
        return [fact for fact in self.path.cited() if fact not in read]

    # visits --------------------------------------------------------------------------------
    def _visit(self, seen: Seen) -> Call | None:
        """Visit listed pages whose shown text states facts not read yet, as many in one call
        as the shown output keeps readable, the path's own pages first."""
        unread = self._unread(seen)
        order = [step.url for step in self.path.steps]
        listed = [url for url in seen.listed if url not in seen.pages]
        listed.sort(key=lambda url: order.index(url) if url in order else len(order))
        alone = {url: len(self._stated(seen, [url], unread)[0]) for url in listed}
        chosen: list[str] = []
        covered, goal = 0, ""
        for url in sorted((url for url in listed if alone[url]), key=lambda url: -alone[url]):
            if len(chosen) == MAX_URLS:
                break
            stated, trial_goal = self._stated(seen, [*chosen, url], unread)
            if len(stated) > covered:
                chosen, covered, goal = [*chosen, url], len(stated), trial_goal
        if not chosen:
            return None
        titles = ", ".join(f"'{seen.listed[url]}'" for url in chosen)
        think = f"The results list {titles}. Reading them for: {goal}."
        return Call("visit", {"url": chosen, "goal": goal}, think)

    def _stated(
        self, seen: Seen, urls: list[str], unread: list[PathFact]
    ) -> tuple[set[PathFact], str]:
        """The unread facts the shown output of one visit of `urls` states, under the better
        of two goals made of known words: the unread facts' own, or the question's."""
        best: tuple[set[PathFact], str] = (set(), "")
        for goal in _goals(seen, unread):
            ahead = Seen(seen.question, listed=seen.listed)
            ahead.absorb(self.scout.shown("visit", {"url": urls, "goal": goal}))
            stated = set(ahead.sources(unread))
            if len(stated) > len(best[0]):
                best = (stated, goal)
        return best

    # searches ------------------------------------------------------------------------------
    def _search(self, seen: Seen) -> Call | None:
        """Search for the pages of unread facts that no listed page states: for each, the
        first query of known words whose shown results list it; then as many of those
        queries in one call as its shown output lists pages for, or one query of them all."""
        unread = self._unread(seen)
        listed = [url for url in seen.listed if url not in seen.pages]
        coverable = set().union(*(self._stated(seen, [url], unread)[0] for url in listed))
        needed = set(unread) - coverable
        missing = [s for s in self.path.steps if s.url not in seen.listed and needed & set(s.facts)]
        wanted = {step.url for step in missing}
        found = [query for step in missing if (query := self._query_for(seen, step))]
        if not found:
            return self._discover(seen, missing)
        together = " ".join(_words(seen, missing))
        queries = max(
            (self._pack(found, wanted), [together]),
            key=lambda option: len(self.scout.listing(option) & wanted),
        )
        think = "Searching for " + "; ".join(f"'{query}'" for query in queries) + "."
        return Call("search", {"query": queries}, think)

    def _discover(self, seen: Seen, missing: list[Step]) -> Call | None:
        """When no query of known words lists a missing page (a lookup's country, a list's
        items: the question does not name them), a search with the question's words whose
        results name the most of what those pages are about, so that the next search can."""
        names = {fold(w) for s in missing for f in s.facts for w in words_of(f.text) if w.istitle()}
        unknown = names - seen.words - STOPWORDS
        asked = _asked(seen.question)
        best: tuple[int, str] = (0, "")
        for words in (seen.known(asked), seen.known(asked, figures=True)):
            query = " ".join(words)
            if not query:
                continue
            shown = set(fold(self.scout.shown("search", {"query": [query]})).split())
            if len(unknown & shown) > best[0]:
                best = (len(unknown & shown), query)
        if not best[0]:
            return None
        return Call("search", {"query": [best[1]]}, f"Searching for '{best[1]}'.")

    def _query_for(self, seen: Seen, step: Step) -> str:
        return next((q for q in _queries(seen, step) if step.url in self.scout.listing([q])), "")

    def _pack(self, queries: list[str], wanted: set[str]) -> list[str]:
        """The queries, in order, that list the most wanted pages in one shown output."""
        chosen = [queries[0]]
        covered = len(self.scout.listing(chosen) & wanted)
        for query in dict.fromkeys(queries[1:]):
            if len(chosen) == MAX_QUERIES:
                break
            shown = len(self.scout.listing([*chosen, query]) & wanted)
            if shown > covered:
                chosen, covered = [*chosen, query], shown
        return chosen

    # the answer ----------------------------------------------------------------------------
    def _answer(self, seen: Seen) -> str:
        read = seen.sources(self.path.cited())
        exact = committed(self.path, read, seen.pages.values())
        think = (
            f"{len(seen.pages)} pages read. Answering with what they state, each fact citing "
            "the page that states it."
        )
        answer = write_answer(self.path, read, exact)
        return f"<think>\n{think}\n</think>\n<answer>\n{answer}\n</answer>"


def _words(seen: Seen, steps: Sequence[Step]) -> list[str]:
    """The known words, figures left out, of the steps' facts."""
    return seen.known(" ".join(fact.text for step in steps for fact in step.facts))


def _queries(seen: Seen, step: Step) -> list[str]:
    """Queries of known words for a step, most specific first: all its facts' words, each
    name they hold with each of their other words, each name alone, the names with the
    question's words, the question's words."""
    own = _words(seen, [step])
    names = _names(seen, " ".join(fact.text for fact in step.facts))
    others = [word for word in own if not any(word in name.split() for name in names)]
    asked = seen.known(_asked(seen.question))
    options = [own, *([name, word] for name in names for word in others)]
    options += [[name] for name in names] + [[*names, *asked], asked]
    queries = (" ".join(words[:MAX_QUERY_WORDS]) for words in options if words)
    return list(dict.fromkeys(queries))


def _names(seen: Seen, text: str) -> list[str]:
    """The runs of known capitalised words in `text` ("Dandong Airport", "China")."""
    runs: list[list[str]] = [[]]
    for word in words_of(text):
        if word[:1].isupper() and seen.known(word):
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    return list(dict.fromkeys(" ".join(run) for run in runs if run))


def _goals(seen: Seen, facts: Sequence[PathFact]) -> list[str]:
    """Visit goals of known words, shortest first: the visit output repeats its goal for every
    page, so a short one leaves room for more pages. The facts' relation words (no names, no
    figures), their words with the names, the question's words."""
    own = seen.known(" ".join(fact.text for fact in facts), most=MAX_GOAL_WORDS)
    relation = [word for word in own if not word[:1].isupper()]
    asked = seen.known(_asked(seen.question), most=MAX_GOAL_WORDS)
    goals = (" ".join(words) for words in (relation, own, asked) if words)
    return list(dict.fromkeys(goals)) or [seen.question]


def _asked(question: str) -> str:
    """The question without its framing, its instructions about the answer's form and its
    instruction verbs: what it asks about."""
    for framing in _FRAMINGS:
        question = question.removeprefix(framing)
    kept = [s for s in split_sentences(question.strip()) if not s.startswith(_FORM)]
    return " ".join(w for w in " ".join(kept).split() if w.casefold() not in _INSTRUCTIONS)


def guided_teachers(
    records: Mapping[str, Mapping[str, Any]], toolbox: Toolbox, budgets: Budgets | None = None
) -> TaskPolicyFactory:
    """A factory of guided teachers for collect: each task's from its accepted record (by task
    id), rehearsing on `toolbox` with the budgets' tool output size and planning over their
    turns. A task without a record gets a teacher with no path, which answers at once."""
    budgets = budgets or Budgets()
    scout = Scout(toolbox, budgets.max_tool_chars)

    def teacher(task: TrainingTask) -> Policy:
        record = records.get(task.task_id)
        path = read_path(record) if record is not None else NO_PATH
        return GuidedTeacher(path, scout, max_turns=budgets.max_turns)

    return teacher
