"""Running one leaf check against an answer (and the pages it cites) to get a LeafVerdict.

Deterministic kinds read text only; `judge` goes through ClaimJudge. Every failure says why in
`reasoning`; every pass quotes its evidence verbatim from the answer or the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date

from quest.rubric.citations import CitedAnswer, parse_citations
from quest.rubric.dates import find_dates, parse_date
from quest.rubric.documents import Document, DocumentStore, normalise_url, url_host
from quest.rubric.judge import ChatClient, ClaimJudge
from quest.rubric.model import Check, ParamValue
from quest.rubric.numbers import find_numbers, number_from_param, numbers_match
from quest.rubric.regex_guard import SEARCH_SECONDS, RegexTimeout, search
from quest.rubric.text import MAX_SCAN, fold, fold_with_origin, snippet
from quest.rubric.verdict import Evidence, LeafVerdict

Source = tuple[str, str]  # (url, text); the answer itself has url ""


@dataclass
class CheckContext:
    """What checks may read. Pages are fetched once per URL however many leaves cite them."""

    answer: str
    task: str = ""
    store: DocumentStore | None = None
    judge: ChatClient | None = None
    cited: CitedAnswer = field(init=False)
    claim_judge: ClaimJudge | None = field(init=False)
    _pages: dict[str, Document | None] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.cited = parse_citations(self.answer)
        self.claim_judge = ClaimJudge(self.judge, self.store) if self.judge is not None else None

    def page(self, url: str) -> Document | None:
        if url not in self._pages:
            self._pages[url] = self.store.get(url) if self.store is not None else None
        return self._pages[url]

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
    """The texts a check reads: the answer, or the pages it cites (scope "cited_pages")."""
    if check.params.get("scope", "answer") == "answer":
        return [("", ctx.answer)]
    if ctx.store is None:
        return "no document store configured to read cited pages"
    pages = [(url, page.text) for url in ctx.cited.urls() if (page := ctx.page(url)) is not None]
    return pages or "the answer cites no readable page"


def _where(url: str) -> str:
    return f"page {url}" if url else "the answer"


# -- text --------------------------------------------------------------------------------------


def _find_phrase(phrases: tuple[str, ...], sources: list[Source]) -> tuple[str, Evidence] | None:
    folded = [(phrase, fold(phrase)) for phrase in phrases]
    for url, text in sources:
        haystack = fold_with_origin(text)
        for phrase, needle in folded:
            at = haystack.find_phrase(needle)
            if at >= 0:
                return phrase, Evidence(url, haystack.quote(at, len(needle)))
    return None


def _mentions(check: Check, ctx: CheckContext) -> LeafVerdict:
    sources = _sources(check, ctx)
    if isinstance(sources, str):
        return _error(check, sources)
    value = str(check.params["value"])
    aliases = check.params.get("aliases")
    phrases = (value, *(str(a) for a in aliases)) if isinstance(aliases, tuple) else (value,)
    found = _find_phrase(phrases, sources)
    if found is None:
        return _verdict(check, False, f"{value!r} is not mentioned")
    return _verdict(check, True, f"mentions {found[0]!r}", found[1])


def _one_of(check: Check, ctx: CheckContext) -> LeafVerdict:
    sources = _sources(check, ctx)
    if isinstance(sources, str):
        return _error(check, sources)
    values = check.params["values"]
    assert isinstance(values, tuple)
    hits = [(str(v), hit) for v in values if (hit := _find_phrase((str(v),), sources))]
    if not hits:
        return _verdict(check, False, "none of the allowed values is mentioned")
    if check.params.get("exclusive") and len(hits) > 1:
        names = ", ".join(repr(name) for name, _ in hits[:5])
        return _verdict(check, False, f"mentions several of the values: {names}")
    return _verdict(check, True, f"mentions {hits[0][0]!r}", hits[0][1][1])


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
    for url, text in sources:
        for found in find_numbers(text):
            if numbers_match(found, expected, tol_abs, tol_rel):
                quote = snippet(text, found.start, found.end)
                return _verdict(
                    check, True, f"states {text[found.start : found.end]!r}", Evidence(url, quote)
                )
    return _verdict(check, False, f"no number matching {check.params['value']} is stated")


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
    for url, text in sources:
        for span in find_dates(text):
            if span.within(first, last):
                quote = snippet(text, span.start, span.end)
                return _verdict(
                    check, True, f"states {text[span.start : span.end]!r}", Evidence(url, quote)
                )
    return _verdict(
        check, False, f"no date between {first.isoformat()} and {last.isoformat()} is stated"
    )


def _regex(check: Check, ctx: CheckContext) -> LeafVerdict:
    pattern = str(check.params["pattern"])
    try:
        match = search(
            pattern, ctx.answer[:MAX_SCAN], ignore_case=bool(check.params.get("ignore_case"))
        )
    except RegexTimeout:
        return _error(check, f"the regex ran past {SEARCH_SECONDS} s and was stopped")
    if match is None:
        return _verdict(check, False, "the pattern does not match the answer")
    return _verdict(check, True, "the pattern matches", Evidence("", match[0][:300]))


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


def _occurrences(value: ParamValue, text: str) -> bool:
    if isinstance(value, str):
        return fold_with_origin(text).find_phrase(fold(value)) >= 0
    expected = number_from_param(value)
    return expected is not None and any(
        numbers_match(n, expected, 0.0, 0.0) for n in find_numbers(text)
    )


def _page_quote(value: ParamValue, text: str) -> str | None:
    if isinstance(value, str):
        folded = fold_with_origin(text)
        at = folded.find_phrase(fold(value))
        return folded.quote(at, len(fold(value))) if at >= 0 else None
    expected = number_from_param(value)
    for found in find_numbers(text):
        if expected is not None and numbers_match(found, expected, 0.0, 0.0):
            return snippet(text, found.start, found.end)
    return None


def _source_supports(check: Check, ctx: CheckContext) -> LeafVerdict:
    """The page cited next to the value (in the same sentence) states the value."""
    if ctx.store is None:
        return _error(check, "no document store configured to read cited pages")
    value = check.params["value"]
    mentioning = [s for s in ctx.cited.sentences if _occurrences(value, s.text)]
    if not mentioning:
        return _verdict(check, False, f"{value!r} is not stated in the answer")
    urls = list(dict.fromkeys(url for sentence in mentioning for url in sentence.urls))
    if not urls:
        return _verdict(check, False, f"no citation next to {value!r}")
    unreachable = []
    for url in urls:
        page = ctx.page(url)
        if page is None:
            unreachable.append(url)
            continue
        quote = _page_quote(value, page.text)
        if quote is not None:
            return _verdict(check, True, f"{url} states {value!r}", Evidence(url, quote))
    note = f" ({len(unreachable)} unreachable, so unsupported)" if unreachable else ""
    return _verdict(check, False, f"no page cited next to {value!r} states it{note}")


def _judge(check: Check, ctx: CheckContext) -> LeafVerdict:
    if ctx.claim_judge is None:
        return _error(check, "no judge configured")
    sources = check.params.get("sources") or ()
    assert isinstance(sources, tuple)
    claim = str(check.params["claim"])
    return ctx.claim_judge.verdict(
        claim, task=ctx.task, answer=ctx.answer, sources=[str(s) for s in sources]
    )


_RUNNERS: dict[str, Callable[[Check, CheckContext], LeafVerdict]] = {
    "mentions": _mentions,
    "one_of": _one_of,
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
