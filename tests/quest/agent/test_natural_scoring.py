"""The natural-questions benchmark's scorer (benchmarks/natural_scoring.py): only the answer
line counts, and hedging, negation, listing every option or a dump of numbers score nothing."""

from __future__ import annotations

from benchmarks.natural_scoring import MAX_LINE_CHARS, Gold, answer_line, is_correct

SEINE = Gold("wh", names=("Seine",))
KENYA = Gold("comparison", names=("Kenya",), options=(("Kenya",), ("Peru",)))
EVEREST = Gold("numeric", values=(8849.0, 8848.0), tolerance=0.01)
YEAR = Gold("numeric", values=(1945.0,), tolerance=0.0)
LARGER = "Kenya or Peru, which has the larger population?"


def test_the_answer_line_is_read_without_its_citation_marks() -> None:
    report = "**Answer:** Seine [1][2]. It flows through Paris [3].\n\n## Findings\n- Loire [4]"
    assert answer_line(report) == "Seine. It flows through Paris."
    assert answer_line("## Findings\n- Seine") == ""


def test_a_name_counts_only_on_the_answer_line() -> None:
    assert is_correct(SEINE, "Paris lies on the river Seine.")
    assert is_correct(SEINE, "The SEINE.")
    assert not is_correct(SEINE, answer_line("**Answer:** Loire.\n- Seine"))
    assert not is_correct(SEINE, "Seineville is a town.")


def test_only_the_first_sentence_of_the_line_is_the_answer() -> None:
    mercury = Gold("wh", names=("Mercury",))
    assert not is_correct(mercury, "Earth. The inner planets are Mercury, Venus, Earth and Mars.")
    assert is_correct(mercury, "Mercury. It is the first planet from the Sun.")
    assert is_correct(Gold("wh", names=("Washington",)), "Washington, D.C. is the capital. X.")
    assert not is_correct(YEAR, "1944. The war ended in 1945.")
    assert is_correct(YEAR, "1945. The war began in 1939.")


def test_a_negated_name_does_not_count() -> None:
    assert not is_correct(SEINE, "It is not the Seine but the Marne.")
    assert not is_correct(Gold("wh", names=("Paris",)), "The capital is not Paris.")
    assert not is_correct(SEINE, "Neither the Seine nor the Loire.")


def test_a_line_too_long_to_be_an_answer_is_wrong_even_if_it_names_the_gold() -> None:
    assert not is_correct(SEINE, "Seine. " + "x" * MAX_LINE_CHARS)


def test_a_comparison_must_name_the_winner_first_and_pick_it() -> None:
    assert is_correct(
        KENYA, "Kenya: population 54.2 million, larger than Peru (32 million).", LARGER
    )
    assert is_correct(KENYA, "Kenya has more people than Peru.", LARGER)
    assert not is_correct(KENYA, "Peru has fewer people than Kenya.", LARGER)
    assert not is_correct(KENYA, "Peru: population 32 million, larger than Kenya.", LARGER)


def test_hedging_or_listing_the_options_is_not_an_answer() -> None:
    assert not is_correct(KENYA, "Kenya or Peru has the larger population.", LARGER)
    assert not is_correct(KENYA, "Kenya and Peru are both populous.", LARGER)
    assert not is_correct(KENYA, "Kenya, Peru: unclear which is larger.", LARGER)
    assert not is_correct(KENYA, "Either Kenya or Peru.", LARGER)
    assert not is_correct(KENYA, "Kenya (54 million) and Peru (32 million).", LARGER)


def test_a_fact_about_one_option_is_no_choice_even_if_it_shares_a_word_with_the_question() -> None:
    longer = Gold("comparison", names=("Danube",), options=(("Danube",), ("Rhine",)))
    question = "Which river is longer, the Danube or the Rhine?"
    assert not is_correct(longer, "Danube: second-longest river in Europe.", question)
    assert is_correct(longer, "The Danube is longer than the Rhine.", question)
    mississippi = Gold(
        "comparison", names=("Mississippi",), options=(("Mississippi",), ("Thames",))
    )
    question = "Which is longer, the Mississippi River or the Thames?"
    assert not is_correct(
        mississippi, "Mississippi River: major river in the United States.", question
    )
    assert not is_correct(
        mississippi, "Not settled: nothing decides between Mississippi River and Thames.", question
    )
    assert is_correct(mississippi, "Mississippi River: 3,766 km, longer than Thames.", question)


def test_a_comparison_that_names_the_loser_negated_still_needs_a_choice() -> None:
    assert is_correct(KENYA, "Kenya, not Peru, is larger.", LARGER)
    assert not is_correct(KENYA, "Not Kenya.", LARGER)


def test_a_number_must_be_within_the_tolerance() -> None:
    assert is_correct(EVEREST, "Mount Everest is 8,848.86 m high.")
    assert not is_correct(EVEREST, "Mount Everest is 8,611 metres high.")
    assert is_correct(Gold("numeric", values=(54e6,), tolerance=0.25), "about 54.2 million people")
    assert is_correct(Gold("numeric", values=(8.0,), tolerance=0.0), "It has eight planets.")
    assert is_correct(YEAR, "The war ended in 1945.")
    assert not is_correct(YEAR, "The war ended in 1944.")


def test_a_list_of_numbers_or_a_negated_number_is_not_an_answer() -> None:
    assert not is_correct(YEAR, "1939, 1941, 1943, 1944, 1945 or 1946.")
    assert not is_correct(YEAR, "The war did not end in 1945.")
