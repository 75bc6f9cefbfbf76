"""The one text layer's folding and word lists: every package compares names and counts words
through these, so a name folds the same way for the index, the reward and the synthesizer."""

from __future__ import annotations

import pytest

from quest.text.fold import fold, fold_with_origin, strip_accents
from quest.text.words import STOPWORDS, key_tokens, number_word, spelled_number, stem


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        ("Curaçao", "Curacao"),
        ("São Tomé", "Sao Tome"),
        ("Łódź", "Lodz"),
        ("Ørsted", "Orsted"),
        ("Đakovo", "Dakovo"),
        ("Straße", "Strasse"),
        ("Æbeltoft", "Aebeltoft"),
        ("Hagåtña", "Hagatna"),
    ],
)
def test_accents_and_latin_letters_without_marks_are_made_plain(written: str, plain: str) -> None:
    assert strip_accents(written) == plain


def test_other_scripts_are_kept_as_written() -> None:
    assert strip_accents("Αθήνα Москва 東京") == "Αθηνα Москва 東京"


def test_fold_drops_case_accents_and_punctuation() -> None:
    assert fold("  São-Paulo!  ") == "sao paulo"
    assert fold("ØRSTED, Łódź") == "orsted lodz"


def test_a_folded_match_is_quoted_from_the_original_text() -> None:
    text = "The capital of Poland's Łódź Voivodeship is Łódź."
    folded = fold_with_origin(text)
    spans = folded.find_all("lodz")
    assert [text[a:b] for a, b in spans] == ["Łódź", "Łódź"]


def test_stopwords_keep_the_words_that_name_a_country_or_a_month() -> None:
    assert {"the", "of", "which", "would"} <= STOPWORDS
    assert "us" not in STOPWORDS  # "US" folds to "us"
    assert "may" not in STOPWORDS  # and "May" to "may"


def test_key_tokens_keep_content_words_and_numbers() -> None:
    assert key_tokens("The capital of Kenya is Nairobi, founded in 1899.") == [
        "capital",
        "kenya",
        "nairobi",
        "founded",
        "1899",
    ]


def test_stems_meet_across_plurals_and_case() -> None:
    assert stem("Cities") == stem("city")
    assert stem("borders") == stem("border")
    assert stem("Curaçao") == "curacao"


@pytest.mark.parametrize(
    ("n", "written"), [(0, "zero"), (7, "seven"), (20, "twenty"), (21, "21"), (-1, "-1")]
)
def test_a_count_is_a_word_up_to_twenty(n: int, written: str) -> None:
    assert number_word(n) == written


@pytest.mark.parametrize(
    ("n", "written"),
    [(13, "thirteen"), (40, "forty"), (57, "fifty-seven"), (99, "ninety-nine"), (100, "100")],
)
def test_a_number_is_spelled_below_a_hundred(n: int, written: str) -> None:
    assert spelled_number(n) == written
