"""A research notebook: what a researcher who reads only the question and the tool responses
knows at a point of a run. It is filled one message at a time (O(1) work per message, so a long
history costs nothing extra per step), can start from a condensed state, and writes one back.

The scripted policy decides its next step from it; the rule condenser turns it into a dr_state.
"""

from __future__ import annotations

import heapq
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from quest.agent.prompts import unwrap_tool_response
from quest.agent.research.answers import Ledger
from quest.agent.research.described import noun_page
from quest.agent.research.extract import person_resolved
from quest.agent.research.facts import TRUSTED, UNTRUSTED, Evidence, fact_id, sort_evidence
from quest.agent.research.figures import Figure, disagree, figures
from quest.agent.research.question import Match, Question
from quest.agent.research.reading import (
    PageRead,
    Result,
    full_name_of,
    page_subject,
    page_title,
    read_search,
    read_visit,
    resolve_subject,
    title_label,
)
from quest.agent.research.tallies import Said
from quest.agent.state import DRState, Fact, Query, Source
from quest.llm.types import Message
from quest.protocol.calls import string_list
from quest.protocol.results import ToolError
from quest.protocol.turns import parse_turn
from quest.text.sentences import split_sentences

SEARCH_TOOLS = ("search", "google_scholar")
CANDIDATES_PER_QUERY = 3  # unread results worth reading, per query
EVIDENCE_PER_PAGE = 4  # and one more for each further part of the question
CANDIDATE_PAGE_BONUS = 1.0  # a result about a candidate answer is read before others
MAX_EVIDENCE = 300
MAX_OPEN_LEADS = 20  # uncertain items written to the state
NOTE_CHARS = 240
MAX_VALUES_PER_ATTRIBUTE = 20  # enough to see a clash; keeps each check O(1)
_LABEL_FREE = re.compile(r"\s*\([^()]*\)\s*$")
# A page's provenance line ("Source: GeoNames record 2172517."): where the page came from,
# no fact about its subject, so never evidence or a lead.
_PROVENANCE = re.compile(r"Source: ")
MIN_RECORD_TITLES = 1  # a qualifier seen once in a result title may name a family of records
UNREAD = "could not be read"
GAZETTEERS = frozenset({"GeoNames"})  # record pages: a place's figures, not its description


@dataclass(frozen=True)
class Candidate:
    url: str
    title: str
    snippet: str
    score: float


class Notebook:
    def __init__(self, question: str, state: DRState | None = None) -> None:
        self.question = Question(question)
        self.queries: dict[str, str] = {}  # query run -> intent
        self.visited: dict[str, str] = {}  # url -> note
        self.titles: dict[str, str] = {}
        self.evidence: list[Evidence] = []
        self.strong_urls: set[str] = set()
        self.candidates: dict[str, Candidate] = {}
        self.conflicts: set[frozenset[str]] = set()
        self._heap: list[tuple[float, int, str]] = []
        self._intents: dict[str, str] = {}
        self._planned: deque[str] = deque()
        self._followups: deque[str] = deque()
        self._checks: deque[str] = deque()  # searches that test a candidate answer
        self._pages_about: dict[str, list[str]] = {}  # page subject (folded) -> result urls
        self.ledger = Ledger(self.question)
        self._seen_claims: set[tuple[str, str]] = set()
        self._by_attribute: dict[frozenset[str], list[tuple[tuple[Figure, ...], str]]] = {}
        self._pending: tuple[str, Mapping[str, object]] | None = None
        self._pages: dict[str, tuple[str, str]] = {}  # url -> (what was read, its subject)
        self.said: list[Said] = []  # every sentence of the pages read, for research.extract
        self._url_prefix = ""  # how result addresses are made from titles, once seen
        self.first_results: list[str] = []  # the first search's result addresses, in order
        for query, intent in self.question.plan():
            self._plan(query, intent, self._planned)
        if state is not None:
            self._seed(state)

    # -- filling ----------------------------------------------------------------------------
    def absorb(self, message: Message) -> None:
        role, content = message.get("role", ""), message.get("content", "")
        if role == "assistant":
            self._note_call(content)
            return
        text = unwrap_tool_response(content) if role == "user" else None
        if text is not None and self._pending is not None:
            name, _ = self._pending
            self._pending = None
            if name in SEARCH_TOOLS:
                self._add_results(read_search(text))
            elif name == "visit":
                self._add_pages(read_visit(text))

    def _note_call(self, content: str) -> None:
        turn = parse_turn(content)
        if turn.kind != "tool_call":
            return
        self._pending = (turn.name, turn.arguments)
        key = "query" if turn.name in SEARCH_TOOLS else "url" if turn.name == "visit" else ""
        for value in argument_strings(turn.arguments, key) if key else []:
            if key == "query":
                self.queries.setdefault(value, self._intents.get(value, "a search the agent chose"))
            else:
                self.visited.setdefault(value, UNREAD)

    def _add_results(self, results: list[Result]) -> None:
        by_query: dict[str, int] = {}
        if not self.first_results and results:
            # Each query's best results first: "1. of the first query, 1. of the second, ..."
            ordered = sorted(results, key=lambda r: r.rank)
            self.first_results = list(dict.fromkeys(r.url for r in ordered))
        for result in results:
            self.titles.setdefault(result.url, result.title)
            self._learn_addresses(result)
            if result.url in self.visited or result.url in self.candidates:
                continue
            match = self.question.match(f"{result.title} {result.snippet}")
            if (
                not (match.relevant or match.entity_hits)
                or by_query.get(result.query, 0) >= CANDIDATES_PER_QUERY
            ):
                continue
            by_query[result.query] = by_query.get(result.query, 0) + 1
            score = match.score + (CANDIDATE_PAGE_BONUS if self._about_answer(result) else 0.0)
            self._add_candidate(Candidate(result.url, result.title, result.snippet, score))

    def _learn_addresses(self, result: Result) -> None:
        """Results whose address ends in their title ("https://.../wiki/Mount_Everest") show
        where the page about any other name would be."""
        tail = "_".join(result.title.split())
        if not self._url_prefix and " (" not in result.title and result.url.endswith(f"/{tail}"):
            self._url_prefix = result.url[: -len(tail)]

    def _about_answer(self, result: Result) -> bool:
        """Whether the result is the page about a candidate answer or about what the
        question names: such a page states its subject's facts in full."""
        subject = page_subject(result.title).casefold()
        bests = (self.ledger.best(index) for index in range(len(self.ledger.parts)))
        named = {entity.casefold() for entity in self.question.entities}
        return subject in named or any(
            b is not None and b.text.casefold() == subject for b in bests
        )

    def _add_candidate(self, candidate: Candidate) -> None:
        self.candidates[candidate.url] = candidate
        about = page_subject(candidate.title).casefold()
        self._pages_about.setdefault(about, []).append(candidate.url)
        heapq.heappush(self._heap, (-candidate.score, len(self.candidates), candidate.url))

    def _add_pages(self, pages: list[PageRead]) -> None:
        for page in pages:
            if page.title:
                self.titles[page.url] = page.title
            summary = " ".join(page.summary.split())
            self.visited[page.url] = summary[:NOTE_CHARS] or "read; nothing on the goal"
            self._remember(page)
            kept = self._keep(page)
            if kept and page.url not in self.strong_urls:
                self._follow(kept[0])

    def _remember(self, page: PageRead) -> None:
        subject = page_subject(page.title)
        for paragraph in page.evidence.split("\n\n"):
            for sentence in self._sentences(paragraph, subject):
                resolved = person_resolved(sentence, subject)
                if resolved:
                    self.said.append(Said(resolved, page.url, subject))

    @staticmethod
    def _sentences(paragraph: str, subject: str) -> list[str]:
        """The paragraph's sentences, each about the page's subject by name where it opens on
        a pronoun; a short description is written out as one or two sentences."""
        return [
            sentence
            for raw in split_sentences(paragraph)
            if not _PROVENANCE.match(raw)
            for sentence in split_sentences(resolve_subject(raw, subject))
        ]

    def _keep(self, page: PageRead) -> list[str]:
        """Keeps the page's best sentences; read again when the page turns out to be about
        the main answer, for what the other parts ask of it."""
        subject, before = page_subject(page.title), self.ledger.subject
        self._pages[page.url] = (page.evidence, subject)
        kept = self._best_sentences(page.evidence, subject)
        for claim in kept:
            self._add_evidence(Evidence(claim, page.url))
        if self.ledger.subject != before:
            self._reread_subject_pages()
        return kept

    def _reread_subject_pages(self) -> None:
        """Every page read so far about the new main answer, read again for what the other
        parts ask of it: the page about Brazil, read while the answer was still open, states
        its capital."""
        for url, (evidence, subject) in list(self._pages.items()):
            if self.ledger.on_subject_page(subject):
                for claim in self._best_sentences(evidence, subject):
                    self._add_evidence(Evidence(claim, url))

    def _best_sentences(self, evidence: str, subject: str) -> list[str]:
        """The sentences that best answer the question or one of its parts, each with an
        opening pronoun replaced by the page's subject. On the page about the main answer
        every sentence speaks of it, named or not."""
        implied = subject if self.ledger.on_subject_page(subject) else ""
        noun = noun_page(self.question, subject)  # the page about "burn": each use is relevant
        found: list[tuple[float, int, str]] = []
        for paragraph in evidence.split("\n\n"):
            for sentence in self._sentences(paragraph, subject):
                matches = self._matches(f"{sentence} {implied}")
                match = max(matches, key=lambda m: (m.relevant, m.score))
                if match.relevant or (noun and noun in match.matched):
                    found.append((-match.score, len(found), sentence))
        keep = EVIDENCE_PER_PAGE + len(self.ledger.parts) - 1
        return [sentence for _, _, sentence in sorted(found)[:keep]]

    def _matches(self, sentence: str) -> list[Match]:
        asks = [self.ledger.ask(i) for i in range(len(self.ledger.parts))]
        return [self.question.match(sentence), *(ask.match(sentence) for ask in asks)]

    def _add_evidence(self, item: Evidence) -> None:
        key = (" ".join(item.claim.casefold().split()), item.url)
        if key in self._seen_claims or len(self.evidence) >= MAX_EVIDENCE:
            return
        self._seen_claims.add(key)
        self.evidence.append(item)
        if item.fixed != UNTRUSTED:
            self._check_answers(
                self.ledger.add(item.claim, item.url, self.titles.get(item.url, ""))
            )
        match = self.question.match(item.claim)
        if match.strong and item.fixed != UNTRUSTED:
            self.strong_urls.add(item.url)
        self._check_conflict(
            match.matched, figures(item.claim, leave_out=self.question.numbers), item
        )

    def _check_conflict(
        self, attribute: frozenset[str], values: tuple[Figure, ...], item: Evidence
    ) -> None:
        """Different figures (not merely rounded differently) for the same attribute from
        another source: plan a search to settle it (checked against earlier claims of that
        attribute only)."""
        if len(attribute) < 2 or not values:
            return
        earlier = self._by_attribute.setdefault(attribute, [])
        clash = any(disagree(values, other) and url != item.url for other, url in earlier)
        if len(earlier) < MAX_VALUES_PER_ATTRIBUTE:
            earlier.append((values, item.url))
        if clash and attribute not in self.conflicts:
            self.conflicts.add(attribute)
            query = " ".join(
                [*self.question.entities[:1], *sorted(attribute - self.question.entity_terms)]
            )
            self._plan(query, "settle conflicting numbers between sources", self._followups)

    def _check_answers(self, changed: list[int]) -> None:
        """Plan a search that tests each new best candidate, and, once the main answer is
        known, one for each part that asks about it."""
        ledger = self.ledger
        for index in changed:
            part, best = ledger.parts[index], ledger.best(index)
            words = " ".join(ledger.ask(index).attribute_words[:4])
            if part.refers and ledger.subject:
                self._plan(f"{ledger.subject} {words}", f"ask '{part.text}'", self._checks)
            if best is not None and index == 0 and not ledger.settled(index, 2):
                self._plan(f"{best.text} {words}", f"check {best.text} as the answer", self._checks)

    def _follow(self, claim: str) -> None:
        if self.question.match(claim).strong:
            return
        query, intent = self.question.followup(claim)
        self._plan(query, intent, self._followups)

    def _plan(self, query: str, intent: str, queue: deque[str]) -> None:
        if query and query not in self._intents and query not in self.queries:
            self._intents[query] = intent
            queue.append(query)

    # -- seeding from a condensed state -------------------------------------------------------
    def _seed(self, state: DRState) -> None:
        self.queries.update((q.q, q.intent) for q in state.search_queries)
        for source in state.visited_sources:
            self.visited[source.url] = source.note
            title = page_title(source.note)
            if title:
                self.titles.setdefault(source.url, title)
        for fact in state.trusted:
            self._seed_fact(fact, TRUSTED)
        for fact in state.untrusted:
            self._seed_fact(fact, UNTRUSTED)
        for fact in state.uncertain:
            self._seed_uncertain(fact)

    def _seed_fact(self, fact: Fact, standing: str) -> None:
        for url in fact.sources or ("",):
            self._add_evidence(Evidence(fact.claim, url, fixed=standing, fact_id=fact.id))
            if standing == TRUSTED:  # what a page said, for the direct answer after a restart
                self.said.append(Said(fact.claim, url, page_subject(self.titles.get(url, ""))))

    def _seed_uncertain(self, fact: Fact) -> None:
        verb, _, target = fact.need.partition(" ")
        if verb == "visit" and target not in self.visited:
            score = self.question.match(fact.claim).score
            self._add_candidate(Candidate(target, "", fact.claim, score))
            return
        for url in fact.sources:
            self._add_evidence(Evidence(fact.claim, url, fact_id=fact.id))
        if verb == "search":
            self._plan(target, fact.reason or "an open lead", self._followups)

    # -- reading back ---------------------------------------------------------------------------
    def next_answer_page(self, min_sources: int) -> Candidate | None:
        """An unread result about the best candidate answer of a part that is not settled:
        the page about an answer is where it is most likely stated in full."""
        ledger = self.ledger
        for index in range(len(ledger.parts)):
            best = ledger.best(index)
            if best is None or ledger.settled(index, min_sources):
                continue
            for url in self._pages_about.get(best.text.casefold(), ()):
                if url not in self.visited:
                    return self.candidates[url]
        return None

    def other_page_about(self, name: str) -> str | None:
        """An unread result about `name` under any qualifier ("Brazil (GeoNames)")."""
        key = _fold(name)
        return next(
            (
                url
                for url, title in self.titles.items()
                if url not in self.visited
                and (_fold(title) == key or _fold(_LABEL_FREE.sub("", title)) == key)
            ),
            None,
        )

    def contains_others(self, name: str) -> bool:
        """Whether result titles name `name` as where other things are ("Padang, Indonesia
        (GeoNames)"): a gazetteer qualifies a place with its country."""
        key = _fold(name)
        return any(
            title_label(title) in GAZETTEERS
            and _fold(_LABEL_FREE.sub("", title)).endswith(key)
            and _fold(page_subject(title)) != key
            for title in self.titles.values()
        )

    def record_labels(self) -> list[str]:
        """Qualifiers that several result titles carry ("GeoNames" in "Lima, Peru
        (GeoNames)"): a family of record pages, which searching a name with finds."""
        counts: dict[str, int] = {}
        for title in self.titles.values():
            label = title_label(title)
            if label and not any(c.isdigit() for c in label):
                counts[label] = counts.get(label, 0) + 1
        ranked = sorted(counts, key=lambda label: (-counts[label], label))
        return [label for label in ranked if counts[label] >= MIN_RECORD_TITLES]

    def page_about(self, name: str) -> str | None:
        """The address of the page about `name` to read next: a result titled with the name
        (or the name with a qualifier, "Mercury (planet)"), else where its page would be, else
        a result titled with a full name that ends in it ("Ludwig van Beethoven" for
        "Beethoven"); None once such a page was read, or when there is nowhere to look."""
        key = _fold(name)
        titled = [
            url
            for url, title in self.titles.items()
            if _fold(title) == key
            or (_fold(page_subject(title)) == key and title_label(title) not in GAZETTEERS)
        ]
        guessed = f"{self._url_prefix}{'_'.join(name.split())}" if self._url_prefix else ""
        full = [
            url
            for url, title in self.titles.items()
            if full_name_of(title, name) and url not in titled
        ]
        exact = [url for url in titled if _fold(self.titles[url]) == key]
        places = [url for url in dict.fromkeys([*exact, *titled, guessed, *full]) if url]
        if any(self.visited.get(url, UNREAD) != UNREAD for url in places):
            return None
        if guessed in self.visited and not full:
            return None
        return next((url for url in places if url not in self.visited), None)

    def next_candidate(self) -> Candidate | None:
        """The best unread result. Read-only apart from dropping stale heap entries, so asking
        twice gives the same answer."""
        while self._heap and self._heap[0][2] in self.visited:
            heapq.heappop(self._heap)
        return self.candidates[self._heap[0][2]] if self._heap else None

    def next_checks(self, count: int) -> list[str]:
        """Searches that test a candidate answer, not yet run."""
        return _pending(self._checks, self.queries, count)

    def next_queries(self, count: int) -> list[str]:
        for queue in (self._planned, self._checks, self._followups):
            pending = _pending(queue, self.queries, count)
            if pending:
                return pending
        return []

    def intent(self, query: str) -> str:
        return self._intents.get(query, "a search the agent chose")

    def steps(self) -> int:
        return len(self.queries) + len(self.visited)

    def to_state(self) -> DRState:
        ordered = sort_evidence(self.question, self.evidence, titles=self.titles)
        return DRState(
            search_queries=tuple(Query(q, intent) for q, intent in self.queries.items()),
            visited_sources=tuple(Source(url, note) for url, note in self.visited.items() if url),
            trusted=ordered.trusted,
            untrusted=ordered.untrusted,
            uncertain=(ordered.uncertain + self._open_leads())[:MAX_OPEN_LEADS],
        )

    def _open_leads(self) -> tuple[Fact, ...]:
        unread = sorted(
            (c for c in self.candidates.values() if c.url not in self.visited),
            key=lambda c: -c.score,
        )
        return tuple(
            Fact(
                id=fact_id(f"visit {c.url}"),
                claim=c.snippet or c.title or c.url,
                sources=(c.url,),
                reason="seen in search results only",
                need=f"visit {c.url}",
            )
            for c in unread[:MAX_OPEN_LEADS]
        )


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def _pending(queue: deque[str], done: dict[str, str], count: int) -> list[str]:
    while queue and queue[0] in done:
        queue.popleft()
    return [queue[index] for index in range(min(count, len(queue)))]


def argument_strings(arguments: Mapping[str, object], key: str) -> list[str]:
    """A tool call's string or list-of-strings argument, blanks dropped ([] when malformed)."""
    try:
        return [value.strip() for value in string_list(arguments, key) if value.strip()]
    except ToolError:
        return []
