"""Answer candidates: question parts, pronoun subjects, support across sources, and the direct
answer line, on the tiny real corpus and on hand-written evidence."""

from __future__ import annotations

from agent_helpers import CANBERRA, GEONAMES_CANBERRA

from quest.agent import Budgets, ListSink, ScriptedPolicy, run_agent
from quest.agent.research.answers import Ledger
from quest.agent.research.facts import Evidence, sort_evidence
from quest.agent.research.parts import ENTITY, NUMBER, YEAR, split_parts
from quest.agent.research.question import Question
from quest.agent.research.reading import page_subject, resolve_subject
from quest.tools import Toolbox

NEWCASTLE = "https://www.geonames.org/2155472"
TWO_PARTS = "Which city is the capital of Australia, and which lake lies at its centre?"


def test_a_question_splits_into_the_parts_it_asks_with_their_answer_kinds() -> None:
    parts = split_parts(
        "Which city is the capital of Australia, in which year was it officially named, "
        "and which lake lies at its centre? Cite your sources."
    )
    assert [(p.kind, p.type_word, p.refers) for p in parts] == [
        (ENTITY, "city", False),
        (YEAR, "", True),
        (ENTITY, "lake", True),
    ]
    height = split_parts("Name the highest mountain in Africa and give its height in metres.")
    assert [p.kind for p in height] == [ENTITY, NUMBER]


def test_a_name_with_a_comma_or_an_and_stays_one_part() -> None:
    assert len(split_parts("What is the distance between the Earth and the Moon?")) == 1
    assert len(split_parts("What is the population of Washington, D.C.?")) == 1


def test_an_opening_pronoun_becomes_the_subject_of_its_page() -> None:
    subject = page_subject("Canberra, Australia (GeoNames)")
    assert subject == "Canberra"
    assert resolve_subject("It is the capital of Australia.", subject) == (
        "Canberra is the capital of Australia."
    )
    assert resolve_subject("Its population is 431,380.", "Canberra") == (
        "The population of Canberra is 431,380."
    )
    assert resolve_subject("The city is young.", "Canberra") == "The city is young."


def test_a_rival_answer_is_not_trusted_for_sharing_words_with_the_answer() -> None:
    question = Question("Which city is the capital of Australia?")
    evidence = [
        Evidence("Canberra is the capital of Australia.", GEONAMES_CANBERRA),
        Evidence("Canberra is a city in Australia.", GEONAMES_CANBERRA),
        Evidence("Canberra is the capital city of Australia.", CANBERRA),
        Evidence("Newcastle is a city in Australia.", NEWCASTLE),
    ]
    facts = sort_evidence(question, evidence)
    assert "Newcastle is a city in Australia." not in [f.claim for f in facts.trusted]
    ledger = Ledger(question)
    for item in evidence:
        ledger.add(item.claim, item.url)
    best = ledger.best(0)
    assert best is not None and best.text == "Canberra" and len(best.by_url) == 2
    assert ledger.all_settled(2)


def test_one_source_alone_does_not_settle_an_answer_when_two_are_asked_for() -> None:
    ledger = Ledger(Question("Which city is the capital of Australia?"))
    ledger.add("Canberra is the capital city of Australia.", CANBERRA, "Canberra")
    best = ledger.best(0)
    assert best is not None and best.trusted and best.own
    assert not ledger.settled(0, 2) and ledger.settled(0, 1)


def test_a_number_part_takes_a_measurement_of_the_main_answer() -> None:
    ledger = Ledger(Question("Name the highest mountain in Africa and give its height in metres."))
    ledger.add(
        "Mount Kilimanjaro is the highest mountain in Africa, at 5,895 m above sea level.",
        "https://en.wikipedia.org/wiki/Mount_Kilimanjaro",
        "Mount Kilimanjaro",
    )
    assert ledger.subject == "Mount Kilimanjaro"
    height = ledger.best(1)
    assert height is not None and height.text == "5,895 m" and height.trusted


def test_the_answer_line_answers_every_part_it_can_and_cites_its_sources(
    toolbox: Toolbox,
) -> None:
    sink = ListSink()
    result = run_agent(
        TWO_PARTS, policy=ScriptedPolicy(), toolbox=toolbox, budgets=Budgets.rl(), sink=sink
    )
    line = result.answer.splitlines()[0]
    assert line.startswith("**Answer:** Canberra is the capital city of Australia [1]")
    assert "Lake Burley Griffin lies at its centre [1]" in line
    assert "Not established" not in line
    assert sink.of("answer")[0]["citations"][0]["url"] == CANBERRA  # type: ignore[index]


def test_an_unanswered_part_is_named_in_the_answer_line(toolbox: Toolbox) -> None:
    question = "Which city is the capital of Australia, and in which year was it founded?"
    result = run_agent(question, policy=ScriptedPolicy(), toolbox=toolbox)
    line = result.answer.splitlines()[0]
    assert "Canberra" in line
    assert "Not established: in which year was it founded." in line
