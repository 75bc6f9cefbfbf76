from __future__ import annotations

from quest.text.sentences import sentence_spans, split_sentences


def test_abbreviations_and_initials_do_not_end_a_sentence() -> None:
    text = "J. R. R. Tolkien met Dr. Smith in St. Louis. They talked, e.g. about maps! Did it rain?"
    assert split_sentences(text) == [
        "J. R. R. Tolkien met Dr. Smith in St. Louis.",
        "They talked, e.g. about maps!",
        "Did it rain?",
    ]


def test_a_mountain_a_reverend_and_a_fort_keep_their_sentence() -> None:
    text = "Mt. Everest is 8,849 m tall. Rev. King spoke in Ft. Worth. It lies in Nepal."
    assert split_sentences(text) == [
        "Mt. Everest is 8,849 m tall.",
        "Rev. King spoke in Ft. Worth.",
        "It lies in Nepal.",
    ]


def test_titles_and_ranks_before_a_name_do_not_end_a_sentence() -> None:
    text = "Gen. Grant and Col. Smith met Lt. Dan, Sgt. Pepper and Prof. Xavier. Smith vs. Jones."
    assert split_sentences(text) == [
        "Gen. Grant and Col. Smith met Lt. Dan, Sgt. Pepper and Prof. Xavier.",
        "Smith vs. Jones.",
    ]


def test_a_reference_number_stays_with_its_marker() -> None:
    text = "See No. 5 and Fig. 3, built ca. 1500 for approx. 20 men. It fell."
    assert split_sentences(text) == [
        "See No. 5 and Fig. 3, built ca. 1500 for approx. 20 men.",
        "It fell.",
    ]


def test_a_decimal_point_is_not_a_full_stop() -> None:
    assert split_sentences("It grew 3.5 percent in 2020. Then it fell by 0.2.") == [
        "It grew 3.5 percent in 2020.",
        "Then it fell by 0.2.",
    ]


def test_an_abbreviation_that_ends_a_sentence_ends_it() -> None:
    assert split_sentences("She moved to the U.S. The capital is Washington.") == [
        "She moved to the U.S.",
        "The capital is Washington.",
    ]
    assert split_sentences("It has lakes, rivers, etc. It lies in Europe.") == [
        "It has lakes, rivers, etc.",
        "It lies in Europe.",
    ]


def test_etc_inside_a_sentence_does_not_end_it() -> None:
    assert split_sentences("Lakes, rivers, etc. are shown. Roads are not.") == [
        "Lakes, rivers, etc. are shown.",
        "Roads are not.",
    ]


def test_closing_quotes_and_brackets_stay_with_their_sentence() -> None:
    text = 'He said "Go home." It was late (very late.) She said, \u201cYes.\u201d Then they left.'
    assert split_sentences(text) == [
        'He said "Go home."',
        "It was late (very late.)",
        "She said, \u201cYes.\u201d",
        "Then they left.",
    ]


def test_e_g_and_i_e_do_not_end_a_sentence() -> None:
    text = "Use a tool, e.g. a hammer. An island, i.e. land, is here."
    assert split_sentences(text) == ["Use a tool, e.g. a hammer.", "An island, i.e. land, is here."]


def test_whitespace_is_collapsed_and_blank_text_has_no_sentences() -> None:
    assert split_sentences("One  line\nwraps here.\n\n  Two.  ") == ["One line wraps here.", "Two."]
    assert split_sentences("") == []
    assert split_sentences(" \n\t ") == []


def test_spans_point_into_the_text_as_it_stands() -> None:
    text = "Zambia is a country.\n\nIts capital  is Lusaka."
    assert [text[start:end] for start, end in sentence_spans(text)] == [
        "Zambia is a country.",
        "Its capital  is Lusaka.",
    ]


def test_a_sentence_that_ends_on_a_year_ends_there() -> None:
    text = "It is a holiday on 8 March 2026. International Women's Day is one too."
    assert split_sentences(text) == [
        "It is a holiday on 8 March 2026.",
        "International Women's Day is one too.",
    ]
