"""The commitment rules (quest.rubric.claims): how a sentence treats one value written in it."""

from __future__ import annotations

import pytest

from quest.rubric.claims import clause_spans, judge_occurrence
from quest.rubric.numbers import find_numbers
from quest.text.fold import fold, fold_with_origin


def reading(text: str, value: str, **options: object) -> str:
    folded = fold_with_origin(text)
    at = folded.find_phrase(fold(value))
    assert at >= 0, f"{value!r} not in {text!r}"
    start = folded.origin[at]
    end = folded.origin[at + len(fold(value)) - 1] + 1
    return judge_occurrence(text, start, end, **options).reading  # type: ignore[arg-type]


def number_reading(text: str, digits: str) -> str:
    [found] = [
        n for n in find_numbers(text) if text[n.start : n.end].replace(",", "").split()[0] == digits
    ]
    return judge_occurrence(text, found.start, found.end, numeric=True).reading


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The highest mountain in Africa is Kilimanjaro.", "Kilimanjaro"),
        ("It is Kilimanjaro, not Mount Kenya.", "Kilimanjaro"),
        ("Kilimanjaro, not Mount Kenya, is the highest.", "Kilimanjaro"),
        ("Not Mount Kenya but Kilimanjaro is the highest.", "Kilimanjaro"),
        ("Kilimanjaro (not Mount Kenya) is the highest.", "Kilimanjaro"),
        ("Rather than Mount Kenya, the answer is Kilimanjaro.", "Kilimanjaro"),
        ("Unlike Mount Kenya, Kilimanjaro is a free-standing mountain.", "Kilimanjaro"),
        ("It is not true that Kilimanjaro is not the highest mountain.", "Kilimanjaro"),
        ("No other mountain in Africa is higher than Kilimanjaro.", "Kilimanjaro"),
        ("There is no doubt that Kilimanjaro is the highest.", "Kilimanjaro"),
        (
            "Kilimanjaro is not only the highest mountain in Africa but also a volcano.",
            "Kilimanjaro",
        ),
        ("Kilimanjaro has no rival in Africa.", "Kilimanjaro"),
        ("Kilimanjaro (5,895 m) is the highest mountain in Africa.", "Kilimanjaro"),
        ("Kilimanjaro, which may be climbed in a week, is the highest.", "Kilimanjaro"),
        ("Kilimanjaro is one of the Seven Summits.", "Kilimanjaro"),
        ("Some say Mount Kenya is the highest, but it is Kilimanjaro.", "Kilimanjaro"),
        ("The capital, Canberra, is a planned city.", "Canberra"),
        ("The capital is Canberra, Australia.", "Canberra"),
        ("The capital is Canberra and its population is 367,752.", "Canberra"),
        ("Mount Kilimanjaro stands in Tanzania, near the border with Kenya.", "Tanzania"),
        ("Kilimanjaro lies in northern Tanzania and is 5,895 m high.", "Tanzania"),
        ("Kilimanjaro was named in May 1913.", "Kilimanjaro"),
    ],
)
def test_affirmative_claims_commit_to_the_value(text: str, value: str) -> None:
    assert reading(text, value) == "affirmed"


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("It is Mount Kenya, not Kilimanjaro.", "Kilimanjaro", "negated"),
        ("Kilimanjaro is not the highest mountain in Africa.", "Kilimanjaro", "negated"),
        ("Kilimanjaro isn't the highest mountain in Africa.", "Kilimanjaro", "negated"),
        ("Kilimanjaro, however, is not the highest.", "Kilimanjaro", "negated"),
        ("Kilimanjaro does not rank first.", "Kilimanjaro", "negated"),
        ("Sydney is no longer a candidate.", "Sydney", "negated"),
        ("It is neither Sydney nor Melbourne.", "Sydney", "negated"),
        ("It is neither Sydney nor Melbourne.", "Melbourne", "negated"),
        ("It is false that Canberra is the capital.", "Canberra", "negated"),
        ("Canberra (not Sydney) is the capital.", "Sydney", "negated"),
        ("Never Kilimanjaro.", "Kilimanjaro", "negated"),
        ("Mount Kenya is higher than Kilimanjaro.", "Kilimanjaro", "contrasted"),
        ("Unlike Sydney, Canberra is a planned city.", "Sydney", "contrasted"),
        ("Rather than Sydney, the capital is Canberra.", "Sydney", "contrasted"),
        ("The capital is Canberra instead of Sydney.", "Sydney", "contrasted"),
        ("Is it Kilimanjaro?", "Kilimanjaro", "question"),
        ("Kilimanjaro is probably the highest.", "Kilimanjaro", "hedged"),
        ("It could be Kilimanjaro.", "Kilimanjaro", "hedged"),
        ("It may be Kilimanjaro.", "Kilimanjaro", "hedged"),
        ("Perhaps Kilimanjaro is the highest.", "Kilimanjaro", "hedged"),
        ("I think the answer is Kilimanjaro.", "Kilimanjaro", "hedged"),
        ("The highest is either Kilimanjaro or Mount Kenya.", "Kilimanjaro", "hedged"),
        ("The highest is one of Kilimanjaro or Mount Kenya.", "Kilimanjaro", "hedged"),
        ("Mount Kenya, Kilimanjaro, Mount Stanley or Ras Dashen.", "Kilimanjaro", "hedged"),
        ("The highest mountain is Kilimanjaro/Mount Kenya.", "Kilimanjaro", "hedged"),
        ("Some say Sydney is the capital, but it is Canberra.", "Sydney", "hedged"),
        ("It borders Nepal, Suriname, Saint Vincent and the Grenadines or Tonga.", "Suriname",
         "hedged"),
        ("Sydney is the capital; other cities include Melbourne, Canberra and Perth.", "Canberra",
         "listed"),
        ("Sydney is the capital, other cities are Melbourne, Canberra and Perth.", "Canberra",
         "listed"),
        ("The largest cities of Australia are Sydney, Melbourne, Brisbane.", "Melbourne", "listed"),
        ("The capital is Canberra and Sydney.", "Canberra", "listed"),
        ("Mountains such as Kilimanjaro come to mind.", "Kilimanjaro", "listed"),
    ],
)  # fmt: skip
def test_denied_hedged_contrasted_and_listed_mentions_do_not_commit(
    text: str, value: str, expected: str
) -> None:
    assert reading(text, value) == expected


def test_a_list_counts_when_the_slot_is_an_item_of_a_list() -> None:
    text = "Its neighbours are France, Spain and Andorra."
    assert reading(text, "Spain") == "listed"
    assert reading(text, "Spain", allow_list=True) == "affirmed"
    assert reading("It borders France, Spain or Andorra.", "Spain", allow_list=True) == "hedged"


@pytest.mark.parametrize(
    ("text", "value", "context", "expected"),
    [
        ("The capital of Australia is Canberra.", "Canberra", "capital", "affirmed"),
        ("Canberra - the capital - is small.", "Canberra", "capital", "affirmed"),
        ("Capital: Canberra", "Canberra", "capital", "affirmed"),
        ("1. Spain: it borders France.", "Spain", "borders", "affirmed"),
        ("Canberra is a planned city.", "Canberra", "capital", "off_topic"),
        ("Sydney is the capital, whereas Canberra is a planned city.", "Canberra", "capital",
         "off_topic"),
        ("Canberra is not the capital of anything else, and it is small.", "Canberra", "capital",
         "negated"),
        ("Canberra is a city, and it is not the capital.", "Canberra", "capital", "off_topic"),
    ],
)  # fmt: skip
def test_a_context_must_stand_with_the_value_affirmed_and_not_across_a_contrast(
    text: str, value: str, context: str, expected: str
) -> None:
    assert reading(text, value, context=(tuple(context.split()),)) == expected


@pytest.mark.parametrize(
    ("text", "digits", "expected"),
    [
        ("Its height is 5,895 m.", "5895", "affirmed"),
        ("Its height is 5,895 m (19,341 ft).", "19341", "affirmed"),
        ("It stands 5,895 m above sea level and 4,900 m above its base.", "5895", "affirmed"),
        ("It was named in 1913 and inaugurated in 1927.", "1913", "affirmed"),
        ("The population is about 2.04 million.", "2.04", "affirmed"),
        ("Its height is between 5,000 and 6,000 m.", "6000", "range"),
        ("Its height is between 5,000 and 6,000 m.", "5000", "range"),
        ("Its height is 5,800-5,900 m.", "5900", "range"),
        ("Its height is 5,800 to 5,900 m.", "5800", "range"),
        ("The population grew from 2 million to 5 million.", "5", "range"),
        ("Its height is 5,895 m or 5,199 m.", "5895", "hedged"),
        ("Its height is 5,199 m or 5,895 m.", "5895", "hedged"),
        ("Heights quoted include 5,895, 5,199 and 4,620 m.", "5895", "listed"),
        ("Its height is more than 5,895 m.", "5895", "bound"),
        ("It has a population of over 2 million.", "2", "bound"),
        ("It has at least 5,895 m of height.", "5895", "bound"),
        ("Its height is not 5,895 m.", "5895", "negated"),
        ("Its height is probably 5,895 m.", "5895", "hedged"),
    ],
)
def test_numbers_commit_only_outside_ranges_bounds_and_alternatives(
    text: str, digits: str, expected: str
) -> None:
    assert number_reading(text, digits) == expected


def test_clauses_are_cut_where_a_new_clause_starts() -> None:
    text = "Its capital is Canberra; its largest city is Sydney, and it borders no country."
    assert [text[a:b] for a, b in clause_spans(text)] == [
        "Its capital is Canberra",
        "its largest city is Sydney",
        "it borders no country.",
    ]
