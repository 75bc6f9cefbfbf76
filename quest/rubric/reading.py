"""What a leaf check reads and how it reads a value: the answer's claims (or its cited pages'
sentences), each occurrence of a value judged by quest.rubric.claims and, for a check with a
subject, bound by quest.rubric.binding; the verdicts checks return. The check kinds themselves
live in quest.rubric.checks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from quest.rubric.binding import Binder, relation_groups, relation_ok
from quest.rubric.citations import CitedAnswer, Claim, parse_citations
from quest.rubric.claims import judge_occurrence
from quest.rubric.commitment import Commitment, read_commitment
from quest.rubric.cues import Judgement
from quest.rubric.documents import Document, DocumentStore, page_at
from quest.rubric.judge import ChatClient, ClaimJudge
from quest.rubric.lexicon import CONTEXT_SYNONYMS
from quest.rubric.model import Check
from quest.rubric.regex_guard import EVALUATION_SECONDS
from quest.rubric.sentences import sentence_spans
from quest.rubric.verdict import Evidence, LeafVerdict
from quest.text.aliases import aliases
from quest.text.fold import fold

Source = tuple[str, str]  # (url, text); the answer itself has url ""
MAX_JUDGED = 16  # occurrences of one value read per claim


@dataclass
class CheckContext:
    """What checks may read. Pages are fetched once per URL however many leaves cite them."""

    answer: str
    task: str = ""
    store: DocumentStore | None = None
    judge: ChatClient | None = None
    names: frozenset[str] = frozenset()  # the tree's entity names (quest.rubric.binding)
    list_most: int = 0  # items a committed list may hold: the k of "find k" (0: no list)
    cited: CitedAnswer = field(init=False)
    claim_judge: ClaimJudge | None = field(init=False)
    regex_seconds: float = field(init=False, default=EVALUATION_SECONDS)  # left for this answer
    _pages: dict[str, Document | None] = field(init=False, default_factory=dict)
    _binder: Binder | None = field(init=False, default=None)
    _leads: tuple[str, ...] | None = field(init=False, default=None)
    _commitments: dict[tuple[bool, tuple[str, ...]], Commitment] = field(
        init=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        self.cited = parse_citations(self.answer)
        self.claim_judge = ClaimJudge(self.judge, self.store) if self.judge is not None else None

    def page(self, url: str) -> Document | None:
        if url not in self._pages:
            self._pages[url] = page_at(self.store, url) if self.store is not None else None
        return self._pages[url]

    @property
    def binder(self) -> Binder:
        if self._binder is None:
            claims = self.cited.claims
            self._binder = Binder([c.text for c in claims], self.names, leads_of(claims))
        return self._binder

    def commitment(self, *, as_list: bool, candidates: tuple[str, ...] = ()) -> Commitment:
        """The committed value, read once per shape and candidate list (quest.rubric.commitment);
        `candidates` are the names the prose might conclude on instead."""
        key = (as_list, candidates)
        if key not in self._commitments:
            self._commitments[key] = read_commitment(
                self.cited.claims,
                as_list=as_list,
                answer=self.answer,
                shown=self.cited.text,
                names=candidates,
                question=self.task,
            )
        return self._commitments[key]

    def leads_for(self, check: Check) -> tuple[str, ...]:
        """The lead-ins of the answer's claims, for a check that reads the answer's claims."""
        if check.params.get("scope", "answer") != "answer":
            return ()
        if self._leads is None:
            self._leads = leads_of(self.cited.claims)
        return self._leads

    @property
    def judge_calls(self) -> int:
        return self.claim_judge.calls if self.claim_judge else 0


def verdict_of(
    check: Check, passed: bool, reasoning: str, evidence: Evidence | None = None
) -> LeafVerdict:
    return LeafVerdict(
        "pass" if passed else "fail", evidence or Evidence(), reasoning, f"check:{check.kind}"
    )


def error_of(check: Check, reasoning: str) -> LeafVerdict:
    return LeafVerdict("error", Evidence(), reasoning, f"check:{check.kind}")


def claim_sources(check: Check, ctx: CheckContext) -> list[Source] | str:
    """The claims a check reads: the answer's (url ""), or the sentences of the pages it cites
    (scope "cited_pages"). Claims, never raw text: URLs, markup and reference lists are gone."""
    if check.params.get("scope", "answer") == "answer":
        return [("", claim.text) for claim in ctx.cited.claims]
    if ctx.store is None:
        return "no document store configured to read cited pages"
    pages = [(url, page.text) for url in ctx.cited.urls() if (page := ctx.page(url)) is not None]
    if not pages:
        return "the answer cites no readable page"
    return [(url, text[a:b].strip()) for url, text in pages for a, b in sentence_spans(text)]


def where_said(url: str) -> str:
    return f"page {url}" if url else "the answer"


@dataclass
class ValueSearch:
    """Occurrences of a value in claims, judged by quest.rubric.claims: the first one the
    claim commits to, or every reason the others did not count. With a binder (a check with a
    `subject`), an occurrence counts only in a live claim that states it of that subject and
    relation (quest.rubric.binding)."""

    check: Check
    numeric: bool = False
    binder: Binder | None = None
    strict: bool = False  # a rival value: only where the subject is the only one it can be of
    leads: Sequence[str] = ()  # per claim, its heading or lead-in (leads_of), answer claims only
    rejected: list[tuple[Judgement, str]] = field(default_factory=list)
    judged: dict[str, int] = field(default_factory=dict)  # occurrences read per claim

    def commits(self, text: str, start: int, end: int, index: int = -1) -> bool:
        # Each reading scans its claim: past MAX_JUDGED occurrences in one claim ("Sydney or
        # Canberra, " a thousand times) the rest are not read, so cost stays linear.
        seen = self.judged.get(text, 0)
        if seen >= MAX_JUDGED:
            return False
        self.judged[text] = seen + 1
        judgement = judge_occurrence(
            text,
            start,
            end,
            numeric=self.numeric,
            allow_list=bool(self.check.params.get("list")),
            context=self._context(index),
            # A rival said with a hedge or among candidates is still said: "1816, or possibly
            # 1815" gives the slot two values.
            stated=self.strict,
        )
        if judgement.reading == "off_topic" and self._lead_says(index):
            judgement = Judgement("affirmed")
        if judgement.commits and self.binder is not None and index >= 0:
            judgement = self._bound(text, start, end, index)
        if not judgement.commits:
            self.rejected.append((judgement, text))
        return judgement.commits

    def _lead_says(self, index: int) -> bool:
        """The claim's lead-in or heading says the slot's relation ("Capital:" over "- France:
        Paris")."""
        leads = self.leads or (self.binder.leads if self.binder is not None else ())
        if not 0 <= index < len(leads):
            return False
        lead = f" {fold(leads[index])} "
        return any(f" {' '.join(phrase)} " in lead for phrase in context_of(self.check))

    def _context(self, index: int) -> tuple[tuple[str, ...], ...]:
        """The words the value's clause must say. A figure bound to its subject needs none: its
        relation is read from the relation words around it (quest.rubric.binding), so "Osmium -
        1804" under a "Discovery year" heading, or "first described in 1804", keeps its credit,
        while "1804 isotopes" is another relation's figure."""
        if self.numeric and self.binder is not None and index >= 0:
            return ()
        return context_of(self.check)

    def _bound(self, text: str, start: int, end: int, index: int) -> Judgement:
        assert self.binder is not None
        if not self.binder.live(index):
            return Judgement("retracted", "a later sentence says the above is wrong")
        if self.numeric and not relation_ok(text, start, end, groups_of(self.check)):
            return Judgement("other_relation")
        subjects = self.binder.subject_of(index, start, end)
        wanted = subjects_of(self.check)
        if not (subjects <= wanted if self.strict else subjects & wanted) or not subjects:
            return Judgement("other_subject", str(self.check.params["subject"]))
        return Judgement("affirmed")

    def failure(self, what: str) -> str:
        if not self.rejected:
            return f"{what} is not stated"
        judgement, claim = self.rejected[0]
        more = len(self.rejected) - 1
        others = f" (and {more} more such mention{'s' if more > 1 else ''})" if more else ""
        return (
            f"{what} appears only where the answer does not commit to it: "
            f'{READINGS[judgement.reading]}{cue_of(judgement)} in "{cut_text(claim)}"{others}'
        )


READINGS = {
    "question": "asked, not stated",
    "negated": "negated",
    "contrasted": "contrasted",
    "hedged": "hedged",
    "listed": "merely listed",
    "range": "an end of a range",
    "bound": "a bound, not a value",
    "off_topic": "stated without the slot's context",
    "retracted": "retracted",
    "other_relation": "stated for another relation",
    "other_subject": "stated of another subject than",
}


def cue_of(judgement: Judgement) -> str:
    if judgement.reading == "other_subject":
        return f" {judgement.cue}"
    if judgement.reading in ("listed", "off_topic", "other_relation") or not judgement.cue:
        return ""
    return f' by "{judgement.cue}"'


def cut_text(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def groups_of(check: Check) -> frozenset[str]:
    """The relation groups a check's context names, its usual wordings included ("protons"
    says what "atomic" does), so the binder and the context rule agree on a relation."""
    return relation_groups(" ".join(phrase) for phrase in context_of(check))


def subjects_of(check: Check) -> set[str]:
    """The check's subject under every name it goes by: its `subject_aliases` and, for a
    country, its ISO names ("the Czech Republic" is Czechia)."""
    given = check.params.get("subject_aliases") or ()
    names = [check.params["subject"], *(given if isinstance(given, tuple) else ())]
    return {fold(alias) for name in names for alias in aliases(str(name))}


def binder_for(check: Check, ctx: CheckContext) -> Binder | None:
    bound = "subject" in check.params and check.params.get("scope", "answer") == "answer"
    return ctx.binder if bound else None


def context_of(check: Check) -> tuple[tuple[str, ...], ...]:
    """The check's context phrases, folded, with each one's usual wordings
    (quest.rubric.lexicon): "statehood" and "admitted" say what "state" does."""
    raw = check.params.get("context") or ()
    if not isinstance(raw, tuple):
        return ()
    phrases = [fold(str(c)) for c in raw]
    phrases += [fold(s) for c in phrases for s in CONTEXT_SYNONYMS.get(c, ())]
    return tuple(tuple(p.split()) for p in dict.fromkeys(phrases) if p)


LEAD_WORDS = 12  # a paragraph this short ("Finland: Finnish, Swedish") stays under its lead


def leads_of(claims: Sequence[Claim]) -> tuple[str, ...]:
    """Each claim's lead: the last heading, or claim ending in a colon, before it, as long as
    only list items, table rows and short lines came between."""
    leads: list[str] = []
    lead = ""
    for claim in claims:
        leads.append(lead)
        text = claim.text.rstrip()
        if claim.kind == "heading" or text.endswith(":"):
            lead = text
        elif claim.kind == "paragraph" and len(text.split()) > LEAD_WORDS:
            lead = ""
    return tuple(leads)
