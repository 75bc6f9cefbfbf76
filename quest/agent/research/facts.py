"""Sorting evidence into trusted, untrusted (contradicted) and uncertain facts, deterministically.

- trusted: confirmed by two or more sources, or a strong match (it states the question's
  subject and most of what is asked), and not outweighed by a conflicting source;
- untrusted: contradicted by more sources than support it (conflicting numbers or dates for the
  same attribute);
- uncertain: everything else, with the search that could settle it as its `need`.

Facts carried over from an earlier state keep their trusted / untrusted standing: a condenser
may add to what is known, never quietly drop a trusted fact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from quest.agent.research.answers import Ledger
from quest.agent.research.question import Question, key_terms, numbers
from quest.agent.state import Fact

AGREEMENT = 0.5  # share of words two claims must have in common to confirm each other
TRUSTED, UNTRUSTED = "trusted", "untrusted"


@dataclass(frozen=True)
class Evidence:
    claim: str
    url: str
    fixed: str = ""  # TRUSTED or UNTRUSTED for a fact carried over from an earlier state
    fact_id: str = ""


@dataclass
class _Group:
    """One claim and every source that states it."""

    claim: str
    urls: list[str]
    terms: frozenset[str]
    matched: frozenset[str]
    numbers: frozenset[str]
    strong: bool
    fixed: str
    fact_id: str
    support: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sorted:
    trusted: tuple[Fact, ...]
    untrusted: tuple[Fact, ...]
    uncertain: tuple[Fact, ...]


def fact_id(claim: str) -> str:
    """Stable across condensations, so a fact keeps its id as the state is rewritten."""
    digest = hashlib.sha1(" ".join(claim.casefold().split()).encode()).hexdigest()
    return f"f-{digest[:8]}"


def sort_evidence(
    question: Question, evidence: Sequence[Evidence], *, titles: Mapping[str, str] | None = None
) -> Sorted:
    groups = _groups(question, evidence)
    ledger = _ledger(question, evidence, titles or {})
    for group in groups:
        group.support = _supporting_urls(group, groups)
    trusted, untrusted, uncertain = [], [], []
    for group in groups:
        answer = _answer_standing(group, ledger)
        kind, reason = answer or _standing(group, groups)
        rival = not group.fixed and ledger.names_a_candidate(group.claim)
        if answer is None and kind == TRUSTED and rival:
            kind, reason = "", "names an answer that is not the best supported"
        # An answer's claim cites its own sources: the others that state the answer are
        # facts of their own, and word overlap may have added a rival's page to its support.
        cited = group.support if kind == TRUSTED and answer is None else group.urls
        sources = tuple(url for url in cited if url)
        if kind == TRUSTED:
            trusted.append(Fact(group.fact_id, group.claim, sources, reason))
        elif kind == UNTRUSTED:
            untrusted.append(Fact(group.fact_id, group.claim, sources, reason))
        else:
            query, _ = question.followup(group.claim)
            uncertain.append(Fact(group.fact_id, group.claim, sources, reason, f"search {query}"))
    return Sorted(tuple(trusted), tuple(untrusted), tuple(uncertain))


def _ledger(question: Question, evidence: Sequence[Evidence], titles: Mapping[str, str]) -> Ledger:
    ledger = Ledger(question)
    for item in evidence:
        if item.fixed != UNTRUSTED:
            ledger.add(item.claim, item.url, titles.get(item.url, ""))
    return ledger


def _answer_standing(group: _Group, ledger: Ledger) -> tuple[str, str] | None:
    """Trusted when the claim states a part's best-supported trusted answer; None otherwise
    (the caller then applies the agreement rules, but never trusts a claim that offers only a
    rival answer: word overlap would let "Newcastle is a city in Australia" confirm "Canberra
    is a city in Australia")."""
    if group.fixed:
        return None
    for index, tally in ledger.answers():
        if group.claim in tally.claims:
            sources = len(tally.by_url)
            how = f"{sources} sources" if sources > 1 else "a source stating it directly"
            return TRUSTED, f"gives {tally.text} for '{ledger.parts[index].text}', as {how} do"
    return None


def _groups(question: Question, evidence: Sequence[Evidence]) -> list[_Group]:
    groups: dict[str, _Group] = {}
    for item in evidence:
        key = " ".join(item.claim.casefold().split())
        group = groups.get(key)
        if group is None:
            groups[key] = _group(question, item)
            continue
        if item.url not in group.urls:
            group.urls.append(item.url)
        if item.fixed and not group.fixed:
            group.fixed, group.fact_id = item.fixed, item.fact_id or group.fact_id
    return list(groups.values())


def _group(question: Question, item: Evidence) -> _Group:
    match = question.match(item.claim)
    return _Group(
        claim=item.claim,
        urls=[item.url],
        terms=frozenset(key_terms(item.claim)),
        matched=match.matched,
        numbers=numbers(item.claim) - question.numbers,
        strong=match.strong,
        fixed=item.fixed,
        fact_id=item.fact_id or fact_id(item.claim),
    )


def _supporting_urls(group: _Group, groups: list[_Group]) -> list[str]:
    urls = list(group.urls)
    for other in groups:
        if other is not group and other.fixed != UNTRUSTED and _agree(group, other):
            urls.extend(url for url in other.urls if url not in urls)
    return urls


def _agree(a: _Group, b: _Group) -> bool:
    if a.numbers and b.numbers:
        return bool(a.numbers & b.numbers) and bool(a.matched & b.matched)
    union = a.terms | b.terms
    return bool(union) and len(a.terms & b.terms) / len(union) >= AGREEMENT


def _conflict(a: _Group, b: _Group) -> bool:
    """The same attribute of the same thing, with no number in common, from other sources."""
    same_attribute = a.matched == b.matched and len(a.matched) >= 2
    disjoint = not (a.numbers & b.numbers) and not set(a.urls) & set(b.urls)
    return same_attribute and bool(a.numbers) and bool(b.numbers) and disjoint


def _standing(group: _Group, groups: list[_Group]) -> tuple[str, str]:
    if group.fixed:
        return group.fixed, "carried over from the earlier research state"
    rivals = [other for other in groups if other is not group and _conflict(group, other)]
    backing = len(group.support)
    if rivals:
        return _against(group, max(rivals, key=lambda other: len(other.support)))
    if backing >= 2:
        return TRUSTED, f"confirmed by {backing} sources"
    if group.strong:
        return TRUSTED, "the source states it directly (" + ", ".join(sorted(group.matched)) + ")"
    return "", "one source, and it only partly matches the question"


def _against(group: _Group, rival: _Group) -> tuple[str, str]:
    """Standing against the best-supported conflicting claim: more sources win."""
    backing, opposing = len(group.support), len(rival.support)
    values = f"{_values(group)} vs {_values(rival)}"
    if backing < opposing:
        return UNTRUSTED, f"contradicted by {rival.urls[0]} ({values})"
    if backing == opposing or not (backing >= 2 or group.strong):
        return "", f"sources disagree ({values})"
    return TRUSTED, f"{backing} sources against {opposing} ({values})"


def _values(group: _Group) -> str:
    return "/".join(sorted(group.numbers)[:3])
