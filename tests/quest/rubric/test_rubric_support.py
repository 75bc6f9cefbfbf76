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


CANBERRA = Document(
    "https://www.geonames.org/2172517",
    "Canberra, Australia (GeoNames)",
    "Canberra is a city in Australia, as recorded by GeoNames. Its population is 367,752. It lies "
    "at latitude -35.28346 and longitude 149.12807. Its time zone is Australia/Sydney. It is the "
    "capital of Australia. Source: GeoNames record 2172517.",
)


def test_a_pronoun_sentence_is_about_the_page_subject_not_a_place_in_the_first_sentence() -> None:
    found = page_support("The population of Australia is 367,752.", CANBERRA)
    assert found.label == "unsupported"
    assert "the figure 367752 said of 'australia'" in found.reason


def test_a_figure_stated_for_another_relation_does_not_support_the_claim() -> None:
    claim = (
        "Australia has an area of 24,992,369 square kilometres and a population of 7,686,850 "
        "people."
    )
    found = page_support(claim, AUSTRALIA)
    assert found.label == "unsupported"
    assert "24992369" in found.reason or "7686850" in found.reason


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("Australia's population is 24,992,369.", AUSTRALIA),
        ("24,992,369 people live in Australia.", AUSTRALIA),
        ("Australia covers 7,686,850 km².", AUSTRALIA),
        ("The capital of Australia is Canberra.", AUSTRALIA),
        ("Australia has an area of 7,686,850 square kilometres and 24,992,369 people.", AUSTRALIA),
        ("Canberra, the capital of Australia, has a population of 367,752.", CANBERRA),
        ("Canberra has 367,752 inhabitants.", CANBERRA),
        ("The capital of Australia is Canberra.", CANBERRA),
    ],
)
def test_a_figure_stated_with_its_relation_and_subject_stays_supported(
    claim: str, page: Document
) -> None:
    found = page_support(claim, page)
    assert found.label == "supported", found.reason


AUSTRALIA_RECORD = Document(
    "https://www.geonames.org/2077456",
    "Australia (GeoNames)",
    "Australia is a country or territory in Oceania, as recorded by GeoNames. Its capital is "
    "Canberra. Its area is 7,686,850 square kilometres. Its population is 24,992,369. Its "
    "currency is the Dollar (AUD). Its telephone calling code is +61. The largest cities of "
    "Australia listed by GeoNames are Sydney (5,638,830), Melbourne (5,435,590) and Brisbane "
    "(2,780,063). Its languages are English (en-AU).",
)


@pytest.mark.parametrize(
    "claim",
    [
        "The currency of Australia is Canberra.",
        "The capital of Australia is AUD.",
        "The area of Australia is 24,992,369 square kilometres.",
        "Canberra has 7,686,850 inhabitants.",
        "Australia has 5,638,830 people.",
        "Melbourne has a population of 5,638,830.",
    ],
)
def test_a_value_stated_for_another_relation_or_subject_on_the_page_is_unsupported(
    claim: str,
) -> None:
    assert page_support(claim, AUSTRALIA_RECORD).label == "unsupported"


@pytest.mark.parametrize(
    "claim",
    [
        "The currency of Australia is AUD.",
        "Australia's calling code is +61.",
        "The largest city of Australia is Sydney, with 5,638,830 people.",
        "Melbourne has 5,435,590 inhabitants.",
        "The capital of Australia is Canberra and its currency is AUD.",
    ],
)
def test_a_value_stated_with_its_relation_anywhere_in_the_subjects_run_is_supported(
    claim: str,
) -> None:
    found = page_support(claim, AUSTRALIA_RECORD)
    assert found.label == "supported", found.reason


def test_relation_words_joined_by_and_share_their_value() -> None:
    paris = Document(
        "https://en.wikipedia.org/wiki/Paris",
        "Paris",
        "Paris is the capital and largest city of France, with an estimated city population of "
        "2.04 million in an area of 105.4 km2.",
    )
    assert page_support("Paris is the capital of France.", paris).supported
    assert page_support("The population of Paris is 2.04 million.", paris).supported
    assert not page_support("The area of Paris is 2.04 million km2.", paris).supported
