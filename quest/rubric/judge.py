"""The LLM judge for `judge` leaves and citations (QUEST-SPEC §1.3), minus QUEST's known faults
and the holes an RL policy finds in an LLM judge:

- it reads the relevant passages of the pages the *answer cites* as well as the tree's own
  sources (Mind2Web 2 verifies against the cited URLs); an unreachable page is *unsupported*
  without a judge call, never sent as the text "None";
- every "true" must quote its evidence verbatim: the words of the answer that state the claim
  and, when the claim is about sources, the words of a page shown to the judge. A quote that is
  not in that text turns the vote into "false": a judge fooled into agreeing cannot point at
  words that are not there;
- an answer with nothing substantive in it (":", "Thought process:", "Let's solve this problem
  step by step." — the "master keys" that make LLM judges say yes, arXiv 2507.08794) fails
  judge leaves without a call;
- a judge that fails yields an `error` verdict (undecided), never a failed criterion.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from quest.rubric.citations import parse_citations
from quest.rubric.documents import Document, DocumentStore
from quest.rubric.sentences import sentence_spans
from quest.rubric.verdict import MAX_REASONING, Evidence, LeafVerdict
from quest.text.fold import fold
from quest.text.words import key_tokens

TRIALS = 3
MAX_ANSWER_CHARS = 20_000
MAX_PASSAGE_CHARS = 12_000  # all pages together, per judge call
MAX_PAGES = 8
MAX_TASK_CHARS = 4_000
MAX_QUOTE_CHARS = 600
# Openers that carry no claim; an answer made only of them gives a judge nothing to read.
MASTER_KEYS = (
    "thought process",
    "let's solve this problem step by step",
    "let us solve this problem step by step",
    "let's think step by step",
    "let's think about this step by step",
    "step by step",
    "the answer is",
    "final answer",
    "solution",
    "answer",
    "explanation",
    "reasoning",
)
_SOURCE_CLAIM = re.compile(
    r"\b(?:source|sources|cite|cites|cited|citation|citations|supported|supports|evidence|"
    r"reference|references|page|pages|link|links|url|urls)\b",
    re.IGNORECASE,
)

SYSTEM_PROMPT = (
    "You verify one claim about an answer to a research task. Use only the text you are given: "
    "the task, the answer and the numbered source passages. Do not use outside knowledge. Be "
    "lenient on name variants, abbreviations and rounding (66.7 may be written 67). A claim "
    "about what the answer says holds only if the answer states it plainly: a negated, hedged "
    "or merely listed mention does not count. A claim about facts or sources holds only if a "
    "source passage states it; the answer asserting it is not enough, and an irrelevant "
    "passage means unsupported. Quote your evidence word for word. Reply with JSON only: "
    '{"reasoning": "<one or two sentences>", "answer_quote": "<the answer\'s exact words that '
    'state the claim, or empty>", "source_quote": "<a source passage\'s exact words that '
    'support it, or empty>", "result": true or false}.'
)


class ChatClient(Protocol):
    """Any chat-completion backend: messages are {"role", "content"} mappings."""

    def chat(self, messages: Sequence[Mapping[str, str]]) -> str: ...


@dataclass(frozen=True)
class Trial:
    result: bool | None  # None: the call failed or the reply could not be read
    reasoning: str
    answer_quote: str = ""
    source_quote: str = ""


@dataclass(frozen=True)
class Ruling:
    result: bool | None  # None: no two trials agreed
    reasoning: str
    calls: int
    trial: Trial | None = None  # the first trial of the winning side


def judge_name(client: object) -> str:
    name = getattr(client, "name", None)
    return name if isinstance(name, str) and name else type(client).__name__


def parse_reply(reply: str) -> Trial:
    """`{"reasoning", "answer_quote"?, "source_quote"?, "result": bool}`, possibly fenced or
    surrounded by prose."""
    data = json_object(reply)
    if data is None:
        return Trial(None, f"unparseable judge reply: {reply[:120]!r}")
    result = _as_bool(data.get("result"))
    if result is None:
        return Trial(None, f"judge reply has no true/false result: {reply[:120]!r}")
    return Trial(
        result,
        _string(data.get("reasoning"), MAX_REASONING),
        _string(data.get("answer_quote"), MAX_QUOTE_CHARS),
        _string(data.get("source_quote"), MAX_QUOTE_CHARS),
    )


def _string(value: object, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


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
    client: ChatClient,
    messages: Sequence[Mapping[str, str]],
    trials: int = TRIALS,
    check: Callable[[Trial], Trial] | None = None,
) -> Ruling:
    """Up to `trials` calls; stops as soon as a majority agrees (2 of 3 by default). `check`
    may overrule a trial (a "true" whose quotes are not in the text becomes "false")."""
    needed = trials // 2 + 1
    votes: dict[bool, list[Trial]] = {True: [], False: []}
    problems: list[str] = []
    for call in range(1, trials + 1):
        trial = _trial(client, messages)
        if trial.result is not None and check is not None:
            trial = check(trial)
        if trial.result is None:
            problems.append(trial.reasoning)
            continue
        votes[trial.result].append(trial)
        if len(votes[trial.result]) >= needed:
            first = votes[trial.result][0]
            return Ruling(trial.result, first.reasoning, call, first)
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


def substantive(answer: str) -> bool:
    """Whether the answer's prose states anything once questions (an echo of the task) and
    reasoning openers are taken out."""
    claims = parse_citations(answer).claims
    prose = " ".join(c.text for c in claims if not c.text.rstrip().endswith("?"))
    prose = f" {fold(prose)} "
    for key in MASTER_KEYS:
        prose = prose.replace(f" {fold(key)} ", " ")
    return bool(key_tokens(prose))


# -- passages ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    url: str
    title: str
    text: str


def relevant_passages(
    pages: Sequence[Document], query: str, budget: int = MAX_PASSAGE_CHARS
) -> list[Passage]:
    """Each page cut to its sentences that share most words with `query`, kept in page order,
    within one character budget shared by all pages (a short page is shown whole)."""
    words = set(key_tokens(query))
    share = budget // max(1, len(pages))
    passages: list[Passage] = []
    for page in pages:
        text = page.text if len(page.text) <= share else _best_sentences(page.text, words, share)
        passages.append(Passage(page.url, page.title, text))
    return passages


def _best_sentences(text: str, words: set[str], budget: int) -> str:
    spans = sentence_spans(text)
    ranked = sorted(
        range(len(spans)),
        key=lambda i: -len(words.intersection(key_tokens(text[spans[i][0] : spans[i][1]]))),
    )
    chosen: list[int] = []
    used = 0
    for index in ranked:
        start, end = spans[index]
        if used + (end - start) > budget:
            continue
        chosen.append(index)
        used += end - start
    return " [...] ".join(
        " ".join(text[a:b].split()) for a, b in (spans[i] for i in sorted(chosen))
    )


def claim_messages(
    claim: str, *, task: str, answer: str, passages: Sequence[Passage]
) -> list[dict[str, str]]:
    parts = [f"Task:\n{task[:MAX_TASK_CHARS]}", f"Answer:\n{answer[:MAX_ANSWER_CHARS]}"]
    for number, passage in enumerate(passages, start=1):
        parts.append(f"Source [{number}] {passage.url}\nTitle: {passage.title}\n{passage.text}")
    if not passages:
        parts.append("Sources: none (judge the claim from the answer alone).")
    parts.append(f"Claim: {claim}")
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


# -- the judge -----------------------------------------------------------------------------------


@dataclass
class ClaimJudge:
    """Judges a claim against the answer and the passages of the tree's sources and the
    answer's cited pages, majority of `trials`, with verified evidence quotes."""

    client: ChatClient
    store: DocumentStore | None
    trials: int = TRIALS
    calls: int = 0

    def verdict(
        self,
        claim: str,
        *,
        task: str,
        answer: str,
        sources: Sequence[str] = (),
        cited: Sequence[str] = (),
        needs_source: bool | None = None,
    ) -> LeafVerdict:
        name = judge_name(self.client)
        if not substantive(answer):
            return LeafVerdict("fail", reasoning="the answer states nothing to judge", judge=name)
        if sources and self.store is None:
            return LeafVerdict(
                "error", reasoning="sources given but no document store configured", judge=name
            )
        pages, unreachable = self._pages([*sources, *cited])
        must_cite = bool(sources) or bool(_SOURCE_CLAIM.search(claim))
        if needs_source is not None:
            must_cite = needs_source
        if must_cite and not pages:
            reason = "no readable source page to check it against"
            if unreachable:
                reason = f"{', '.join(unreachable[:3])}: page unreachable, so unsupported"
            return LeafVerdict("fail", reasoning=reason, judge=name)
        passages = relevant_passages(pages, f"{claim} {task}")
        ruling = self._ask(
            claim_messages(claim, task=task, answer=answer, passages=passages),
            _QuoteCheck(answer, passages, must_cite, quoted_values(claim)),
        )
        return _verdict(ruling, passages, name, unreachable)

    def _pages(self, urls: Sequence[str]) -> tuple[list[Document], list[str]]:
        pages: list[Document] = []
        unreachable: list[str] = []
        for url in list(dict.fromkeys(urls))[:MAX_PAGES]:
            page = self.store.get(url) if self.store is not None else None
            if page is None:
                unreachable.append(url)
            else:
                pages.append(page)
        return pages, unreachable

    def _ask(self, messages: list[dict[str, str]], check: Callable[[Trial], Trial]) -> Ruling:
        ruling = majority(self.client, messages, self.trials, check)
        self.calls += ruling.calls
        return ruling


@dataclass(frozen=True)
class _QuoteCheck:
    """A "true" must quote the answer (and, for a source claim, a passage) word for word."""

    answer: str
    passages: Sequence[Passage]
    must_cite: bool
    expected: tuple[str, ...] = ()  # values the claim quotes: "matches 'Xifeng Yan'"

    def __call__(self, trial: Trial) -> Trial:
        if not trial.result:
            return trial
        if not quoted_in(trial.answer_quote, self.answer):
            return _overruled(trial, "its answer quote is not in the answer")
        if self.expected and not any(quoted_in(v, trial.answer_quote) for v in self.expected):
            return _overruled(trial, "its answer quote does not contain the expected value")
        if self.must_cite and _passage_of(trial.source_quote, self.passages) is None:
            return _overruled(trial, "its source quote is not in any source passage")
        return trial


def quoted_values(claim: str) -> tuple[str, ...]:
    """The values a claim spells out in quotes, such as 'Xifeng Yan' in "matches the expected
    advisor 'Xifeng Yan'" (an apostrophe inside a word does not open a quote)."""
    found = re.findall(
        r"(?<!\w)['\"\u2018\u201c]([^'\"\u2019\u201d]{2,120})['\"\u2019\u201d](?!\w)", claim
    )
    return tuple(value for value in found if key_tokens(value))


def _overruled(trial: Trial, why: str) -> Trial:
    return replace(trial, result=False, reasoning=f"judge said true but {why}: {trial.reasoning}")


def quoted_in(quote: str, text: str) -> bool:
    """Whether `quote` (parts split at ellipses) appears word for word in `text`, ignoring case,
    accents and punctuation."""
    parts = [fold(part) for part in re.split(r"\.\.\.|\u2026|\[\.\.\.\]", quote)]
    parts = [part for part in parts if part]
    haystack = f" {fold(text)} "
    return bool(parts) and all(f" {part} " in haystack for part in parts)


def _passage_of(quote: str, passages: Sequence[Passage]) -> Passage | None:
    return next((p for p in passages if quote and quoted_in(quote, p.text)), None)


def _verdict(
    ruling: Ruling, passages: Sequence[Passage], name: str, unreachable: Sequence[str]
) -> LeafVerdict:
    if ruling.result is None:
        return LeafVerdict("error", Evidence(), ruling.reasoning, name)
    reasoning = ruling.reasoning
    if unreachable:
        reasoning += f" ({len(unreachable)} cited page(s) unreachable, so not read)"
    if not ruling.result:
        return LeafVerdict("fail", Evidence(), reasoning[:MAX_REASONING], name)
    trial = ruling.trial or Trial(True, reasoning)
    page = _passage_of(trial.source_quote, passages)
    evidence = Evidence(page.url, trial.source_quote) if page else Evidence("", trial.answer_quote)
    return LeafVerdict("pass", evidence, reasoning[:MAX_REASONING], name)
