"""The page a question describes (research.describe): answers that are a page's own subject,
found from what the whole page states, on small hand-written pages."""

from __future__ import annotations

from quest.agent.research.describe import answer_kinds, described
from quest.agent.research.extract import Said, extract, person_resolved, ranked
from quest.agent.research.reading import resolve_subject
from quest.agent.research.shape import Shape

WIKI = "https://en.wikipedia.org/wiki/"


def said(subject: str, *sentences: str) -> list[Said]:
    url = WIKI + "_".join(subject.split())
    return [
        Said(person_resolved(resolve_subject(s, subject), subject), url, subject) for s in sentences
    ]


CANALS = "Which Italian city is built on more than a hundred small islands joined by canals?"


def test_the_page_that_states_the_description_answers_although_no_sentence_names_it_all() -> None:
    pages = [
        *said(
            "Sicily",
            "Sicily is the largest island of the Mediterranean and a region south of the "
            "Italian Peninsula.",
        ),
        *said(
            "Venice",
            "Venice is a city in northeastern Italy, the capital of Veneto.",
            "It is built on 118 islands separated by canals and linked by bridges.",
        ),
    ]
    found = extract(CANALS, pages)
    assert found is not None and found.answer == "Venice"
    assert "Sicily" not in found.line  # one answer, not a list of the pages read


def test_the_page_about_what_the_question_names_is_never_its_answer() -> None:
    pages = [
        *said("Sun", "The Sun is the star at the centre of the Solar System.", "It is red."),
        *said(
            "Mars",
            "Mars is the fourth planet from the Sun.",
            'It is called the "Red Planet" for its rusty colour.',
        ),
    ]
    question = "What do we call the fourth world out from the Sun, the one that looks rusty red?"
    assert [page.subject for page in described(question, pages)] == ["Mars"]


def test_a_page_about_another_kind_of_thing_is_not_taken_for_the_answer() -> None:
    # The question asks for a symbol: the page about silver states "chemical symbol" too, but
    # says that silver is an element, so it is not what is asked for.
    pages = [
        *said("Silver", "Silver is a chemical element; its chemical symbol is Ag."),
        *said("Gold", "Gold is a chemical element; its chemical symbol is Au."),
    ]
    question = "What is the chemical symbol for gold?"
    assert answer_kinds(question) == {"symbol"}
    assert described(question, pages) == []


def test_the_kind_of_answer_comes_from_the_type_words_or_the_noun_asked_for() -> None:
    assert answer_kinds(CANALS) == {"city"}  # "Italian" says where, not what
    assert answer_kinds("Who was the first emperor of China?") == {"emperor"}
    assert answer_kinds("What do we call the yellow metal used for coins?") == set()


def test_a_page_sharing_one_word_with_the_description_is_no_candidate() -> None:
    pages = said("Canal", "A canal is an artificial waterway.") + said(
        "Island", "An island is land surrounded by water."
    )
    assert described(CANALS, pages) == []


def test_a_word_that_qualifies_the_kind_asked_for_need_not_be_stated() -> None:
    # "Italian" says what kind of city is wanted; the sentence about Venice never says it.
    pages = said("Venice", "Venice is built on 118 small islands joined by canals.")
    found = extract(CANALS, pages)
    assert found is not None and found.answer == "Venice"


def test_a_last_name_counts_for_the_full_name_but_an_official_name_stays_apart() -> None:
    people = said(
        "Hamlet",
        "Hamlet is a tragedy written by William Shakespeare.",
        "Shakespeare's play is set in Denmark; Thomas Kyd may have written an earlier version.",
    )
    found = extract("Who wrote Hamlet?", people)
    assert found is not None and found.answer == "William Shakespeare"
    assert "Shakespeare's" not in [f.answer for f in ranked("Who wrote Hamlet?", people)]
    country = said(
        "South America",
        "Brazil, officially the Federative Republic of Brazil, is the largest country in "
        "South America.",
    )
    answers = [f.answer for f in ranked("What is the largest country in South America?", country)]
    assert "Brazil" in answers


def test_a_place_named_with_its_kind_is_no_bridge() -> None:
    assert Shape("What is the largest city in the province of Quebec?").bridge is None
    assert Shape("What is the capital of the country where the Taj Mahal stands?").bridge
