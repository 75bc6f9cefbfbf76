"""The scripted researcher on questions that select countries by what gazetteer records state
(quest.agent.research.records and .selection): reading records from what the tools show,
reading the constraints of a question, and whole runs over a small invented gazetteer, where
no answer can come from anything but the records read."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_helpers import wiki_toolbox

from quest.agent.budgets import Budgets
from quest.agent.loop import run_agent
from quest.agent.research.records import (
    SelectionQuestion,
    read_record,
    split_names,
)
from quest.agent.scripted import ScriptedPolicy
from quest.tools import Toolbox


def record(name: str, continent: str, **facts: str) -> str:
    parts = [f"{name} is a country or territory in {continent}, as recorded by TestGaz."]
    parts += [f"Its capital is {facts['capital']}."] if "capital" in facts else []
    parts += [f"Its area is {facts['area']} square kilometres."] if "area" in facts else []
    parts += [f"Its population is {facts['population']}."] if "population" in facts else []
    parts += [f"Its currency is the {facts['currency']}."] if "currency" in facts else []
    parts += [f"It borders {facts['borders']}."] if "borders" in facts else []
    return " ".join(parts)


# An invented gazetteer: no model or memory knows these places.
PAGES = {
    "Aldoria (TestGaz)": record(
        "Aldoria", "Europe", capital="Velm", area="41,200", population="3,100,000",
        currency="Aldor (ALD)", borders="Brevia, Castellan and Dunmark",
    ),
    "Brevia (TestGaz)": record(
        "Brevia", "Europe", capital="Sarn", area="12,000", population="640,000",
        currency="Brevic mark (BRM)", borders="Aldoria and Castellan",
    ),
    "Castellan (TestGaz)": record(
        "Castellan", "Europe", capital="Orro", area="88,000", population="9,800,000",
        currency="Brevic mark (BRM)", borders="Aldoria and Brevia",
    ),
    "Dunmark (TestGaz)": record(
        "Dunmark", "Asia", capital="Kettle", area="230,000", population="15,000,000",
        currency="Dun (DUN)", borders="Aldoria",
    ),
    "Velm, Aldoria (TestGaz)": (
        "Velm is a city in Aldoria, as recorded by TestGaz. Its population is 410,000. "
        "It is the capital of Aldoria."
    ),
    "Brevia": "Brevia is a country in the west of Europe known for its Brevic mark coins and "
    "its currency history.",
}  # fmt: skip
BUDGETS = Budgets(max_turns=4, max_turn_tokens=512, max_tool_chars=2000)


@pytest.fixture(scope="module")
def gazetteer(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    return wiki_toolbox(Path(tmp_path_factory.mktemp("gazetteer")), PAGES)


def research(question: str, toolbox: Toolbox) -> str:
    result = run_agent(question, policy=ScriptedPolicy(), toolbox=toolbox, budgets=BUDGETS)
    assert result.status == "answered", result.status
    return result.answer


# -- reading records --------------------------------------------------------------------------
def test_a_whole_record_gives_every_attribute() -> None:
    text = PAGES["Aldoria (TestGaz)"]
    found = read_record("u", "Aldoria (TestGaz)", text, whole=True)
    assert found is not None
    assert (found.name, found.kind, found.place, found.capital) == (
        "Aldoria", "country", "Europe", "Velm",
    )  # fmt: skip
    assert (found.area, found.population, found.currencies) == (41_200, 3_100_000, ("ALD",))
    assert found.borders == ("Brevia", "Castellan", "Dunmark")
    assert found.source == "TestGaz"


def test_a_snippet_that_opens_past_the_name_is_still_a_record() -> None:
    snippet = (
        "… a country or territory in Asia, as recorded by TestGaz. Its capital is Kettle. Its …"
    )
    found = read_record("u", "Dunmark (TestGaz)", snippet, whole=False)
    assert found is not None and (found.kind, found.place, found.capital) == (
        "country", "Asia", "Kettle",
    )  # fmt: skip
    assert found.borders is None and found.population is None  # not shown, not assumed


def test_prose_about_a_country_is_not_a_record() -> None:
    assert read_record("u", "Brevia", PAGES["Brevia"], whole=True) is None


def test_a_city_record_names_the_country_it_is_the_capital_of() -> None:
    found = read_record(
        "u", "Velm, Aldoria (TestGaz)", PAGES["Velm, Aldoria (TestGaz)"], whole=True
    )
    assert found is not None
    assert (found.name, found.kind, found.capital_of, found.population) == (
        "Velm", "city", "Aldoria", 410_000,
    )  # fmt: skip


def test_a_neighbour_list_keeps_names_that_contain_and() -> None:
    listed = "Serbia, Montenegro and Bosnia and Herzegovina"
    assert split_names(listed) == ("Serbia", "Montenegro", "Bosnia and Herzegovina")
    assert split_names("Chad") == ("Chad",)


# -- reading questions ------------------------------------------------------------------------
def test_a_lookup_question_gives_its_constraints_and_the_facts_asked_in_order() -> None:
    question = SelectionQuestion.parse(
        "Which country is in Europe, has fewer than 1,000,000 inhabitants and uses the currency "
        "with ISO code BRM? Give the population GeoNames records for its capital, its capital "
        "and its area in square kilometres. Cite the pages you used."
    )
    assert question is not None and question.single and question.count == 1
    assert [c.phrase() for c in question.constraints] == [
        "in Europe", "currency BRM", "less than 1,000,000 inhabitants",
    ]  # fmt: skip
    assert question.asks == ("capital_population", "capital", "area")


def test_a_find_k_question_gives_its_count_and_hub() -> None:
    question = SelectionQuestion.parse("Name two countries in Europe that border Aldoria. Cite.")
    assert question is not None and not question.single and question.count == 2
    assert question.constraint("borders") is not None
    assert question.constraint("borders").value == "Aldoria"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "What is the capital city of Australia?",
        "Which river flows through Paris?",
        "Start from Kenya. Find the most populous country that borders it.",
        "Which country is in Europe?",  # a continent alone selects nothing
    ],
)
def test_other_questions_are_left_to_the_general_research(text: str) -> None:
    assert SelectionQuestion.parse(text) is None


# -- whole runs -------------------------------------------------------------------------------
def test_the_researcher_checks_every_constraint_not_just_the_first_record(
    gazetteer: Toolbox,
) -> None:
    # Two countries use BRM; only Brevia has fewer than 1,000,000 inhabitants.
    answer = research(
        "Which country is in Europe, has fewer than 1,000,000 inhabitants and uses the currency "
        "with ISO code BRM? Give its capital. Cite the pages you used.",
        gazetteer,
    )
    head = answer.splitlines()[0]
    assert head == "**Answer:** Brevia."
    assert "The capital of Brevia is Sarn [" in answer
    assert "Castellan" not in answer
    assert "Brevia (TestGaz) - " in answer  # the record is cited, not the prose page


def test_the_researcher_reads_the_capital_record_for_its_population(gazetteer: Toolbox) -> None:
    answer = research(
        "Identify the country that is in Europe and uses the currency with ISO code ALD, and "
        "report the population GeoNames records for its capital. Cite the pages you used.",
        gazetteer,
    )
    assert answer.startswith("**Answer:** Aldoria.")
    assert "The population of Velm is 410,000 [" in answer
    assert "Velm, Aldoria (TestGaz)" in answer


def test_a_neighbour_in_another_continent_is_not_listed(gazetteer: Toolbox) -> None:
    answer = research(
        "Name two countries in Europe that border Aldoria. Cite a page for each.", gazetteer
    )
    head = answer.splitlines()[0]
    assert "Brevia" in head and "Castellan" in head
    assert "Dunmark" not in head  # its record puts it in Asia
    assert "not" not in head and "though" not in head  # the answer itself never hedges
    # Each item is cited to its own record (a rubric's "a page about a valid country is cited").
    assert "Brevia (TestGaz) - " in answer and "Castellan (TestGaz) - " in answer


def test_no_record_meeting_the_constraints_gives_no_country(gazetteer: Toolbox) -> None:
    answer = research(
        "Which country is in Oceania and uses the currency with ISO code ALD? Give its capital.",
        gazetteer,
    )
    assert answer.startswith("**Answer:** No country found")
