"""Running one leaf check against an answer (and the pages it cites) to get a LeafVerdict.

Deterministic kinds read the answer's claims (quest.rubric.citations) and count a value only
where the claim commits to it (quest.rubric.claims); `judge` goes through ClaimJudge. Every
failure says why in `reasoning`; every pass quotes the claim or page sentence it rests on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import date

from quest.rubric.binding import (
    owner_position,
    rival_strings,
    year_like,
)
from quest.rubric.dates import find_dates, parse_date
from quest.rubric.documents import normalise_url, url_host
from quest.rubric.identity import committed_check, committed_items
from quest.rubric.model import Check, ParamValue
from quest.rubric.names import entity_mentions
from quest.rubric.numbers import (
    Number,
    approximate,
    find_numbers,
    number_from_param,
    numbers_in,
    numbers_match,
)
from quest.rubric.reading import (
    CheckContext,
    Source,
    ValueSearch,
    binder_for,
    claim_sources,
    cut_text,
    error_of,
    verdict_of,
    where_said,
)
from quest.rubric.regex_guard import EVALUATION_SECONDS, SEARCH_SECONDS, RegexTimeout, finditer
from quest.rubric.slots import slot_support, written_numbers
from quest.rubric.verdict import Evidence, LeafVerdict
from quest.text.fold import MAX_SCAN, fold, fold_with_origin


def run_check(check: Check, ctx: CheckContext) -> LeafVerdict:
    runner = _RUNNERS.get(check.kind)
    if runner is None:
        return error_of(check, f"unknown check kind {check.kind!r}")
    return runner(check, ctx)


# -- text --------------------------------------------------------------------------------------


def _find_phrase(
    phrases: tuple[str, ...], sources: list[Source], search: ValueSearch
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
        return committed_check(check, ctx)
    sources = claim_sources(check, ctx)
    if isinstance(sources, str):
        return error_of(check, sources)
    value = str(check.params["value"])
    aliases = check.params.get("aliases")
    phrases = (value, *(str(a) for a in aliases)) if isinstance(aliases, tuple) else (value,)
    search = ValueSearch(check, binder=binder_for(check, ctx), leads=ctx.leads_for(check))
    found = _find_phrase(phrases, sources, search)
    if found is None:
        return verdict_of(check, False, search.failure(repr(value)))
    rival = _rival_string(check, ctx, value, sources)
    if rival:
        return verdict_of(check, False, rival)
    return verdict_of(check, True, f"{where_said(found[1].url)} states {found[0]!r}", found[1])


def _rival_string(check: Check, ctx: CheckContext, value: str, sources: list[Source]) -> str:
    """For a check with a subject: another value the answer commits to for the same subject
    and relation ("the capital of Australia is Sydney" beside "… is Canberra"). Rivals are the
    check's `others` (same-kind names) or, for a three-letter code, other codes."""
    binder = binder_for(check, ctx)
    if binder is None or check.params.get("list"):
        return ""
    search = ValueSearch(check, binder=binder, strict=True)
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
        f'"{cut_text(claim)}" (two values for one fact earn nothing)'
    )


def _entity_hits(
    values: tuple[str, ...], sources: list[Source], search: ValueSearch
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
        committed, wrong, problem = committed_items(check, ctx)
        if problem:
            return verdict_of(check, False, problem)
        # Each wrong item costs what a right one earns: spraying candidates earns nothing.
        kept = committed[: max(0, len(committed) - wrong)]
        hits = [(name, Evidence("", f"{len(committed)} right, {wrong} wrong")) for name in kept]
        search = ValueSearch(check)
    else:
        sources = claim_sources(check, ctx)
        if isinstance(sources, str):
            return error_of(check, sources)
        values = check.params["values"]
        assert isinstance(values, tuple)
        search = ValueSearch(check)
        hits = _entity_hits(tuple(str(v) for v in values), sources, search)
    if not hits:
        return verdict_of(check, False, search.failure("none of the allowed values"))
    if check.params.get("exclusive") and len(hits) > 1:
        names = ", ".join(repr(name) for name, _ in hits[:5])
        return verdict_of(check, False, f"states several of the values: {names}")
    wanted = check.params.get("at_least", 1)
    assert isinstance(wanted, int)
    if len(hits) < wanted:
        named = ", ".join(repr(name) for name, _ in hits)
        return verdict_of(check, False, f"states {len(hits)} of the values ({named}), not {wanted}")
    names = ", ".join(repr(name) for name, _ in hits[:wanted])
    return verdict_of(check, True, f"states {names}", hits[wanted - 1][1])


def _at_most(check: Check, ctx: CheckContext) -> LeafVerdict:
    """At most `most` different values stated: an answer that names every candidate to be sure
    of the k it was asked for fails, whatever its item slots found. `committed`: the values of
    the committed list are counted (and every item of it, allowed or not)."""
    values = check.params["values"]
    most = check.params["most"]
    assert isinstance(values, tuple) and isinstance(most, int)
    if check.params.get("committed"):
        _, _, problem = committed_items(check, ctx)
        if problem:
            return verdict_of(check, False, problem)
        candidates = tuple(str(v) for v in values)
        stated = list(ctx.commitment(as_list=True, candidates=candidates).items)
    else:
        sources = claim_sources(check, ctx)
        if isinstance(sources, str):
            return error_of(check, sources)
        stated = [
            v for v, _ in _entity_hits(tuple(str(v) for v in values), sources, ValueSearch(check))
        ]
    named = ", ".join(repr(name) for name in stated[:5]) + (" …" if len(stated) > 5 else "")
    if len(stated) > most:
        return verdict_of(
            check,
            False,
            f"states {len(stated)} of the candidates ({named}), more than the {most} allowed",
        )
    return verdict_of(check, True, f"states {len(stated)} of the candidates, at most {most}")


# -- numbers and dates -------------------------------------------------------------------------


def _number(check: Check, ctx: CheckContext) -> LeafVerdict:
    sources = claim_sources(check, ctx)
    if isinstance(sources, str):
        return error_of(check, sources)
    expected = number_from_param(check.params["value"])
    assert expected is not None  # validated
    tol_abs, tol_rel = (
        _float(check.params.get("tolerance_abs")),
        _float(check.params.get("tolerance_rel")),
    )
    search = ValueSearch(
        check, numeric=True, binder=binder_for(check, ctx), leads=ctx.leads_for(check)
    )
    for index, (url, text) in enumerate(sources):
        for found in written_numbers(text):
            if (
                numbers_match(found, expected, tol_abs, tol_rel)
                and not approximate(text, found)
                and search.commits(text, found.start, found.end, index)
            ):
                stated = text[found.start : found.end]
                rival = _rival_number(check, ctx, sources, expected, (tol_abs, tol_rel))
                if rival:
                    return verdict_of(check, False, rival)
                return verdict_of(check, True, f"states {stated!r}", Evidence(url, text))
    return verdict_of(check, False, search.failure(f"a number matching {check.params['value']}"))


def _rival_number(
    check: Check,
    ctx: CheckContext,
    sources: list[Source],
    expected: Number,
    tolerance: tuple[float, float],
) -> str:
    """For a check with a subject: another figure committed to for the same subject and
    relation. A bare year is no rival of a figure that is not one ("… in 2019")."""
    binder = binder_for(check, ctx)
    if binder is None:
        return ""
    search = ValueSearch(check, numeric=True, binder=binder, strict=True)
    # A number the question itself states ("in 2026", "ISO 3166-2") is its wording, no value.
    asked = {n.value for n in find_numbers(ctx.task)}
    for index, (_, text) in enumerate(sources):
        for found in numbers_in(text):
            written = text[found.start : found.end]
            if found.value in asked:
                continue
            # A rival is a value of the slot's kind: a year beside a figure is none ("in 2019 its
            # population was …"), nor a figure beside a year ("element 76, found in 1803"); a
            # year beside a year is, so listing candidate years earns no year's credit.
            if numbers_match(found, expected, *tolerance) or (
                year_like(written) != year_like(str(expected.value))
            ):
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
    sources = claim_sources(check, ctx)
    if isinstance(sources, str):
        return error_of(check, sources)
    first, last = date_bounds(check)
    search = ValueSearch(check, numeric=True)
    for url, text in sources:
        for span in find_dates(text):
            if span.within(first, last) and search.commits(text, span.start, span.end):
                stated = text[span.start : span.end]
                return verdict_of(check, True, f"states {stated!r}", Evidence(url, text))
    what = f"a date between {first.isoformat()} and {last.isoformat()}"
    return verdict_of(check, False, search.failure(what))


def _regex(check: Check, ctx: CheckContext) -> LeafVerdict:
    """Claim by claim, a match counts only where the claim commits to it (a negated "apply
    butter" is no advice to apply butter); `raw: true` searches the whole answer, markup and
    URLs included, for format checks. Every regex leaf of one answer draws on one time budget."""
    raw = bool(check.params.get("raw"))
    texts = [ctx.answer[:MAX_SCAN]] if raw else [c.text for c in ctx.cited.claims]
    search = ValueSearch(check)
    for text in texts:
        spans = _regex_spans(check, ctx, text)
        if isinstance(spans, str):
            return error_of(check, spans)
        for start, end in spans:
            if raw or search.commits(text, start, end):
                quote = Evidence("", cut_text(text, 300))
                return verdict_of(check, True, "the pattern matches", quote)
    return verdict_of(check, False, search.failure("the pattern"))


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
            return verdict_of(check, True, f"cites {url}", Evidence(url, ""))
    what = "any URL" if not wanted else "any of the expected URLs"
    return verdict_of(check, False, f"the answer does not cite {what}")


def _same_target(cited: str, target: str) -> bool:
    if "://" in target:
        return normalise_url(cited) == normalise_url(target)
    host, wanted = url_host(cited), target.lower().removeprefix("www.").strip("/")
    return host == wanted or host.endswith("." + wanted)


def _source_supports(check: Check, ctx: CheckContext) -> LeafVerdict:
    """A claim of the answer commits to the value, and a page it cites states that claim's
    relation: the value together with the claim's subject (quest.rubric.support)."""
    if ctx.store is None:
        return error_of(check, "no document store configured to read cited pages")
    value = check.params["value"]
    search = ValueSearch(
        check,
        numeric=not isinstance(value, str),
        binder=binder_for(check, ctx),
        leads=ctx.leads_for(check),
    )
    claims = ctx.cited.claims
    committing = [c for i, c in enumerate(claims) if _states(value, c.text, search, i)]
    if not committing:
        return verdict_of(check, False, search.failure(repr(value)))
    cited = [c for c in committing if c.urls]
    if not cited:
        return verdict_of(check, False, f"no citation in the claims that state {value!r}")
    unreachable: list[str] = []
    problems: list[str] = []
    for claim in cited:
        for url in claim.urls:
            page = ctx.page(url)
            if page is None:
                unreachable.append(url)
                continue
            found = slot_support(check, claim.text, page)
            if found.supported:
                return verdict_of(check, True, f"{url} states it", Evidence(url, found.quote))
            problems.append(f"{url}: {found.reason}")
    notes = problems[:2] + [f"{url}: page unreachable, so unsupported" for url in unreachable[:2]]
    return verdict_of(check, False, f"no cited page states {value!r}: " + "; ".join(notes))


def _states(value: ParamValue, text: str, search: ValueSearch, index: int) -> bool:
    if isinstance(value, str):
        return any(
            search.commits(text, a, b, index)
            for a, b in fold_with_origin(text).find_all(fold(value))
        )
    expected = number_from_param(value)
    return expected is not None and any(
        numbers_match(n, expected, 0.0, 0.0)
        and not approximate(text, n)
        and search.commits(text, n.start, n.end, index)
        for n in written_numbers(text)
    )


def _judge(check: Check, ctx: CheckContext) -> LeafVerdict:
    if ctx.claim_judge is None:
        return error_of(check, "no judge configured")
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
