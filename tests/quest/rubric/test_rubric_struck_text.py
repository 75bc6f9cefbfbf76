"""Struck-out text is a deletion, not prose: no claim holds its words or its citations."""

from __future__ import annotations

import pytest

from quest.rubric import parse_citations, strip_citations

SAMOA = "https://www.geonames.org/5880801"
STRIKES = [
    "~~Australia~~",
    "<del>Australia</del>",
    "<s>Australia</s>",
    "<strike>Australia</strike>",
    "<DEL>Australia</DEL>",
    '<del datetime="2024-01-01">Australia</del>',
]


def _claims(answer: str) -> list[str]:
    return [claim.text for claim in parse_citations(answer).claims]


@pytest.mark.parametrize("struck", STRIKES)
def test_a_struck_name_is_in_no_claim(struck: str) -> None:
    assert _claims(f"The country is {struck} American Samoa.") == ["The country is American Samoa."]


@pytest.mark.parametrize("struck", STRIKES)
def test_a_struck_committed_line_keeps_only_what_is_left_standing(struck: str) -> None:
    answer = f"The country is American Samoa [1].\n\nExact answer: {struck} American Samoa"
    assert _claims(f"{answer}\n\n[1] {SAMOA}") == [
        "The country is American Samoa.",
        "Exact answer: American Samoa",
    ]


def test_a_citation_inside_a_deletion_cites_nothing() -> None:
    cited = parse_citations(
        f"The country is ~~Australia [1]~~ American Samoa [2]. It is <del>[big](https://a.org)"
        f"</del> small.\n\n[1] https://www.geonames.org/2077456\n[2] {SAMOA}"
    )
    assert [(claim.text, claim.urls) for claim in cited.claims] == [
        ("The country is American Samoa.", (SAMOA,)),
        ("It is small.", ()),
    ]


def test_struck_words_inside_a_link_are_left_out_but_the_link_still_cites() -> None:
    cited = parse_citations(f"The country is [~~Australia~~ American Samoa]({SAMOA}).")
    assert [(claim.text, claim.urls) for claim in cited.claims] == [
        ("The country is American Samoa.", (SAMOA,))
    ]


def test_deletions_are_left_out_of_table_rows_and_list_items() -> None:
    answer = (
        "| Country | Capital |\n|---|---|\n| ~~Australia~~ American Samoa | <s>Canberra</s> "
        "Pago Pago |\n\n- The capital is <del>Canberra</del> Pago Pago."
    )
    assert _claims(answer) == [
        "Country: American Samoa | Capital: Pago Pago",
        "The capital is Pago Pago.",
    ]


def test_text_that_only_looks_struck_stays() -> None:
    assert _claims("About ~5 km, ~~~ and <span>Samoa</span> <sub>2</sub> stay.") == [
        "About ~5 km, ~~~ and Samoa 2 stay."
    ]
    # A browser opens `<s/>` as `<s>` (HTML has no self-closing strike): what follows is struck.
    assert _claims("About <span>Samoa</span> <s/> stay.") == ["About Samoa"]
    assert _claims("The code `~~x~~` stays.") == ["The code ~~x~~ stays."]


def test_the_probes_read_the_answer_without_its_deletions() -> None:
    assert strip_citations("The country is ~~Australia~~ American Samoa.") == (
        "The country is American Samoa."
    )
