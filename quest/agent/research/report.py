"""A cited report from a research state: a short direct answer first, then the trusted findings
with [n] citations, then the numbered sources. Uncertain and untrusted facts stay out of it
(QUEST-SPEC §5.1); a report without trusted facts says so and lists what is still open.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from quest.agent.research.answers import Ledger
from quest.agent.research.question import Question
from quest.agent.research.shape import Shape
from quest.agent.research.tallies import Found
from quest.agent.state import DRState, Fact

_ASKED = re.compile(r"(?i)(?:which|what|who)(?:\s+\w+)?\s+(is|are|was|were)\s+(.+)$")
MAX_FINDINGS = 8
MAX_LEADS = 5
UNSETTLED = (
    "Not settled: the pages read state no figure or order that decides between {first} and "
    "{second}."
)


def write_report(
    question: str,
    state: DRState,
    *,
    titles: Mapping[str, str] | None = None,
    partial_reason: str = "",
    direct: Found | None = None,
    stated: Mapping[int, Found] | None = None,
) -> str:
    """`direct`, when given, is the answer the pages read state (research.extract); it
    stands on the answer line before what the trusted facts say. `stated` answers parts of a
    question of several by the fields pages state (research.fields): those come first, the
    trusted facts answer the other parts. A comparison without `direct` is answered as not
    settled, whatever the facts say about either option."""
    asked = Question(question)
    facts = _ranked(asked, state.trusted)[:MAX_FINDINGS]
    numbers: dict[str, int] = {}
    lines = [f"_Partial report: {partial_reason}_", ""] if partial_reason else []
    comparison = Shape(question).comparison
    if direct is None and comparison is not None:
        # A fact about one option is no answer to which of the two it is.
        first, second = comparison.options
        lines.append(f"**Answer:** {UNSETTLED.format(first=first, second=second)}")
    elif direct is not None or facts or stated:
        line = _cite(direct.line, direct.urls, numbers) if direct is not None else ""
        line = line or _direct(asked, state.trusted, titles or {}, numbers, stated or {})
        lines.append(f"**Answer:** {line or _cited(facts[0], numbers)}")
    else:
        lines += _unanswered(state)
    if facts:
        lines += ["", "## Findings", *(f"- {_cited(fact, numbers)}" for fact in facts)]
    committed = direct or (stated or {}).get(0)
    exact = _exact(asked, state.trusted, titles or {}, committed) if asks_exact(question) else ""
    if exact:
        lines += ["", f"Exact answer: {exact}"]
    if numbers:
        lines += ["", "## Sources"]
        lines += [_source_line(n, url, titles or {}) for url, n in numbers.items()]
    return "\n".join(lines).strip()


def _ranked(question: Question, facts: tuple[Fact, ...]) -> list[Fact]:
    """Most to the point first: the share of the question a fact states, then its sources."""
    order = {fact.id: index for index, fact in enumerate(facts)}
    return sorted(
        facts,
        key=lambda f: (-question.match(f.claim).score, -len(f.sources), order[f.id]),
    )


def _direct(
    question: Question,
    trusted: Sequence[Fact],
    titles: Mapping[str, str],
    numbers: dict[str, int],
    fields: Mapping[int, Found],
) -> str:
    """The answer to each part: the parts a stated field answers first, each by its value and
    the sentence that states it, then the others as the trusted claim that best states them,
    citing every source that gives that answer; "" when nothing names an answer."""
    ledger = Ledger(question)
    for fact in trusted:
        for url in fact.sources:
            ledger.add(fact.claim, url, titles.get(url, ""))
    answers = [(index, tally) for index, tally in ledger.answers() if index not in fields]
    if not answers and not fields:
        return ""
    stated: dict[str, list[str]] = {}
    for _, found in sorted(fields.items(), key=lambda item: (item[0] == 0, item[0])):
        stated.setdefault(found.line, list(found.urls))
    for index, tally in answers:
        urls = sorted(tally.by_url, key=lambda url: -tally.by_url[url])
        claim = tally.best_claim()
        if ledger.ranks(index, claim):
            # A list ("the largest cities are Sydney, Melbourne, ...") answers in one name.
            claim = plainly(ledger.parts[index].text, tally.text)
        cited = stated.setdefault(claim, [])
        cited.extend(url for url in urls if url not in cited)
    answered = {index for index, _ in answers} | set(fields)
    missing = [p.text for i, p in enumerate(ledger.parts) if i not in answered]
    parts = [_cite(claim, urls, numbers) for claim, urls in stated.items()]
    parts += [f"Not established: {text}." for text in missing]
    return " ".join(parts)


def plainly(part: str, answer: str) -> str:
    """The part answered in a sentence: "which is Australia's largest city" -> "Australia's
    largest city is Sydney."; "which city is the capital of X" -> "The capital of X is Y."."""
    asked = _ASKED.match(part.strip())
    if asked is None:
        return f"{part.strip()}: {answer}."
    verb, thing = asked.group(1), asked.group(2)
    return f"{thing[:1].upper()}{thing[1:]} {verb} {answer}."


def asks_exact(question: str) -> bool:
    """The task asks for its answer on a final 'Exact answer:' line (quest.rubric.commitment)."""
    return "exact answer:" in question.casefold()


def _exact(
    question: Question, trusted: Sequence[Fact], titles: Mapping[str, str], direct: Found | None
) -> str:
    """What the report commits to: the direct answer, else the trusted answer of the
    question's first part ("Which country …? Give its capital." commits to the country)."""
    if direct is not None:
        return direct.answer
    ledger = Ledger(question)
    for fact in trusted:
        for url in fact.sources:
            ledger.add(fact.claim, url, titles.get(url, ""))
    first = dict(ledger.answers()).get(0)
    return first.text if first is not None else ""


def _cited(fact: Fact, numbers: dict[str, int]) -> str:
    return _cite(fact.claim, fact.sources, numbers)


def _cite(claim: str, sources: Sequence[str], numbers: dict[str, int]) -> str:
    cited = sorted({numbers.setdefault(url, len(numbers) + 1) for url in sources})
    marks = "".join(f"[{n}]" for n in cited)
    claim = claim.strip()
    if marks and claim.endswith((".", "!", "?")):
        return f"{claim[:-1]} {marks}{claim[-1]}"
    return f"{claim} {marks}".strip()


def _unanswered(state: DRState) -> list[str]:
    read = sum(1 for source in state.visited_sources if source.note != "could not be read")
    lines = [
        f"**Answer:** No confirmed answer: none of the {read} source(s) read states it with "
        "enough support to be trusted.",
    ]
    if state.search_queries:
        searched = "; ".join(f'"{q.q}"' for q in state.search_queries[:8])
        lines += ["", f"Searches run: {searched}."]
    # URLs stay out of an unanswered report: a bare URL would read as a citation.
    leads = [f.need for f in state.uncertain if f.need.startswith("search ")][:MAX_LEADS]
    unread = sum(1 for fact in state.uncertain if fact.need.startswith("visit "))
    if leads or unread:
        lines += ["", "## Open leads", *(f"- {need}" for need in leads)]
        lines += [f"- {unread} search result(s) not yet read"] if unread else []
    return lines


def _source_line(number: int, url: str, titles: Mapping[str, str]) -> str:
    title = " ".join(titles.get(url, "").split())
    return f"{number}. {title} - {url}" if title else f"{number}. {url}"
