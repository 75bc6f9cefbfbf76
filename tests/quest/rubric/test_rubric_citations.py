from __future__ import annotations

import pytest

from quest.rubric import parse_citations, strip_citations

A = "https://a.example/page"
B = "https://b.example/doc"


def pairs(answer: str) -> list[tuple[str, str]]:
    return [(c.fact, c.url) for c in parse_citations(answer).citations]


def test_markdown_links_cite_the_sentence_they_sit_in() -> None:
    answer = f"Paris is the capital ([source]({A})). Lyon is [second]({B})."
    assert pairs(answer) == [("Paris is the capital.", A), ("Lyon is second.", B)]


@pytest.mark.parametrize("label", ["1", "^2", "[3]", "source", "link", A])
def test_a_link_whose_text_is_only_a_marker_cites_without_adding_words(label: str) -> None:
    assert pairs(f"Kilimanjaro is 5,895 m high [{label}]({A}).") == [
        ("Kilimanjaro is 5,895 m high.", A)
    ]


@pytest.mark.parametrize(
    "references",
    [
        f"[1] {A}\n[2] {B}",
        f"[1]: {A}\n[2]: {B}",
        f"References\n1. Page A - {A}\n2. Doc B - {B}",
        f"[^1]: {A}\n[^2]: {B}",
    ],
)
def test_numbered_markers_resolve_against_every_reference_list_style(references: str) -> None:
    answer = f"Paris is the capital [1]. It has 2.1 million people [2].\n\n{references}"
    assert pairs(answer) == [("Paris is the capital.", A), ("It has 2.1 million people.", B)]


def test_a_trailing_numbered_list_is_a_reference_list_even_without_a_heading() -> None:
    answer = f"Paris is the capital [1].\n\n1. Page A - {A}"
    assert pairs(answer) == [("Paris is the capital.", A)]


def test_a_numbered_list_in_the_body_is_not_a_reference_list() -> None:
    answer = f"Steps:\n1. Go to {A} first\n2. Then rest\n\nDone."
    citations = parse_citations(answer)
    assert citations.references == ()
    assert [c.url for c in citations.citations] == [A]


def test_markers_may_group_and_range() -> None:
    answer = f"Claim one [1, 2]. Claim two [1-2].\n\n[1] {A}\n[2] {B}"
    assert pairs(answer) == [
        ("Claim one.", A),
        ("Claim one.", B),
        ("Claim two.", A),
        ("Claim two.", B),
    ]


def test_a_marker_after_the_full_stop_belongs_to_the_sentence_before_it() -> None:
    answer = f"Paris is the capital. [1] Lyon is second.\n\n[1] {A}"
    assert pairs(answer) == [("Paris is the capital.", A)]


def test_unresolved_markers_cite_nothing() -> None:
    assert pairs("Paris is the capital [7].") == []


def test_bare_urls_count_as_citations_without_trailing_punctuation() -> None:
    assert pairs(f"See {A}.") == [("See.", A)]


def test_urls_are_listed_once_in_order() -> None:
    answer = f"One [1]. Two [2]. Three [1].\n\n[1] {A}\n[2] {B}"
    assert parse_citations(answer).urls() == (A, B)


def test_decimal_numbers_do_not_split_sentences() -> None:
    answer = f"The rate is 3.5 percent today [1].\n\n[1] {A}"
    assert pairs(answer) == [("The rate is 3.5 percent today.", A)]


def test_strip_citations_keeps_link_text_and_drops_everything_else() -> None:
    answer = f"Paris is the capital [1]. See [the page]({A}) or {B}.\n\nReferences\n[1] {A}"
    assert strip_citations(answer) == "Paris is the capital. See the page or."


def test_adjacent_numbered_markers_are_two_citations_not_a_reference_link() -> None:
    answer = (
        "Canberra is the capital of Australia [1][2]. It has 400,000 people [2].\n\n"
        "1. Canberra (GeoNames) - https://www.geonames.org/2172517\n"
        "2. Canberra - https://en.wikipedia.org/wiki/Canberra"
    )
    first, second = parse_citations(answer).claims
    assert first.text == "Canberra is the capital of Australia."
    assert first.urls == (
        "https://www.geonames.org/2172517",
        "https://en.wikipedia.org/wiki/Canberra",
    )
    assert second.urls == ("https://en.wikipedia.org/wiki/Canberra",)
