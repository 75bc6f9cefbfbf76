"""Citation support checks the relation on the cited page, not scattered words."""

from __future__ import annotations

import pytest

from quest.rubric import Document, InMemoryDocumentStore, label_citations, parse_citations
from quest.rubric.support import page_support

AUSTRALIA = Document(
    "https://www.geonames.org/2077456",
    "Australia (GeoNames)",
    "Australia is a country or territory in Oceania, as recorded by GeoNames. Its capital is "
    "Canberra. Its area is 7,686,850 square kilometres. Its population is 24,992,369. The "
    "largest cities of Australia listed by GeoNames are Sydney (5,638,830), Melbourne "
    "(5,435,590) and Brisbane (2,780,063). Source: GeoNames country record 2077456.",
)
KILIMANJARO = Document(
    "https://en.wikipedia.org/wiki/Mount_Kilimanjaro",
    "Mount Kilimanjaro",
    "Mount Kilimanjaro is a large dormant volcano in Tanzania. It is the highest mountain in "
    "Africa, at 5,895 m (19,341 ft) above sea level.",
)
KENYA = Document(
    "https://en.wikipedia.org/wiki/Mount_Kenya",
    "Mount Kenya",
    "Mount Kenya is the second highest mountain in Africa. It is not an active volcano.",
)


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("The capital of Australia is Canberra.", AUSTRALIA),
        ("Canberra is the capital city of Australia.", AUSTRALIA),
        ("The biggest city in Australia is Sydney.", AUSTRALIA),
        ("According to GeoNames, Australia has 24,992,369 inhabitants.", AUSTRALIA),
        ("Its capital is Canberra; its largest city is Sydney.", AUSTRALIA),
        ("Kilimanjaro is the highest mountain in Africa.", KILIMANJARO),
        ("The highest mountain in Africa is Kilimanjaro, a volcano in Tanzania.", KILIMANJARO),
        ("Kilimanjaro rises 5,895.0 m above sea level.", KILIMANJARO),
        ("Mount Kenya is not an active volcano.", KENYA),
    ],
)
def test_a_page_that_states_the_relation_supports_the_claim(claim: str, page: Document) -> None:
    found = page_support(claim, page)
    assert found.label == "supported", found.reason
    assert found.quote


@pytest.mark.parametrize(
    ("claim", "page", "why"),
    [
        # true words, false relation: Sydney and "capital" are both on the page, apart
        ("Sydney is the capital of Australia.", AUSTRALIA, "'sydney'"),
        ("The capital of Australia is Sydney.", AUSTRALIA, "'sydney'"),
        ("Australia's population is 5,638,830.", AUSTRALIA, "the figure 5638830"),
        ("Mount Kenya is the highest mountain in Africa.", KENYA, "qualifier ('second'"),
        ("Mount Kenya is an active volcano.", KENYA, "lacks"),
        ("Kilimanjaro is 6,000 m high.", KILIMANJARO, "the figure 6000"),
        ("Kilimanjaro stands in Kenya.", KILIMANJARO, "'kenya'"),
    ],
)
def test_a_false_relation_between_true_words_is_unsupported(
    claim: str, page: Document, why: str
) -> None:
    found = page_support(claim, page)
    assert found.label == "unsupported"
    assert why in found.reason


def test_a_claim_with_nothing_to_check_is_unknown() -> None:
    assert page_support("See the page.", AUSTRALIA).label == "unknown"


def test_a_value_a_check_asks_for_must_be_in_the_supporting_window() -> None:
    claim = "Australia's capital is Canberra and its population is 24,992,369."
    assert page_support(claim, AUSTRALIA, must="Canberra").supported
    assert not page_support("Its capital is Canberra.", AUSTRALIA, must=5_638_830).supported


def test_numeric_link_text_is_a_marker_not_part_of_the_fact() -> None:
    store = InMemoryDocumentStore([KILIMANJARO])
    answer = f"Kilimanjaro is the highest mountain in Africa [1]({KILIMANJARO.url})."
    [label] = label_citations(parse_citations(answer), store)
    assert (label.citation.fact, label.label) == (
        "Kilimanjaro is the highest mountain in Africa.",
        "supported",
    )
    assert "highest mountain in Africa" in label.quote


def test_citing_the_right_page_for_the_wrong_fact_earns_no_citation_credit() -> None:
    store = InMemoryDocumentStore([AUSTRALIA])
    answer = f"Sydney is the capital of Australia [1].\n\n[1] {AUSTRALIA.url}"
    assert [c.label for c in label_citations(parse_citations(answer), store)] == ["unsupported"]
