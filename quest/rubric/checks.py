"""Running one leaf check against an answer (and the pages it cites) to get a LeafVerdict.

Deterministic kinds read the answer's claims (quest.rubric.citations) and count a value only
where the claim commits to it (quest.rubric.claims); `judge` goes through ClaimJudge. Every
failure says why in `reasoning`; every pass quotes the claim or page sentence it rests on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date

from quest.rubric.binding import (
    Binder,
    owner_position,
    relation_groups,
    relation_ok,
    rival_strings,
    year_like,
)
from quest.rubric.citations import CitedAnswer, parse_citations, sentence_spans
from quest.rubric.claims import judge_occurrence
from quest.rubric.commitment import Commitment, read_commitment, same_name
from quest.rubric.cues import Judgement
from quest.rubric.dates import find_dates, parse_date
from quest.rubric.documents import Document, DocumentStore, normalise_url, url_host
from quest.rubric.judge import ChatClient, ClaimJudge
from quest.rubric.model import Check, ParamValue
from quest.rubric.names import entity_mentions
from quest.rubric.numbers import Number, find_numbers, number_from_param, numbers_match
from quest.rubric.regex_guard import EVALUATION_SECONDS, SEARCH_SECONDS, RegexTimeout, finditer
from quest.rubric.support import page_support
from quest.rubric.text import MAX_SCAN, fold, fold_with_origin
from quest.rubric.verdict import Evidence, LeafVerdict

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
    cited: CitedAnswer = field(init=False)
    claim_judge: ClaimJudge | None = field(init=False)
    regex_seconds: float = field(init=False, default=EVALUATION_SECONDS)  # left for this answer
    _pages: dict[str, Document | None] = field(init=False, default_factory=dict)
    _binder: Binder | None = field(init=False, default=None)
    _commitments: dict[bool, Commitment] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.cited = parse_citations(self.answer)
        self.claim_judge = ClaimJudge(self.judge, self.store) if self.judge is not None else None

    def page(self, url: str) -> Document | None:
        if url not in self._pages:
            self._pages[url] = self.store.get(url) if self.store is not None else None
        return self._pages[url]

    @property
    def binder(self) -> Binder:
        if self._binder is None:
            self._binder = Binder([c.text for c in self.cited.claims], self.names)
        return self._binder

    def commitment(self, *, as_list: bool) -> Commitment:
        if as_list not in self._commitments:
            self._commitments[as_list] = read_commitment(
                self.cited.claims, as_list=as_list, answer=self.answer, names=self.names
            )
        return self._commitments[as_list]

    @property
    def judge_calls(self) -> int:
        return self.claim_judge.calls if self.claim_judge else 0


def run_check(check: Check, ctx: CheckContext) -> LeafVerdict:
    runner = _RUNNERS.get(check.kind)
    if runner is None:
        return _error(check, f"unknown check kind {check.kind!r}")
    return runner(check, ctx)


def _verdict(
    check: Check, passed: bool, reasoning: str, evidence: Evidence | None = None
) -> LeafVerdict:
    return LeafVerdict(
        "pass" if passed else "fail", evidence or Evidence(), reasoning, f"check:{check.kind}"
    )


def _error(check: Check, reasoning: str) -> LeafVerdict:
    return LeafVerdict("error", Evidence(), reasoning, f"check:{check.kind}")


def _sources(check: Check, ctx: CheckContext) -> list[Source] | str:
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


def _where(url: str) -> str:
    return f"page {url}" if url else "the answer"


@dataclass
class _Search:
    """Occurrences of a value in claims, judged by quest.rubric.claims: the first one the
    claim commits to, or every reason the others did not count. With a binder (a check with a
    `subject`), an occurrence counts only in a live claim that states it of that subject and
    relation (quest.rubric.binding)."""

    check: Check
    numeric: bool = False
    binder: Binder | None = None
    strict: bool = False  # a rival value: only where the subject is the only one it can be of
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
            context=_context(self.check),
        )
        if judgement.commits and self.binder is not None and index >= 0:
            judgement = self._bound(text, start, end, index)
        if not judgement.commits:
            self.rejected.append((judgement, text))
        return judgement.commits

    def _bound(self, text: str, start: int, end: int, index: int) -> Judgement:
        assert self.binder is not None
        if not self.binder.live(index):
            return Judgement("retracted", "a later sentence says the above is wrong")
        if self.numeric and not relation_ok(text, start, end, _groups(self.check)):
            return Judgement("other_relation")
        subjects = self.binder.subject_of(index, start, end)
        wanted = _subjects(self.check)
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
            f'{_READINGS[judgement.reading]}{_cue(judgement)} in "{_cut(claim)}"{others}'
        )


_READINGS = {
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


def _cue(judgement: Judgement) -> str:
    if judgement.reading == "other_subject":
        return f" {judgement.cue}"
    if judgement.reading in ("listed", "off_topic", "other_relation") or not judgement.cue:
        return ""
    return f' by "{judgement.cue}"'


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _groups(check: Check) -> frozenset[str]:
    raw = check.params.get("context") or ()
    return relation_groups(str(c) for c in raw) if isinstance(raw, tuple) else frozenset()


def _subjects(check: Check) -> set[str]:
    aliases = check.params.get("subject_aliases") or ()
    names = [check.params["subject"], *(aliases if isinstance(aliases, tuple) else ())]
    return {fold(str(name)) for name in names}


def _binder(check: Check, ctx: CheckContext) -> Binder | None:
    bound = "subject" in check.params and check.params.get("scope", "answer") == "answer"
    return ctx.binder if bound else None


def _context(check: Check) -> tuple[tuple[str, ...], ...]:
    raw = check.params.get("context") or ()
    return tuple(tuple(fold(str(c)).split()) for c in raw) if isinstance(raw, tuple) else ()


# -- text --------------------------------------------------------------------------------------


def _find_phrase(
    phrases: tuple[str, ...], sources: list[Source], search: _Search
) -> tuple[str, Evidence] | None:
    folded = [(phrase, fold(phrase)) for phrase in phrases]
    for index, (url, text) in enumerate(sources):
        haystack = fold_with_origin(text)
        for phrase, needle in folded:
            for start, end in haystack.find_all(needle):
                if search.commits(text, start, end, index):
                    return phrase, Evidence(url, text)
    return None


def _mentions(check: Check, ctx: CheckContext) -> LeafVerdict:
    if check.params.get("committed"):
        return _committed(check, ctx)
    sources = _sources(check, ctx)
    if isinstance(sources, str):
        return _error(check, sources)
    value = str(check.params["value"])
    aliases = check.params.get("aliases")
    phrases = (value, *(str(a) for a in aliases)) if isinstance(aliases, tuple) else (value,)
    search = _Search(check, binder=_binder(check, ctx))
    found = _find_phrase(phrases, sources, search)
    if found is None:
        return _verdict(check, False, search.failure(repr(value)))
    rival = _rival_string(check, ctx, value, sources)
    if rival:
        return _verdict(check, False, rival)
    return _verdict(check, True, f"{_where(found[1].url)} states {found[0]!r}", found[1])


def _rival_string(check: Check, ctx: CheckContext, value: str, sources: list[Source]) -> str:
    """For a check with a subject: another value the answer commits to for the same subject
    and relation ("the capital of Australia is Sydney" beside "… is Canberra"). Rivals are the
    check's `others` (same-kind names) or, for a three-letter code, other codes."""
    binder = _binder(check, ctx)
    if binder is None or check.params.get("list"):
        return ""
    search = _Search(check, binder=binder, strict=True)
    raw = check.params.get("others") or ()
    others = [fold(str(name)) for name in raw] if isinstance(raw, tuple) else []
    for index, (_, text) in enumerate(sources):
        for span in rival_strings(text, value, others):
            start, end, _ = span
            if owner_position(text, span):  # "… of Belize's neighbours": whose, not which
                continue
            if search.commits(text, start, end, index):
                return _contradiction(check, text[start:end], text)
    return ""


def _contradiction(check: Check, rival: str, claim: str) -> str:
    subject = check.params["subject"]
    return (
        f"the answer also states {rival!r} for the same fact of {subject}: "
        f'"{_cut(claim)}" (two values for one fact earn nothing)'
    )


def _committed(check: Check, ctx: CheckContext) -> LeafVerdict:
    """Identity: the answer's committed value (quest.rubric.commitment) names the value."""
    too_long = _over_length(check, ctx)
    if too_long:
        return _verdict(check, False, too_long)
    commitment = ctx.commitment(as_list=False)
    if not commitment.committed:
        return _verdict(check, False, f"nothing is committed: {commitment.problem}")
    value = str(check.params["value"])
    aliases = check.params.get("aliases")
    names = (value, *(str(a) for a in aliases)) if isinstance(aliases, tuple) else (value,)
    written = commitment.items[0]
    if any(same_name(written, name) for name in names):
        return _verdict(check, True, f"commits to {written!r}", Evidence("", commitment.line))
    return _verdict(check, False, f"commits to {written!r}, not {value!r}")


def _over_length(check: Check, ctx: CheckContext) -> str:
    most = check.params.get("max_chars")
    if isinstance(most, int) and len(ctx.answer) > most:
        return (
            f"the answer is {len(ctx.answer):,} characters, over the {most:,} this task "
            "allows: bulk commits to nothing"
        )
    return ""


def _committed_items(check: Check, ctx: CheckContext) -> tuple[list[str], str]:
    """The allowed values the committed list names (each once), or why there is none."""
    too_long = _over_length(check, ctx)
    if too_long:
        return [], too_long
    commitment = ctx.commitment(as_list=True)
    if not commitment.committed:
        return [], f"nothing is committed: {commitment.problem}"
    values = check.params["values"]
    assert isinstance(values, tuple)
    hits: list[str] = []
    for item in commitment.items:
        match = next((str(v) for v in values if same_name(item, str(v))), None)
        if match is not None and match not in hits:
            hits.append(match)
    return hits, ""


def _entity_hits(
    values: tuple[str, ...], sources: list[Source], search: _Search
) -> list[tuple[str, Evidence]]:
    """The values the claims commit to, each a whole name: where two overlap the longer is the
    one written ("Democratic Republic of the Congo" names no "Republic of the Congo")."""
    by_key = {fold(v): v for v in reversed(values)}
    keys = sorted(by_key, key=len, reverse=True)
    hits: dict[str, Evidence] = {}
    for index, (url, text) in enumerate(sources):
        for start, end, key in entity_mentions(text, keys):
            if by_key[key] not in hits and search.commits(text, start, end, index):
                hits[by_key[key]] = Evidence(url, text)
    return [(v, hits[v]) for v in values if v in hits]


def _one_of(check: Check, ctx: CheckContext) -> LeafVerdict:
    if check.params.get("committed"):
        committed, problem = _committed_items(check, ctx)
        if problem:
            return _verdict(check, False, problem)
        line = ctx.commitment(as_list=True).line
        hits = [(name, Evidence("", line)) for name in committed]
        search = _Search(check)
    else:
        sources = _sources(check, ctx)
        if isinstance(sources, str):
            return _error(check, sources)
        values = check.params["values"]
        assert isinstance(values, tuple)
        search = _Search(check)
        hits = _entity_hits(tuple(str(v) for v in values), sources, search)
    if not hits:
        return _verdict(check, False, search.failure("none of the allowed values"))
    if check.params.get("exclusive") and len(hits) > 1:
        names = ", ".join(repr(name) for name, _ in hits[:5])
        return _verdict(check, False, f"states several of the values: {names}")
    wanted = check.params.get("at_least", 1)
    assert isinstance(wanted, int)
    if len(hits) < wanted:
        named = ", ".join(repr(name) for name, _ in hits)
        return _verdict(check, False, f"states {len(hits)} of the values ({named}), not {wanted}")
    names = ", ".join(repr(name) for name, _ in hits[:wanted])
    return _verdict(check, True, f"states {names}", hits[wanted - 1][1])


def _at_most(check: Check, ctx: CheckContext) -> LeafVerdict:
    """At most `most` different values stated: an answer that names every candidate to be sure
    of the k it was asked for fails, whatever its item slots found. `committed`: the values of
    the committed list are counted (and every item of it, allowed or not)."""
    values = check.params["values"]
    most = check.params["most"]
    assert isinstance(values, tuple) and isinstance(most, int)
    if check.params.get("committed"):
        _, problem = _committed_items(check, ctx)
        if problem:
            return _verdict(check, False, problem)
        stated = list(ctx.commitment(as_list=True).items)
    else:
        sources = _sources(check, ctx)
        if isinstance(sources, str):
            return _error(check, sources)
        stated = [
            v for v, _ in _entity_hits(tuple(str(v) for v in values), sources, _Search(check))
        ]
    named = ", ".join(repr(name) for name in stated[:5]) + (" …" if len(stated) > 5 else "")
    if len(stated) > most:
        return _verdict(
            check,
            False,
            f"states {len(stated)} of the candidates ({named}), more than the {most} allowed",
        )
    return _verdict(check, True, f"states {len(stated)} of the candidates, at most {most}")


# -- numbers and dates -------------------------------------------------------------------------


def _number(check: Check, ctx: CheckContext) -> LeafVerdict:
    sources = _sources(check, ctx)
    if isinstance(sources, str):
        return _error(check, sources)
    expected = number_from_param(check.params["value"])
    assert expected is not None  # validated
    tol_abs, tol_rel = (
        _float(check.params.get("tolerance_abs")),
        _float(check.params.get("tolerance_rel")),
    )
    search = _Search(check, numeric=True, binder=_binder(check, ctx))
    for index, (url, text) in enumerate(sources):
        for found in find_numbers(text):
            if numbers_match(found, expected, tol_abs, tol_rel) and search.commits(
                text, found.start, found.end, index
            ):
                stated = text[found.start : found.end]
                rival = _rival_number(check, ctx, sources, expected, (tol_abs, tol_rel))
                if rival:
                    return _verdict(check, False, rival)
                return _verdict(check, True, f"states {stated!r}", Evidence(url, text))
    return _verdict(check, False, search.failure(f"a number matching {check.params['value']}"))


def _rival_number(
    check: Check,
    ctx: CheckContext,
    sources: list[Source],
    expected: Number,
    tolerance: tuple[float, float],
) -> str:
    """For a check with a subject: another figure committed to for the same subject and
    relation. A bare year is no rival of a figure that is not one ("… in 2019")."""
    binder = _binder(check, ctx)
    if binder is None:
        return ""
    search = _Search(check, numeric=True, binder=binder, strict=True)
    for index, (_, text) in enumerate(sources):
        for found in find_numbers(text):
            written = text[found.start : found.end]
            if numbers_match(found, expected, *tolerance) or year_like(written):
                continue
            if search.commits(text, found.start, found.end, index):
                return _contradiction(check, written, text)
    return ""


def _float(value: ParamValue) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def date_bounds(check: Check) -> tuple[date, date]:
    first, last = date.min, date.max
    for key in ("value", "after", "before"):
        raw = check.params.get(key)
        span = parse_date(raw) if isinstance(raw, str) else None
        if span is None:
            continue
        if key in ("value", "after"):
            first = max(first, span.first)
        if key in ("value", "before"):
            last = min(last, span.last)
    return first, last


def _date(check: Check, ctx: CheckContext) -> LeafVerdict:
    sources = _sources(check, ctx)
    if isinstance(sources, str):
        return _error(check, sources)
    first, last = date_bounds(check)
    search = _Search(check, numeric=True)
    for url, text in sources:
        for span in find_dates(text):
            if span.within(first, last) and search.commits(text, span.start, span.end):
                stated = text[span.start : span.end]
                return _verdict(check, True, f"states {stated!r}", Evidence(url, text))
    what = f"a date between {first.isoformat()} and {last.isoformat()}"
    return _verdict(check, False, search.failure(what))


def _regex(check: Check, ctx: CheckContext) -> LeafVerdict:
    """Claim by claim, a match counts only where the claim commits to it (a negated "apply
    butter" is no advice to apply butter); `raw: true` searches the whole answer, markup and
    URLs included, for format checks. Every regex leaf of one answer draws on one time budget."""
    raw = bool(check.params.get("raw"))
    texts = [ctx.answer[:MAX_SCAN]] if raw else [c.text for c in ctx.cited.claims]
    search = _Search(check)
    for text in texts:
        spans = _regex_spans(check, ctx, text)
        if isinstance(spans, str):
            return _error(check, spans)
        for start, end in spans:
            if raw or search.commits(text, start, end):
                return _verdict(check, True, "the pattern matches", Evidence("", _cut(text, 300)))
    return _verdict(check, False, search.failure("the pattern"))


def _regex_spans(check: Check, ctx: CheckContext, text: str) -> list[tuple[int, int]] | str:
    """The matches in `text`, or why the search could not run (out of time)."""
    if ctx.regex_seconds <= 0:
        return f"this answer's regex time ({EVALUATION_SECONDS:g} s) is spent"
    limit = min(SEARCH_SECONDS, ctx.regex_seconds)
    started = time.perf_counter()
    try:
        return finditer(
            str(check.params["pattern"]),
            text,
            ignore_case=bool(check.params.get("ignore_case")),
            seconds=limit,
        )
    except RegexTimeout:
        return f"the regex ran past {limit:.2g} s and was stopped"
    finally:
        ctx.regex_seconds -= time.perf_counter() - started


# -- citations ---------------------------------------------------------------------------------


def _cites_url(check: Check, ctx: CheckContext) -> LeafVerdict:
    cited = ctx.cited.urls()
    wanted = check.params.get("urls") or ()
    assert isinstance(wanted, tuple)
    for url in cited:
        if not wanted or any(_same_target(url, str(target)) for target in wanted):
            return _verdict(check, True, f"cites {url}", Evidence(url, ""))
    what = "any URL" if not wanted else "any of the expected URLs"
    return _verdict(check, False, f"the answer does not cite {what}")


def _same_target(cited: str, target: str) -> bool:
    if "://" in target:
        return normalise_url(cited) == normalise_url(target)
    host, wanted = url_host(cited), target.lower().removeprefix("www.").strip("/")
    return host == wanted or host.endswith("." + wanted)


def _source_supports(check: Check, ctx: CheckContext) -> LeafVerdict:
    """A claim of the answer commits to the value, and a page it cites states that claim's
    relation: the value together with the claim's subject (quest.rubric.support)."""
    if ctx.store is None:
        return _error(check, "no document store configured to read cited pages")
    value = check.params["value"]
    search = _Search(check, numeric=not isinstance(value, str), binder=_binder(check, ctx))
    claims = ctx.cited.claims
    committing = [c for i, c in enumerate(claims) if _states(value, c.text, search, i)]
    if not committing:
        return _verdict(check, False, search.failure(repr(value)))
    cited = [c for c in committing if c.urls]
    if not cited:
        return _verdict(check, False, f"no citation in the claims that state {value!r}")
    unreachable: list[str] = []
    problems: list[str] = []
    for claim in cited:
        for url in claim.urls:
            page = ctx.page(url)
            if page is None:
                unreachable.append(url)
                continue
            found = page_support(claim.text, page, must=value)
            if found.supported:
                return _verdict(check, True, f"{url} states it", Evidence(url, found.quote))
            problems.append(f"{url}: {found.reason}")
    notes = problems[:2] + [f"{url}: page unreachable, so unsupported" for url in unreachable[:2]]
    return _verdict(check, False, f"no cited page states {value!r}: " + "; ".join(notes))


def _states(value: ParamValue, text: str, search: _Search, index: int) -> bool:
    if isinstance(value, str):
        return any(
            search.commits(text, a, b, index)
            for a, b in fold_with_origin(text).find_all(fold(value))
        )
    expected = number_from_param(value)
    return expected is not None and any(
        numbers_match(n, expected, 0.0, 0.0) and search.commits(text, n.start, n.end, index)
        for n in find_numbers(text)
    )


def _judge(check: Check, ctx: CheckContext) -> LeafVerdict:
    if ctx.claim_judge is None:
        return _error(check, "no judge configured")
    sources = check.params.get("sources") or ()
    assert isinstance(sources, tuple)
    claim = str(check.params["claim"])
    return ctx.claim_judge.verdict(
        claim,
        task=ctx.task,
        answer=ctx.answer,
        sources=[str(s) for s in sources],
        cited=ctx.cited.urls(),
    )


_RUNNERS: dict[str, Callable[[Check, CheckContext], LeafVerdict]] = {
    "mentions": _mentions,
    "one_of": _one_of,
    "at_most": _at_most,
    "number": _number,
    "date": _date,
    "regex": _regex,
    "cites_url": _cites_url,
    "source_supports": _source_supports,
    "judge": _judge,
}


def checked_values(check: Check) -> Iterator[str]:
    """The literal values a deterministic check looks for (the probes mutate them)."""
    if check.kind in ("mentions", "number", "source_supports", "date"):
        value = check.params.get("value")
        if value is not None:
            yield str(value)
    if check.kind == "one_of":
        values = check.params.get("values") or ()
        if isinstance(values, tuple):
            yield from (str(v) for v in values)
