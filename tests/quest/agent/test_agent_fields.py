"""The scripted researcher answers with the field a record page states (research.fields, issue
38): "Which airport serves Reykjavik and what is its IATA code?" by the airport's IATA code, not
Iceland's ISO codes; "Atomic number of gold?" by 79. The pages are the real ones the corpus
loader writes (airportsdata, mendeleev, us, GeoNames, Wikipedia), read as the notebook reads a
visit, and the agent runs end to end on the whole embedded corpus, searched with BM25."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.agent.loop import run_agent
from quest.agent.research.fields import field_answers, stated_fields
from quest.agent.research.reading import page_subject, resolve_subject
from quest.agent.research.tallies import Said
from quest.agent.scripted import ScriptedPolicy
from quest.corpus import Document, corpus_write, load_offline
from quest.corpus.domains import load_domains
from quest.search.indexing import bm25_build
from quest.text.sentences import split_sentences
from quest.tools.offline import offline_toolbox

RKV = "https://airports.questweb.local/RKV"
KEF = "https://airports.questweb.local/KEF"
GOLD = "https://elements.questweb.local/au"
ICELAND = "https://www.geonames.org/2629691"
REYKJAVIK = "https://www.geonames.org/3413829"
REYKJAVIK_AIRPORT = "Which airport serves Reykjavik and what is its IATA code?"


@pytest.fixture(scope="module")
def documents() -> dict[str, Document]:
    """Every page of the embedded corpus (`quest corpus load --source all`), by address."""
    return {d.url: d for d in [*load_offline(), *load_domains()]}


@pytest.fixture(scope="module")
def corpus(documents: dict[str, Document], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("embedded_corpus")
    corpus_write(folder, documents.values())
    bm25_build(folder)
    return folder


def read(documents: dict[str, Document], *urls: str) -> list[Said]:
    """The pages' sentences as the notebook keeps a visit's: each about the page's subject by
    name where it opens on a pronoun, the provenance line left out."""
    found = []
    for url in urls:
        page = documents[url]
        subject = page_subject(page.title)
        for raw in split_sentences(page.text):
            if raw.startswith("Source: "):
                continue
            found += [Said(s, url, subject) for s in split_sentences(resolve_subject(raw, subject))]
    return found


def answer_line(corpus: Path, question: str) -> str:
    answer = run_agent(question, policy=ScriptedPolicy(), toolbox=offline_toolbox(corpus)).answer
    return answer.split("\n\n")[0]


def first_sentence(line: str) -> str:
    return line.removeprefix("**Answer:** ").split(". ", 1)[0]


def test_a_record_page_states_its_fields(documents: dict[str, Document]) -> None:
    fields = {
        (f.attribute, f.value) for item in read(documents, RKV, GOLD) for f in stated_fields(item)
    }
    assert ("IATA code", "RKV") in fields and ("ICAO code", "BIRK") in fields
    assert ("elevation", "48 feet (15 metres) above sea level") in fields
    assert ("atomic number", "79") in fields and ("symbol", "Au") in fields
    assert ("group", "11") in fields and ("melting point", "1,337.33 K") in fields


def test_the_iata_code_asked_of_the_airport_is_its_record_field(
    documents: dict[str, Document],
) -> None:
    said = read(documents, ICELAND, RKV, REYKJAVIK)
    answers = field_answers(REYKJAVIK_AIRPORT, said)
    assert answers[1].answer == "RKV" and answers[1].urls == (RKV,)
    assert answers[0].answer == "Reykjavik Airport"  # the airport whose field it is


def test_a_less_specific_code_of_another_record_is_no_answer(
    documents: dict[str, Document],
) -> None:
    """Iceland's ISO 3166-1 codes and calling code are codes, not the IATA code asked for."""
    assert field_answers(REYKJAVIK_AIRPORT, read(documents, ICELAND, REYKJAVIK)) == {}


def test_the_icao_code_is_not_the_iata_code(documents: dict[str, Document]) -> None:
    said = read(documents, KEF)
    assert (
        field_answers("What is the ICAO code of Keflavik International Airport?", said)[0].answer
        == "BIKF"
    )
    assert (
        field_answers("What is the IATA code of Keflavik International Airport?", said)[0].answer
        == "KEF"
    )


def test_another_airports_code_is_not_answered_by_the_page_read(
    documents: dict[str, Document],
) -> None:
    said = read(documents, RKV)
    assert field_answers("What is the IATA code of Keflavik International Airport?", said) == {}


def test_an_attribute_the_page_does_not_state_gets_no_field(
    documents: dict[str, Document],
) -> None:
    said = read(documents, RKV, REYKJAVIK)
    # Reykjavík's population is stated, but of the city, not of the airport asked about.
    assert field_answers("What is the population of Reykjavik Airport?", said) == {}
    assert field_answers("What is the runway length of Reykjavik Airport?", said) == {}


def test_a_question_for_a_kind_of_thing_asks_no_attribute(documents: dict[str, Document]) -> None:
    """The page about the speed of light names the speed the question names, but the question
    asks for a scientist: no field of the page answers it."""
    said = read(documents, "https://en.wikipedia.org/wiki/Speed_of_light")
    question = (
        "Which scientist came up with the idea that energy equals mass times the speed of light "
        "squared?"
    )
    assert field_answers(question, said) == {}


def test_the_airport_serving_reykjavik_is_answered_with_its_iata_code(corpus: Path) -> None:
    line = answer_line(corpus, REYKJAVIK_AIRPORT)
    assert first_sentence(line) == "RKV"
    assert "Reykjavik Airport" in line
    assert "ISO" not in line and "Not established" not in line


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Atomic number of gold?", "79"),
        ("What is the atomic number of iron?", "26"),
        ("What is the IATA code of Keflavik International Airport?", "KEF"),
        ("What is the elevation of Denver International Airport?", "5,433 feet"),
        ("What is the melting point of gold?", "1,337.33 K"),
        ("Elevation of Aconcagua?", "6,967.15 metres"),
        ("How high is Mount Kilimanjaro?", "5,895 m"),
        ("What is the FIPS code of Texas?", "48"),
        ("In what year did Alaska become a state?", "1959"),
    ],
)
def test_the_asked_value_comes_first(corpus: Path, question: str, value: str) -> None:
    assert first_sentence(answer_line(corpus, question)).startswith(value)


def test_another_airports_code_is_its_own(corpus: Path) -> None:
    line = answer_line(corpus, "What is the IATA code of Keflavik International Airport?")
    assert "RKV" not in line and "BIKF" not in first_sentence(line)
