"""The page a question describes (research.describe): answers that are a page's own subject,
found from what the whole page states, on small hand-written pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import wiki_toolbox

from quest.agent import Budgets, ScriptedPolicy, run_agent
from quest.agent.research.describe import answer_kinds, described
from quest.agent.research.extract import extract, person_resolved, ranked
from quest.agent.research.focus import research_focus
from quest.agent.research.notebook import Notebook
from quest.agent.research.question import Question
from quest.agent.research.reading import resolve_subject
from quest.agent.research.shape import Shape
from quest.agent.research.tallies import Said
from quest.agent.scripted import _focus_searches
from quest.tools import Toolbox

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


def test_the_kind_asked_for_counts_words_around_a_name_not_the_name_itself() -> None:
    assert Shape("In which country the Eiffel Tower is?").type_words == {"country"}
    assert Shape("Which Italian city is built on islands?").type_words == {"italian", "city"}


def test_a_sentence_that_ranks_its_subject_second_does_not_answer_a_superlative() -> None:
    question = "What is the highest mountain in Africa?"
    pages = [
        *said("Mount Kenya", "Mount Kenya is the second highest mountain in Africa."),
        *said("Lesotho", "Lesotho is located in the Maloti Mountains, the highest peak in Africa."),
        *said(
            "Mount Kilimanjaro",
            "Mount Kilimanjaro is a dormant volcano in Tanzania.",
            "It is the highest mountain in Africa.",
        ),
    ]
    found = extract(question, pages)
    assert found is not None and found.answer == "Mount Kilimanjaro"
    assert [page.subject for page in described(question, pages)] == ["Mount Kilimanjaro"]


@pytest.fixture(scope="module")
def eiffel_world(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    pages = {
        "Eiffel Tower": "The Eiffel Tower is a lattice tower in Paris, France.",
        "Paris": "Paris is the capital and largest city of France.",
        "France": "France is a country in Western Europe.\n\n"
        "The currency used in France is the Euro, which replaced the Franc in 2002.",
    }
    return wiki_toolbox(Path(tmp_path_factory.mktemp("eiffel_world")), pages)


def test_a_page_read_after_the_bridge_is_read_for_the_question_asked(
    eiffel_world: Toolbox,
) -> None:
    # Once the bridge reads "Paris", the goal "What currency is used in Paris?" alone would
    # leave out what says which place is a country: the question asked stays in the goal.
    question = "What currency is used in the country where the Eiffel Tower is?"
    result = run_agent(
        question, policy=ScriptedPolicy(), toolbox=eiffel_world, budgets=Budgets.rl()
    )
    goals = [
        json.loads(turn["content"].split("<tool_call>")[1].split("</tool_call>")[0])
        for segment in result.trajectory.segments
        for turn in segment.turns
        if turn["role"] == "assistant" and "<tool_call>" in turn["content"]
    ]
    visits = [call["arguments"]["goal"] for call in goals if call["name"] == "visit"]
    bridged = [goal for goal in visits if "used in the country" not in goal.split("(")[0]]
    assert bridged and all(f"({question})" in goal for goal in bridged)
    assert result.answer.splitlines()[0].startswith("**Answer:** Euro")


def test_what_a_page_says_its_subject_is_comes_from_its_defining_clause() -> None:
    pages = [
        *said(
            "Hypertension",
            "Hypertension, also known as high blood pressure, is a long-term medical condition.",
            "Hypertension is a major risk factor for stroke and dementia.",
        ),
        *said(
            "Alzheimer's disease",
            "Alzheimer's disease (AD) is a neurodegenerative disease and is the most common "
            "cause of dementia.",
        ),
        *said(
            "Ontario",
            "Ontario is home to the capital, Ottawa, and its most populous city, Toronto.",
        ),
    ]
    question = "What is the most common cause of dementia?"
    assert [page.subject for page in described(question, pages)] == ["Alzheimer's disease"]
    # "and its most populous city" does not make Ontario a city.
    assert described("What is the most populous city of Canada?", pages) == []


def test_the_superlative_asked_for_outweighs_other_words_of_the_description() -> None:
    question = "Which African animal with a very long neck is the tallest living land animal?"
    pages = [
        *said("Elephant", "Elephants are the largest living land animals."),
        *said("Giraffe", "Giraffes are the tallest living animals."),
    ]
    assert next(page.subject for page in described(question, pages)) == "Giraffe"


def test_a_superlative_also_stated_unranked_still_counts() -> None:
    pages = said(
        "Montreal", "Montreal is the largest city in Quebec, the second-largest in Canada."
    )
    found = extract("What is the largest city in Quebec?", pages)
    assert found is not None and found.answer == "Montreal"


def test_the_question_as_written_is_searched_second_for_a_retriever_that_reads_meaning() -> None:
    planned = [query for query, _ in Question("Which organ pumps blood around the body?").plan()]
    assert planned[:2] == [
        "organ pumps blood around body",
        "Which organ pumps blood around the body",
    ]


def test_a_page_the_searches_ranked_first_needs_fewer_of_the_question_s_words() -> None:
    question = "What do we call the fourth world out from the Sun, the one that looks rusty red?"
    mars = said("Mars", "Mars is the fourth planet from the Sun.", "It is red.")
    sun = said("Sun", "The Sun is the star at the centre of the Solar System.")
    assert described(question, [*sun, *mars]) == []  # two words of seven: a shared word or two
    found = described(question, [*sun, *mars], retrieved=[mars[0].url])
    assert [page.subject for page in found] == ["Mars"]


def test_the_first_page_found_by_meaning_may_name_its_kind_and_the_cause_in_other_words() -> None:
    question = "Which illness, spread by insect bites, is caused by Vorl parasites?"
    fever = said(
        "Marsh fever",
        "Short description: Insect-borne disease.",
        "Marsh fever is transmitted by the bite of Orm insects.",
        "It spreads in wet summers.",
    )
    cure = said("Tarnine", "Short description: Medication used to treat marsh fever.")
    # Another kind ("disease") and no word of the Vorl: only the search's first page may.
    assert described(question, [*fever, *cure]) == []
    assert described(question, [*fever, *cure], retrieved=[cure[0].url, fever[0].url]) == []
    found = described(question, [*fever, *cure], retrieved=[fever[0].url, cure[0].url])
    assert [page.subject for page in found] == ["Marsh fever"]
    # A page that says it is an illness and names the Vorl still comes first.
    ague = said(
        "Swamp ague", "Short description: Illness caused by Vorl parasites.", "Bites spread it."
    )
    both = described(question, [*fever, *ague], retrieved=[fever[0].url])
    assert [page.subject for page in both] == ["Swamp ague", "Marsh fever"]


def test_the_page_whose_sentence_is_shown_is_cited_first() -> None:
    pages = [
        *said("Canberra, Australia (GeoNames)", "Canberra is a city in Australia."),
        *said("Canberra", "Canberra is the capital city of Australia."),
    ]
    pages = [Said(item.text, item.url, "Canberra") for item in pages]
    found = extract("What is the capital city of Australia?", pages, retrieved=[pages[0].url])
    assert found is not None and found.line.startswith("Canberra. Canberra is the capital city")
    assert found.urls[0] == WIKI + "Canberra"


def test_a_place_the_results_only_use_to_place_others_is_searched_as_a_country() -> None:
    question = "What is the population of Canada?"
    notebook = Notebook(question)
    notebook.titles["https://www.geonames.org/1"] = "Québec, Canada (GeoNames)"
    notebook.titles["https://www.geonames.org/2"] = "Ottawa, Canada (GeoNames)"
    assert notebook.contains_others("Canada") and not notebook.contains_others("Ottawa")
    assert "Canada country" in _focus_searches(notebook, research_focus(question, []))
    notebook.titles[WIKI + "Canada"] = "Canada"  # its own page is among the results
    assert "Canada country" not in _focus_searches(notebook, research_focus(question, []))


def test_further_north_or_south_compares_the_records_latitudes() -> None:
    pages = [
        *said("Oslo", "Oslo is a city in Norway.", "It lies at latitude 59.91 and longitude 10.7."),
        *said("Lima", "Lima is a city in Peru.", "It lies at latitude -12.04 and longitude -77.0."),
    ]
    north = extract("Which capital lies further north, Oslo or Lima?", pages)
    assert north is not None and north.line.startswith("Oslo: latitude 59.91, further north")
    south = extract("Which city is further south, Oslo or Lima?", pages)
    assert south is not None and south.line.startswith("Lima: latitude -12.04, further south")
    for found in (north, south):  # one winner first, no hedge, no list of the options
        assert " or " not in found.line and "either" not in found.line


def test_a_bridge_of_a_name_ends_with_the_name() -> None:
    bridge = Shape("Into which body of water does the river of Paris empty?").bridge
    assert bridge is not None
    assert (bridge.phrase, bridge.question) == ("the river of Paris", "What is the river of Paris?")
    painter = Shape("In which country was the painter of the Mona Lisa born?").bridge
    assert painter is not None and painter.phrase == "the painter of the Mona Lisa"


def test_a_superlative_beside_something_else_does_not_describe_the_page() -> None:
    pages = said(
        "Mercury",
        "Mercury is the first planet from the Sun and the smallest in the Solar System.",
        "Its largest crater has a diameter of 1,550 km.",
    )
    question = "What is the largest planet in the Solar System?"
    assert described(question, pages) == []  # "planet" alone is one word of the description


def test_a_page_found_first_by_meaning_that_is_the_kind_asked_needs_no_shared_word() -> None:
    question = "Which organ inside the shell does the snail's breathing?"
    lung = said("Pallial lung", "Short description: Organ of air-breathing molluscs.")
    shell = said("Snail shell", "The snail shell is a calcium carbonate exoskeleton.")
    # No word of the description on the page: a search by meaning ranked it first.
    assert described(question, [*lung, *shell]) == []
    found = described(question, [*lung, *shell], retrieved=[shell[0].url, lung[0].url])
    assert [page.subject for page in found] == ["Pallial lung"]
    # Ranked first, but another kind of thing, and sharing no word: still no candidate.
    mantle = said("Mantle (mollusc)", "Short description: Dorsal body wall of a mollusc.")
    assert described(question, [*mantle, *shell], retrieved=[mantle[0].url]) == []
