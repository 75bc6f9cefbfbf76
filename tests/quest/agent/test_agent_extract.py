"""Direct answers from the pages read (research.extract, .compare, .focus, .shape): typed
answers, staying on the question's subject, comparisons and two-hop questions, on small
hand-written pages; and the scripted policy end to end on a small real corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_helpers import wiki_toolbox

from quest.agent import Budgets, ScriptedPolicy, run_agent
from quest.agent.research.extract import extract, person_resolved, ranked
from quest.agent.research.focus import answer, research_focus
from quest.agent.research.question import Question, scoped_elsewhere
from quest.agent.research.reading import resolve_subject, short_description
from quest.agent.research.shape import NUMBER, PERSON, PLACE, YEAR, Shape
from quest.agent.research.tallies import Said
from quest.corpus.wiki import SHORT_DESCRIPTION
from quest.tools import Toolbox

WIKI = "https://en.wikipedia.org/wiki/"


def said(subject: str, *sentences: str) -> list[Said]:
    url = WIKI + "_".join(subject.split())
    return [Said(person_resolved(s, subject), url, subject) for s in sentences]


def test_the_shape_says_what_kind_of_answer_a_question_wants() -> None:
    assert Shape("Who wrote Hamlet?").kind == PERSON
    assert Shape("In which country is Mount Kilimanjaro?").kind == PLACE
    assert Shape("In what year did the Titanic sink?").kind == YEAR
    assert Shape("How tall is Mount Everest in metres?").kind == NUMBER
    assert Shape("How tall is Mount Everest in metres?").units == {"metres"}
    assert "river" in Shape("Which river flows through Paris?").type_words


def test_a_comparison_names_its_options_its_attribute_and_which_end_wins() -> None:
    larger = Shape("Kenya or Peru, which has the larger population?").comparison
    assert larger is not None
    assert (larger.options, larger.attribute, larger.larger_wins) == (
        ("Kenya", "Peru"),
        "population",
        True,
    )
    earlier = Shape("Who was born first, Isaac Newton or Albert Einstein?").comparison
    assert earlier is not None and earlier.attribute == "born" and not earlier.larger_wins
    assert Shape("Who wrote Hamlet?").comparison is None


def test_a_two_hop_question_asks_for_its_bridge_first() -> None:
    bridge = Shape("What is the capital of the country where the Taj Mahal stands?").bridge
    assert bridge is not None and bridge.noun == "country"
    assert "Taj Mahal" in bridge.question
    owned = Shape("On which continent is the country whose capital is Lima?").bridge
    assert owned is not None and owned.question == "Which country has Lima as its capital?"
    assert Shape("What is the capital of Canada?").bridge is None
    assert Shape("In which country is the city of Timbuktu?").bridge is None


def test_an_answer_stated_on_a_page_already_read_is_found() -> None:
    pages = said(
        "Paris",
        "Paris is the capital and largest city of France.",
        "Located on the river Seine, Paris is a centre of finance.",
    )
    found = extract("Which river flows through Paris?", pages)
    assert found is not None and found.answer == "Seine"
    assert "river Seine" in found.line


def test_a_who_question_finds_the_person_a_page_speaks_of_by_pronoun() -> None:
    pages = said(
        "Miguel de Cervantes",
        "Miguel de Cervantes was a Spanish writer.",
        "He is best known for his novel Don Quixote.",
    )
    found = extract("Who wrote Don Quixote?", pages)
    assert found is not None and found.answer == "Miguel de Cervantes"


def test_a_who_question_is_answered_by_who_acts_in_the_sentence() -> None:
    opener = said(
        "Ilsa Marrow",
        "Ilsa Marrow was a Veldish pilot who, as captain of the Orion Seven flight, became "
        "the first person to fly over the Grey Peaks.",
    )
    found = extract("Who was the first person to fly over the Grey Peaks?", opener)
    assert found is not None and found.answer == "Ilsa Marrow"
    assert found.line.startswith("Ilsa Marrow. Ilsa Marrow was")  # the answer first, always
    agent = said(
        "Book of Tides",
        "The Book of Tides is a treatise by the Veldish scholar Oren Falk, which sets out the "
        "three laws of the tide and the law of the moon's pull.",
    )
    found = extract("Who set out the three laws of the tide and the moon's pull?", agent)
    assert found is not None and found.answer == "Oren Falk"  # not the book that sets them out
    opera = said(
        "The Glass Bell",
        "The Glass Bell is an opera in three acts by Tomas Varga Lind to a Veldish libretto by "
        "Anna Petra Holm.",
    )
    found = extract("Which Veldish composer wrote The Glass Bell?", opera)
    assert found is not None and found.answer == "Tomas Varga Lind"  # the agent of "opera by"


def test_a_where_question_prefers_a_place_the_page_puts_its_subject_in() -> None:
    pages = said(
        "Mount Kilimanjaro",
        "Mount Kilimanjaro is a dormant volcano in Tanzania.",
        "It is the fourth most prominent peak on Earth, climbed by Hans Meyer.",
    )
    found = extract("Where is Mount Kilimanjaro?", pages)
    assert found is not None and found.answer == "Tanzania"


def test_a_number_is_read_in_the_unit_the_question_asks_for() -> None:
    pages = said("Nile", "At 6,650 km (4,130 mi) long, the Nile is the longest river in Africa.")
    found = extract("How long is the Nile in miles?", pages)
    assert found is not None and found.answer == "4,130 mi"
    plain = extract("How long is the Nile?", pages)
    assert plain is not None and plain.answer == "6,650 km"  # not the bracketed conversion


def test_a_head_count_is_never_an_amount_of_land_or_a_percentage() -> None:
    pages = said(
        "Azerbaijan",
        "The area of Azerbaijan is 86,600 square kilometres, 12% of it forest.",
        "Azerbaijan has a population of 10.1 million.",
    )
    found = extract("What is the population of Azerbaijan?", pages)
    assert found is not None and found.answer == "10.1 million"


def test_a_when_question_answers_with_a_year() -> None:
    pages = said("Berlin Wall", "The Berlin Wall fell on 9 November 1989, after 28 years.")
    found = extract("In what year did the Berlin Wall fall?", pages)
    assert found is not None and found.answer == "1989"


def test_the_answer_stays_on_the_subject_asked_about_not_a_neighbour() -> None:
    pages = [
        *said("Nile", "The Nile is a river in Africa, about 6,650 km long."),
        *said(
            "Niger River",
            "The Niger River is 4,180 km long and is the third-longest river in Africa.",
            "Unlike the Nile, the Niger River flows through Mali at 4,180 km long.",
        ),
    ]
    found = extract("How long is the Nile?", pages)
    assert found is not None and found.answer == "6,650 km"


def test_a_comparison_names_the_winner_first() -> None:
    pages = [
        *said("Kenya", "Kenya is a country in East Africa with a population of 54.2 million."),
        *said("Peru", "Peru is a country in South America with a population of 34 million."),
    ]
    found = extract("Kenya or Peru, which has the larger population?", pages)
    assert found is not None and found.answer == "Kenya"
    assert found.line.startswith("Kenya") and "Peru" in found.line and "larger" in found.line
    smaller = extract("Which has fewer people, Kenya or Peru?", pages)
    assert smaller is not None and smaller.answer == "Peru"


def test_a_comparison_without_amounts_falls_back_on_world_ranks() -> None:
    pages = [
        *said("China", "China is the world's third-largest country by area."),
        *said("India", "India is the world's seventh-largest country by area."),
    ]
    found = extract("Which is the larger country by area, China or India?", pages)
    assert found is not None and found.answer == "China"


def test_a_comparison_takes_an_order_a_page_states_over_figures() -> None:
    pages = [
        *said("Lake Orm", "Lake Orm is the largest lake of the Veld, 900 km2 in size."),
        *said(
            "Lake Tarn",
            "The size of Lake Tarn is 700 km2.",
            "It is the second-largest lake in the world by surface area after Lake Orm.",
        ),
    ]
    found = extract("Which lake is larger, Lake Tarn or Lake Orm?", pages)
    assert found is not None and found.answer == "Lake Orm"
    assert found.line.startswith("Lake Orm is larger than Lake Tarn")
    smaller = extract("Which lake is smaller, Lake Tarn or Lake Orm?", pages)
    assert smaller is not None and smaller.answer == "Lake Tarn"  # by the figures


def test_a_comparison_without_figures_takes_the_only_unqualified_superlative() -> None:
    hot = said("Vesta Prime", "Its surface reaches 700 K, making it the hottest world known.")
    mild = said("Orla", "Orla is the second-hottest world known, and Veld's hottest moon.")
    found = extract("Which is hotter, Orla or Vesta Prime?", [*hot, *mild])
    assert found is not None and found.answer == "Vesta Prime"
    both = said("Orla", "Orla is the hottest world known.")
    assert extract("Which is hotter, Orla or Vesta Prime?", [*hot, *both]) is None


def test_a_comparison_with_a_missing_figure_gives_no_answer() -> None:
    pages = said("Kenya", "Kenya has a population of 54.2 million.")
    assert extract("Kenya or Peru, which has the larger population?", pages) is None
    focus = research_focus("Kenya or Peru, which has the larger population?", pages)
    assert focus.more == ("Peru",) and focus.searches == ("Peru population",)


def test_a_two_hop_question_is_answered_about_the_bridge_it_resolves() -> None:
    question = "What is the capital of the country where the Taj Mahal stands?"
    taj = said("Taj Mahal", "The Taj Mahal is a mausoleum on the river Yamuna in Agra, India.")
    india = said("India", "India is a country in South Asia.", "Its capital is New Delhi.")
    first = research_focus(question, taj)
    assert first.bridge in {"India", "Agra"}
    assert "India" in first.names or "Agra" in first.names
    both = [*taj, *india, *said("Agra", "Agra is a city in India.")]
    found = answer(question, both)
    assert found is not None and found.answer == "New Delhi"


def test_a_code_answer_is_given_by_the_name_a_record_states_it_with() -> None:
    pages = [
        *said("Veldmark", "The currencies of Veldmark are VDL."),
        *said("Veldmark", "Veldmark is a country in Europe.", "Its currency is the Dalar (VDL)."),
    ]
    found = extract("What is the currency of Veldmark?", pages)
    assert found is not None and found.answer == "Dalar"
    assert "(VDL)" in found.line
    alone = extract("What is the currency of Veldmark?", pages[:1])
    assert alone is not None and alone.answer == "VDL"  # nothing read names it: the code stays
    code = extract("What is the ISO code of the currency of Veldmark?", pages)
    assert code is not None and code.answer == "VDL"


def test_another_name_of_the_subject_asked_about_is_not_its_answer() -> None:
    pages = said(
        "Veldmark",
        "Veldmark, officially the Free Veld Republic, is a country whose official language "
        "is Veldish.",
    )
    found = extract("What is the official language of Veldmark?", pages)
    assert found is not None and found.answer == "Veldish"


def test_the_noun_asked_for_prefers_what_a_page_says_it_is() -> None:
    pages = [
        *said(
            "Veldish language",
            "Veldish is a Germanic language used officially within Veldmark, Orn and Tarsk.",
        ),
    ]
    found = extract("What is the official language of Veldmark?", pages)
    assert found is not None and found.answer == "Veldish"  # not Orn or Tarsk


def test_a_place_written_smallest_first_gives_the_end_asked_for() -> None:
    pages = said("Orn Abbey", "Orn Abbey is a ruined abbey in Kessel, Low March, Veldmark.")
    country = extract("In which country does Orn Abbey stand?", pages)
    assert country is not None and country.answer == "Veldmark"
    city = extract("In which town does Orn Abbey stand?", pages)
    assert city is not None and city.answer == "Kessel"


@pytest.fixture(scope="module")
def small_world(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    pages = {
        "Kenya": "Kenya is a country in East Africa. Its population is 54,200,000.",
        "Peru": "Peru is a country in South America. Its population is 34,000,000.",
        "Taj Mahal": "The Taj Mahal is a marble mausoleum in Agra, India.",
        "India": "India is a country in South Asia. Its capital is New Delhi.",
        "Agra": "Agra is a city on the river Yamuna in the state of Uttar Pradesh, India.",
        "Paris": "Paris is the capital of France. Located on the river Seine, it is a port.",
    }
    return wiki_toolbox(Path(tmp_path_factory.mktemp("small_world")), pages)


def _answer_line(question: str, toolbox: Toolbox) -> str:
    result = run_agent(question, policy=ScriptedPolicy(), toolbox=toolbox, budgets=Budgets.rl())
    return result.answer.splitlines()[0]


def test_the_researcher_answers_a_where_question_from_the_page_it_read(
    small_world: Toolbox,
) -> None:
    line = _answer_line("Which river flows through Paris?", small_world)
    assert line.startswith("**Answer:** Seine") and "[1]" in line


def test_the_researcher_names_the_larger_option_of_a_comparison(small_world: Toolbox) -> None:
    line = _answer_line("Kenya or Peru, which has the larger population?", small_world)
    assert line.startswith("**Answer:** Kenya") and "Peru" in line


def test_a_comparison_the_pages_do_not_settle_is_answered_as_not_settled(
    small_world: Toolbox,
) -> None:
    # India's page gives no population: a fact about Kenya alone is no answer.
    line = _answer_line("Kenya or India, which has the larger population?", small_world)
    assert line.startswith("**Answer:** Not settled:")
    assert "Kenya" in line and "India" in line


def test_the_researcher_resolves_the_bridge_of_a_two_hop_question(small_world: Toolbox) -> None:
    line = _answer_line(
        "What is the capital of the country where the Taj Mahal stands?", small_world
    )
    assert line.startswith("**Answer:** New Delhi")


def described(subject: str, description: str, *sentences: str) -> list[Said]:
    """A page as the reader takes it: its short description first, then its sentences."""
    lines = resolve_subject(f"{SHORT_DESCRIPTION}{description}", subject).split(". ")
    return said(subject, *(line.removesuffix(".") + "." for line in lines), *sentences)


def test_a_short_description_reads_as_what_its_subject_is_with_its_years_written_out() -> None:
    assert short_description("Veldish composer (1756\u20131791).", "Orlan Vesk") == (
        "Orlan Vesk: Veldish composer, born in 1756. Orlan Vesk died in 1791."
    )
    # A state's or a war's years are when it began and ended, not a life.
    assert short_description("Imperial dynasty of Veld (1368\u20131644)", "Orm dynasty") == (
        "Orm dynasty: imperial dynasty of Veld, began in 1368. Orm dynasty ended in 1644."
    )
    assert short_description("State in Mesopotamia (c. 2334\u20132154 BC)", "Akkad") == (
        "Akkad: state in Mesopotamia, began in c. 2334 BC. Akkad ended in 2154 BC."
    )
    # What the name says it is counts too: "half of the Orm Empire" is no life.
    assert short_description("Western half of Orm (395\u2013476)", "West Orm Empire") == (
        "West Orm Empire: western half of Orm, began in 395. West Orm Empire ended in 476."
    )
    # The first word is a name only when it names a people (or is written in capitals).
    assert short_description("Type of lyric poem", "Ode") == "Ode: type of lyric poem."
    assert short_description("Italian polymath", "Leo") == "Leo: Italian polymath."
    assert short_description("NATO member", "Veld") == "Veld: NATO member."
    assert short_description("American singer (born 1958)", "Mira") == (
        "Mira: American singer (born 1958)."
    )
    assert resolve_subject("Short description: Fifth planet from the Sun.", "Jupiter") == (
        "Jupiter: fifth planet from the Sun."
    )


def test_a_year_of_birth_or_death_is_read_from_a_short_description() -> None:
    page = described("Orlan Vesk", "Veldish composer (1756\u20131791).", "He wrote 600 works.")
    born = extract("In what year was Orlan Vesk born?", page)
    died = extract("In what year did Orlan Vesk die?", page)
    assert born is not None and born.answer == "1756"
    assert died is not None and died.answer == "1791"


def test_when_a_state_began_or_fell_is_read_from_its_short_description() -> None:
    page = described("West Orm Empire", "Western half of Orm (395\u2013476).")
    fell = extract("In what year did the West Orm Empire fall?", page)
    began = extract("In what year was the West Orm Empire founded?", page)
    assert fell is not None and fell.answer == "476"
    assert began is not None and began.answer == "395"
    pages = [*page, *described("Tarn Republic", "Republic on the Veld (1201\u20131500).")]
    earlier = extract("Which began earlier, the Tarn Republic or the West Orm Empire?", pages)
    assert earlier is not None and earlier.answer == "West Orm Empire"


def test_who_was_born_first_compares_the_years_of_full_names_ending_in_the_options() -> None:
    pages = [
        *described("Tamar Quill", "Veldish composer (1770\u20131827)."),
        *described("Orlan Amadeus Vesk", "Composer and musician (1756\u20131791)."),
    ]
    found = extract("Who was born earlier, Vesk or Quill?", pages)
    assert found is not None and found.answer == "Vesk"
    assert found.line == "Vesk (born 1756), earlier than Quill (born 1770)."
    ancient = [
        *described("Kael Orm", "Veldish general (100 BC\u201344 BC)."),
        *described("Tarn Vesk", "Veldish king (742\u2013814)."),
    ]
    first = extract("Who was born first, Tarn Vesk or Kael Orm?", ancient)
    assert first is not None and first.answer == "Kael Orm"  # a year BC counts down


def test_what_a_short_description_says_its_subject_was_is_not_another_answer() -> None:
    page = described(
        "Leo Brant", "Italian polymath (1452\u20131519).", "Leo Brant was born in Vinci, Italy."
    )
    found = extract("In which country was Leo Brant born?", page)
    assert found is not None and found.answer == "Italy"


def test_a_superlative_ranked_below_the_first_does_not_state_the_one_asked_for() -> None:
    asked = Question("What is the largest planet of the Veld system?")
    assert not asked.match("Orla is the second-largest-known dwarf planet of the Veld.").picks
    assert asked.match("Brisk is the largest planet of the Veld system.").picks


def test_a_superlative_said_of_another_place_does_not_state_the_one_asked() -> None:
    places = ["Veld"]
    assert scoped_elsewhere("Orm Peak is the highest mountain in Tarnland.", places) == {"highest"}
    assert scoped_elsewhere("Orm Peak: mountain in Tarnland, highest in the Veld.", places) == set()
    assert scoped_elsewhere("Orm Peak is the highest mountain of all.", places) == set()
    assert scoped_elsewhere("Orm Peak is the highest mountain in Tarnland.", []) == set()
    pages = [
        *described("Orm Peak", "Highest mountain in Tarnland", "Orm Peak is in the Veld."),
        *described("Brisk Peak", "Mountain in Solland, highest in the Veld"),
    ]
    found = extract("What is the highest mountain in the Veld?", pages)
    assert found is not None and found.answer == "Brisk Peak"


def test_another_name_a_page_gives_its_subject_answers_as_the_page_s_own_name() -> None:
    page = said(
        "Temur Khan",
        "Temur Khan, also known as Chagan Khan, was the founder and first khan of the Orm Empire.",
    )
    found = extract("Who founded the Orm Empire?", page)
    assert found is not None and found.answer == "Temur Khan"
    founders = [found.answer for found in ranked("Who founded the Orm Empire?", page)]
    assert "Chagan Khan" not in founders  # counted for Temur Khan


def test_a_year_of_birth_answers_only_a_question_about_a_life() -> None:
    page = [
        *described("Cristo Vell", "Veldish navigator (1451\u20131506)."),
        *said("Cristo Vell", "Cristo Vell first reached the Orm Islands in 1492."),
    ]
    reached = extract("In what year did Cristo Vell first reach the Orm Islands?", page)
    assert reached is not None and reached.answer == "1492"
    born = extract("In what year was Cristo Vell born?", page)
    assert born is not None and born.answer == "1451"


def test_an_amount_on_another_page_belongs_to_the_subject_named_nearest_before_it() -> None:
    question = "How long is the Orvel River?"
    # On the page about the Tarn, "it" owns the length; the Orvel is only compared with it.
    tarn = Said(
        "At 4,100 kilometres long, it is the longest river of Kadia, although smaller than the "
        "Orvel.",
        "https://en.wikipedia.org/wiki/Tarn_River",
        "Tarn River",
    )
    assert extract(question, [tarn]) is None
    # A page about something else that names the Orvel before its length states it.
    basin = Said(
        "The Orvel River, 2,950 km long, drains most of the basin.",
        "https://en.wikipedia.org/wiki/Kadia_basin",
        "Kadia basin",
    )
    found = extract(question, [tarn, basin])
    assert found is not None and found.answer == "2,950 km"


def test_a_length_asked_in_kilometres_is_no_angle_temperature_or_bare_number() -> None:
    question = "What is the diameter of Velia in kilometres?"
    pages = [
        Said(
            "Velia is shown on maps at about 66° 34' N, with temperatures from 153 to 20 °C.",
            "https://en.wikipedia.org/wiki/Velia",
            "Velia",
        )
    ]
    assert extract(question, pages) is None
    pages.append(
        Said("Velia has a diameter of 4,212 km.", "https://en.wikipedia.org/wiki/Velia", "Velia")
    )
    found = extract(question, pages)
    assert found is not None and found.answer == "4,212 km"
    # An area asked in square kilometres takes its unit.
    area = Said("Velia covers 8,500 km2.", "https://en.wikipedia.org/wiki/Velia", "Velia")
    found = extract("What is the area of Velia in square kilometres?", [area])
    assert found is not None and found.answer == "8,500 km2"
