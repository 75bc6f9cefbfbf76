"""Sorting evidence into trusted, untrusted (contradicted) and uncertain facts, deterministically.

- trusted: confirmed by two or more sources, or a strong match (it states the question's
  subject and most of what is asked), and not outweighed by a conflicting source;
- untrusted: contradicted by more sources than support it (conflicting numbers or dates for the
  same attribute of the same thing);
- uncertain: everything else, with the search that could settle it as its `need`.

A conflict is never left silent (issue 14). Claims conflict when they give different figures
(quest.agent.research.figures: equal within rounding is the same figure) for the same attribute
of the same thing from different sources. Each conflicting claim is kept: the best-supported one
stays trusted only when it has strictly more sources than every rival, and its reason names the
rivals; an outnumbered one is untrusted, its reason naming the values and sources against it; a
tie (two or three figures, one source each) leaves every side uncertain, the reason naming the
other values and sources and the `need` naming the search that would settle it. A tie is not
untrusted because QUEST-SPEC §5.1 tells the agent to treat untrusted facts as refuted, and a
tie refutes none of its sides; uncertain is what the agent is told to follow up and to keep out
of its answer. So a claim is never both trusted and contradicted: not even the answer the
candidate ledger prefers, nor a trusted fact carried over from an earlier state, which a new
source can move to uncertain (tie) or untrusted (outnumbered). Untrusted facts carried over
stay untrusted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from quest.agent.research.answers import Ledger
from quest.agent.research.figures import Figure, disagree, figures, share_a_figure
from quest.agent.research.question import Question, key_terms, numbers, phrases, stem
from quest.agent.state import Fact
from quest.search.tokens import normalise

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
    figures: tuple[Figure, ...]
    subject: str
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
    trusted, untrusted, disputed, uncertain = [], [], [], []
    for group in groups:
        rivals = [other for other in groups if other is not group and _conflict(group, other)]
        kind, reason, own = _standing(group, rivals, ledger)
        # An answer's claim cites its own sources: the others that state the answer are
        # facts of their own, and word overlap may have added a rival's page to its support.
        cited = group.support if kind == TRUSTED and not own else group.urls
        sources = tuple(url for url in cited if url)
        if kind == TRUSTED:
            trusted.append(Fact(group.fact_id, group.claim, sources, reason))
        elif kind == UNTRUSTED:
            untrusted.append(Fact(group.fact_id, group.claim, sources, reason))
        elif rivals:
            need = f"search {_settling_query(question, group)}"
            disputed.append(Fact(group.fact_id, group.claim, sources, reason, need))
        else:
            query, _ = question.followup(group.claim)
            uncertain.append(Fact(group.fact_id, group.claim, sources, reason, f"search {query}"))
    return Sorted(tuple(trusted), tuple(untrusted), tuple(disputed + uncertain))


def _standing(group: _Group, rivals: list[_Group], ledger: Ledger) -> tuple[str, str, bool]:
    """(standing, reason, whether the claim cites only its own sources). A conflict decides
    first; then a carried-over standing, the ledger's answer, and the agreement rules."""
    if group.fixed == UNTRUSTED:
        return UNTRUSTED, "carried over from the earlier research state", False
    if rivals:
        kind, reason = _against(group, rivals)
        carried = "carried over from the earlier research state; " if group.fixed else ""
        return kind, carried + reason, kind != TRUSTED
    if group.fixed:
        return group.fixed, "carried over from the earlier research state", False
    answer = _answer_standing(group, ledger)
    if answer is not None:
        return *answer, True
    kind, reason = _agreement(group)
    if kind == TRUSTED and ledger.names_a_candidate(group.claim):
        return "", "names an answer that is not the best supported", False
    return kind, reason, False


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
        figures=figures(item.claim, leave_out=question.numbers),
        subject=_subject(item.claim),
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
    if a.figures and b.figures:
        # Two amounts say what the claims measure; a shared year ("in 2026") says nothing.
        amounts_a, amounts_b = _amounts(a.figures), _amounts(b.figures)
        shared = (amounts_a, amounts_b) if amounts_a and amounts_b else (a.figures, b.figures)
        return share_a_figure(*shared) and bool(a.matched & b.matched)
    if set(phrases(a.claim)) != set(phrases(b.claim)):
        return False  # "Paris 13e Arrondissement is a city in France" is not about Paris
    # Claims that write different record numbers ("record 2172517", "record 2077456") name
    # different records, however many words they share.
    written_a, written_b = numbers(a.claim), numbers(b.claim)
    if written_a and written_b and written_a != written_b:
        return False
    union = a.terms | b.terms
    return bool(union) and len(a.terms & b.terms) / len(union) >= AGREEMENT


def _amounts(found: tuple[Figure, ...]) -> tuple[Figure, ...]:
    return tuple(figure for figure in found if not figure.year)


def _subject(claim: str) -> str:
    """The first name the claim gives ("Kenya" in "Kenya's population is ..."), folded."""
    named = phrases(claim)
    return named[0].casefold().removesuffix("'s").removesuffix("\u2019s") if named else ""


def _conflict(a: _Group, b: _Group) -> bool:
    """The same attribute of the same thing, with different figures, from other sources. Two
    claims that open with different names speak of different things."""
    same_attribute = a.matched == b.matched and len(a.matched) >= 2
    same_thing = not (a.subject and b.subject) or a.subject == b.subject
    other_sources = not set(a.urls) & set(b.urls)
    return same_attribute and same_thing and other_sources and disagree(a.figures, b.figures)


def _agreement(group: _Group) -> tuple[str, str]:
    backing = len(group.support)
    if backing >= 2:
        return TRUSTED, f"confirmed by {backing} sources"
    if group.strong:
        return TRUSTED, "the source states it directly (" + ", ".join(sorted(group.matched)) + ")"
    return "", "one source, and it only partly matches the question"


def _against(group: _Group, rivals: list[_Group]) -> tuple[str, str]:
    """Standing against every conflicting claim: strictly more sources than each rival win,
    fewer than the best-supported rival lose, anything else is a tie."""
    backing = len(group.support)
    opposing = max(len(rival.support) for rival in rivals)
    others = "; ".join(f"{_values(r)} from {', '.join(u for u in r.urls if u)}" for r in rivals)
    if backing < opposing:
        return UNTRUSTED, f"contradicted by {others} (this source gives {_values(group)})"
    if backing == opposing or not (backing >= 2 or group.strong or group.fixed):
        return "", f"sources disagree: {others} (this source gives {_values(group)})"
    return TRUSTED, f"{backing} sources against {opposing}: gives {_values(group)}; {others}"


def _values(group: _Group) -> str:
    return "/".join(dict.fromkeys(f.text for f in group.figures[:3]))


def _settling_query(question: Question, group: _Group) -> str:
    """A search for the disputed attribute of the thing, in the question's words."""
    words = [w for w in question.attribute_words if stem(normalise(w)) in group.matched]
    return " ".join([*question.entities[:1], *words])
