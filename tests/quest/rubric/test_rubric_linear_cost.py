"""Scoring an answer costs work linear in its length: counted (interpreter events, characters
read), never timed. A 200 KB answer once took over a minute to score because every sentence
boundary re-read the whole paragraph before it and every citation walked every sentence."""

from __future__ import annotations

import sys
from collections.abc import Callable
from itertools import product
from types import FrameType
from typing import Any

import pytest
from rubric_helpers import leaf, node, tree

from quest.protocol.turns import parse_turn
from quest.rewards import score_with_tree
from quest.rubric import Check, Document, InMemoryDocumentStore
from quest.rubric.citations import parse_citations
from quest.rubric.score import compile_tree
from quest.rubric.sentences import _abbreviation, sentence_spans

# Work may grow by at most this much when the answer grows tenfold (linear is 10).
MOST_GROWTH = 12
NAMES = ["".join(p).capitalize() for p in product("kmrt", "aeiou", "lnsv", "aio")]
PAGES = {
    name: Document(
        f"https://www.geonames.org/{index}",
        f"{name} (GeoNames)",
        f"{name} is a country in Europe, as recorded by GeoNames. Its population is "
        f"{1_000 + 7_919 * index:,}.",
    )
    for index, name in enumerate(NAMES)
}
STORE = InMemoryDocumentStore(PAGES.values())
FIRST = NAMES[0]
TREE = compile_tree(
    tree(
        node(
            "root",
            leaf("country", critical=True, check=Check("mentions", {"value": FIRST})),
            leaf("population", check=Check("number", {"value": 1_000, "context": ("population",)})),
            leaf("sourced", check=Check("source_supports", {"value": 1_000})),
        )
    )
)


def _dossier(size: int, *, paragraphs: bool) -> str:
    """A cited answer of about `size` characters: one sentence per country, as a long answer
    that pastes a whole dossier is written."""
    sentences: list[str] = []
    references: list[str] = []
    length = 0
    while length < size:
        name = NAMES[len(sentences) % len(NAMES)]
        page = PAGES[name]
        population = page.text.rsplit(" ", 1)[-1].rstrip(".")
        sentences.append(
            f"The population of {name} is {population} according to GeoNames "
            f"[{len(references) + 1}]."
        )
        references.append(f"[{len(references) + 1}] {page.url}")
        length += len(sentences[-1]) + len(references[-1]) + 2
    per = 6 if paragraphs else len(sentences)
    prose = "\n\n".join(" ".join(sentences[i : i + per]) for i in range(0, len(sentences), per))
    return prose + "\n\n" + "\n".join(references)


def _work(run: Callable[[], object]) -> int:
    """Interpreter events while `run` runs: calls, returns and lines of Python code, and calls
    of built-in functions. Deterministic, unlike a clock."""
    events = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal events
        events += 1
        return trace

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal events
        events += event == "c_call"

    sys.settrace(trace)
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return events


@pytest.mark.parametrize("paragraphs", [True, False], ids=["paragraphs", "one paragraph"])
def test_reading_the_claims_of_a_ten_times_longer_answer_is_ten_times_the_work(
    paragraphs: bool,
) -> None:
    short, long = _dossier(10_000, paragraphs=paragraphs), _dossier(100_000, paragraphs=paragraphs)
    assert len(parse_citations(long).claims) > 9 * len(parse_citations(short).claims)
    parse_citations.cache_clear()
    growth = _work(lambda: parse_citations(long)) / _work(lambda: parse_citations(short))
    assert growth <= MOST_GROWTH


@pytest.mark.parametrize("paragraphs", [True, False], ids=["paragraphs", "one paragraph"])
def test_scoring_a_ten_times_longer_answer_is_at_most_ten_times_the_work(paragraphs: bool) -> None:
    short, long = (
        f"<answer>{_dossier(size, paragraphs=paragraphs)}</answer>" for size in (4_000, 40_000)
    )
    assert score_with_tree(TREE, long, STORE).base == 1.0  # every check runs to a pass
    parse_citations.cache_clear()
    growth = _work(lambda: score_with_tree(TREE, long, STORE)) / _work(
        lambda: score_with_tree(TREE, short, STORE)
    )
    assert growth <= MOST_GROWTH


class _Reads(str):
    """A text that counts the characters read out of it by indexing and slicing."""

    read = 0

    def __getitem__(self, key: Any) -> str:
        piece = str.__getitem__(self, key)
        self.read += len(piece)
        return piece


@pytest.mark.parametrize(
    ("before", "abbreviation"),
    [("Mt", True), ("Larry E", True), ("approx", True), ("Kenya", False), ("1.5 km", True)],
)
def test_a_full_stop_reads_only_the_word_before_it(before: str, abbreviation: bool) -> None:
    for prefix in ("", "a long paragraph. " * 10_000):
        text = _Reads(f"{prefix}{before}. Next")
        assert _abbreviation(text, len(prefix) + len(before)) is abbreviation
        assert text.read <= 20  # the stop and the letters before it, whatever the prefix


def test_sentences_are_cut_the_same_after_a_long_prefix() -> None:
    line = "He met Mt. Kenya's guide. Larry E. Travis came. It was approx. 5 miles away. Done."
    spans = [line[a:b].strip() for a, b in sentence_spans(line)]
    assert spans == [
        "He met Mt. Kenya's guide.",
        "Larry E. Travis came.",
        "It was approx. 5 miles away.",
        "Done.",
    ]
    long = "Word. " * 5_000 + line
    assert [long[a:b].strip() for a, b in sentence_spans(long)][-4:] == spans


def test_many_citations_in_one_sentence_all_belong_to_it() -> None:
    answer = f"{FIRST} is in Europe " + "[1] " * 5_000 + ". Next sentence [2].\n\n"
    answer += f"[1] {PAGES[FIRST].url}\n[2] {PAGES[NAMES[1]].url}"
    claims = parse_citations(answer).claims
    assert [claim.urls for claim in claims] == [(PAGES[FIRST].url,), (PAGES[NAMES[1]].url,)]


def test_a_references_heading_followed_by_a_long_run_of_stars_is_read_in_one_pass() -> None:
    listed = parse_citations(
        f"{FIRST} [1].\n\n**References" + "*" * 20_000 + f"\n\n1. {PAGES[FIRST].url}"
    )
    assert listed.references == (("1", PAGES[FIRST].url),)
    prose = parse_citations("References" + "*" * 20_000 + " x")
    assert len(prose.claims) == 1  # not a heading: a word follows the stars


def test_a_turn_that_repeats_an_unclosed_think_is_still_read() -> None:
    turn = parse_turn("<think>" * 20_000 + "<answer>Bern</answer>")
    assert turn.kind == "invalid"
    assert turn.problem == "the <think> block is never closed with </think>"
    turn = parse_turn("<think>a</think>" + "<think>" * 20_000 + "</think><answer>Bern</answer>")
    assert (turn.kind, turn.answer) == ("answer", "Bern")


def test_a_value_repeated_in_one_hedged_sentence_is_read_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "Sydney or Canberra, " a thousand times: every occurrence is hedged, and reading each
    one scans the whole sentence, so the reads per claim are capped (quest.rubric.reading)."""
    from quest.rubric import reading

    calls = 0
    judge = reading.judge_occurrence

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return judge(*args, **kwargs)

    monkeypatch.setattr(reading, "judge_occurrence", counting)
    capital = compile_tree(
        tree(node("root", leaf("capital", check=Check("mentions", {"value": "Canberra"}))))
    )
    reads = []
    for repeats in (100, 1_000):
        calls = 0
        score_with_tree(capital, "Sydney or Canberra, " * repeats, STORE)
        reads.append(calls)
    assert reads[0] == reads[1] <= reading.MAX_JUDGED
