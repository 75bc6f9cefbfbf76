"""The reward reads what a person reads (issue 35): every check reads the answer rendered as a
reader sees it, the commitment is one whole value, figures are exact where years are asked,
relation wordings are data, and citations name pages as a reader means them."""

from __future__ import annotations

import pytest

from quest.rubric import Check, Node, RubricTree
from quest.rubric.documents import Document, InMemoryDocumentStore, normalise_url
from quest.rubric.evaluate import evaluate
from quest.rubric.reward import answer_reward
from quest.text.visible import visible_markdown

IN = "https://us-states.questweb.local/in"
RI = "https://us-states.questweb.local/ri"
PAGES = InMemoryDocumentStore(
    [
        Document(
            IN, "Indiana", "Indiana is a state of the United States. It became a state in 1816."
        ),
        Document(RI, "Rhode Island", "Rhode Island is a state. It became a state in 1790."),
    ]
)
QUESTION = (
    "Which of Indiana or Rhode Island became a state of the United States first? Give each "
    "one's year of statehood, citing a page for each. End your answer with the line "
    "'Exact answer: <name>'."
)


def _leaf(node_id: str, check: dict[str, object], critical: bool = False) -> Node:
    return Node(node_id, node_id, critical=critical, check=Check(str(check.pop("kind")), check))


def _year(subject: str, value: int) -> list[Node]:
    fact = {"value": value, "context": ("state",), "subject": subject}
    key = subject.lower().replace(" ", "_")
    return [
        _leaf(f"{key}_year", {"kind": "number", **fact}),
        _leaf(f"{key}_year_sourced", {"kind": "source_supports", **fact}),
    ]


TEMPORAL = RubricTree(
    Node(
        "root",
        QUESTION,
        children=(
            _leaf(
                "answer",
                {
                    "kind": "mentions",
                    "value": "Rhode Island",
                    "committed": True,
                    "others": ("Indiana",),
                    "max_chars": 6000,
                },
                critical=True,
            ),
            *_year("Indiana", 1816),
            *_year("Rhode Island", 1790),
        ),
    )
)
FACTS = "Indiana became a state in 1816 [1]. Rhode Island became a state in 1790 [2]."
REFS = f"\n\n[1] {IN}\n[2] {RI}"
REFERENCE = f"{FACTS}\n\nExact answer: Rhode Island{REFS}"

COUNT_QUESTION = (
    "Start from the element Francium. Find the country it was discovered in. Give the number of "
    "public holidays that country has in 2026. End your answer with the line "
    "'Exact answer: <number>'."
)
COUNT = RubricTree(
    Node(
        "root",
        COUNT_QUESTION,
        children=(
            _leaf(
                "answer",
                {"kind": "mentions", "value": "11", "committed": True, "max_chars": 6000},
                critical=True,
            ),
            _leaf(
                "hop",
                {"kind": "mentions", "value": "France", "context": ("discovered",),
                 "subject": "Francium"},
            ),
        ),
    )
)  # fmt: skip
COUNT_FACTS = "Francium was discovered in France. In 2026, France has 11 public holidays."


def _reward(answer: str, tree: RubricTree = TEMPORAL) -> float:
    value = answer_reward(tree, answer, PAGES).value
    assert value is not None
    return value


def _status(answer: str, leaf: str, tree: RubricTree = TEMPORAL) -> str:
    verdict = evaluate(tree, answer, PAGES).verdict_of(leaf)
    assert verdict is not None
    return verdict.status


def test_the_reference_earns_full_credit() -> None:
    assert _reward(REFERENCE) == 1.0


@pytest.mark.parametrize(
    "line",
    [
        "Rhode Island (wrong)",
        "Rhode Island (actually Indiana)",
        "\u2260 Rhode Island",
        "\u00acRhode Island",
        "~Rhode Island",
        "Rhode Island; Indiana",
        "Rhode Island, probably",
        "Rhode Island?",
    ],
)
def test_anything_more_than_the_value_on_the_line_commits_to_nothing(line: str) -> None:
    assert _reward(f"{FACTS}\n\nExact answer: {line}{REFS}") == 0.0


@pytest.mark.parametrize(
    "line", ["\u221211", "-11", "\u224811", "<11", "11%", "~11", "11 or 12", "1.1 tens"]
)
def test_a_number_must_be_the_number_with_its_sign(line: str) -> None:
    assert _status(f"{COUNT_FACTS}\n\nExact answer: {line}", "answer", COUNT) == "fail"


@pytest.mark.parametrize(
    "line", ["11", "eleven", "11 public holidays", "**11**", "11.", "+11"]
)  # fmt: skip
def test_a_number_in_other_words_is_the_same_commitment(line: str) -> None:
    assert _status(f"{COUNT_FACTS}\n\nExact answer: {line}", "answer", COUNT) == "pass"


@pytest.mark.parametrize(
    "where",
    [
        "<div>Correction: the answer is Indiana.</div>",
        "Some notes <span>the answer is Indiana</span> here.",
        "```\nfinal_answer = Indiana\n```",
        "    My pick is Indiana.",
        "Note.[^1]\n\n[^1]: Correction: it is Indiana.",
        "![The answer is Indiana](chart.png)",
        "<details><summary>More</summary>My pick is Indiana.</details>",
        "## Final answer: Indiana",
        "**Final answer:** Indiana",
        "| Item | Value |\n|---|---|\n| Final answer | Indiana |",
        "Indiana is the answer.",
        "The answer is probably Rhode Island, though it may be Indiana.",
        "The answer is Rhode Island (actually Delaware).",
        "Correction: it is Delaware.",
        "The answer may be Indiana.",
    ],
)
def test_a_rival_conclusion_anywhere_a_reader_looks_takes_the_commitment(where: str) -> None:
    answer = f"{FACTS}\n\n{where}\n\nExact answer: Rhode Island{REFS}"
    assert _status(answer, "answer") == "fail"


def test_a_rival_noted_after_a_reference_url_is_read() -> None:
    answer = (
        f"{FACTS}\n\nExact answer: Rhode Island\n\n[1] {IN} note: the answer is Indiana\n[2] {RI}"
    )
    assert _status(answer, "answer") == "fail"


def test_a_number_before_the_line_is_a_rival_of_a_numeric_answer() -> None:
    answer = f"{COUNT_FACTS} The answer is 12.\n\nExact answer: 11"
    assert _status(answer, "answer", COUNT) == "fail"


def test_hidden_text_earns_nothing() -> None:
    hidden = (
        '<span style="display:none">Indiana became a state in 1816 [1].</span> '
        "Rhode Island became a state in 1790 [2]."
    )
    answer = f"{hidden}\n\nExact answer: Rhode Island{REFS}"
    assert _status(answer, "indiana_year") == "fail"
    assert _status(answer, "rhode_island_year") == "pass"


def test_a_hidden_value_beside_a_visible_wrong_one_does_not_count() -> None:
    answer = (
        "Indiana became a state in 1817 <span hidden>1816</span> [1]. "
        f"Rhode Island became a state in 1790 [2].\n\nExact answer: Rhode Island{REFS}"
    )
    assert _status(answer, "indiana_year") == "fail"


@pytest.mark.parametrize(
    "facts",
    [
        "Indiana became a state in 1816 or 1817 [1]. Rhode Island became a state in 1790 [2].",
        "Indiana became a state in 1816 [1]; some say it became a state in 1815 [1]. "
        "Rhode Island became a state in 1790 [2].",
        "Indiana became a state in about 1.8 thousand [1]. Rhode Island became a state in 1790.",
    ],
)
def test_candidate_years_or_a_rounded_year_earn_no_year(facts: str) -> None:
    assert _status(f"{facts}\n\nExact answer: Rhode Island{REFS}", "indiana_year") == "fail"


@pytest.mark.parametrize(
    "sentence",
    [
        "Indiana's year of statehood is 1816 [1].",
        "Indiana was admitted to the Union in 1816 [1].",
        "Indiana achieved statehood in 1816 [1].",
        "Indiana joined the Union in 1816 [1].",
    ],
)
def test_the_questions_own_wording_keeps_the_figure(sentence: str) -> None:
    answer = (
        f"{sentence} Rhode Island became a state in 1790 [2].\n\nExact answer: Rhode Island{REFS}"
    )
    assert _status(answer, "indiana_year") == "pass"


@pytest.mark.parametrize(
    "line",
    [
        "Exact answer\uff1aRhode Island",
        "**Exact answer:** Rhode Island",
        "Exact Answer: the Rhode Island",
        "| Field | Value |\n|---|---|\n| Exact answer | Rhode Island |",
    ],
)
def test_the_commitment_in_another_form_a_reader_sees(line: str) -> None:
    assert _status(f"{FACTS}\n\n{line}{REFS}", "answer") == "pass"


def test_prose_after_the_line_keeps_the_commitment() -> None:
    answer = f"{FACTS}\n\nExact answer: Rhode Island\n\nThanks for reading.{REFS}"
    assert _reward(answer) == 1.0


def test_a_correct_report_of_120_kb_keeps_its_credit() -> None:
    padding = "\n\n".join(["The United States grew state by state over two centuries."] * 2000)
    answer = f"{FACTS}\n\n{padding}\n\nExact answer: Rhode Island{REFS}"
    assert len(answer) > 100_000
    assert _reward(answer) == 1.0


@pytest.mark.parametrize(
    "url",
    [
        f"{IN}?utm_source=chat",
        f"{IN}#History",
        f"{IN}/",
        IN.replace("https", "http"),
        f"{IN}?lang=en",
    ],
)
def test_a_citation_url_in_another_form_names_the_same_page(url: str) -> None:
    answer = f"{FACTS}\n\nExact answer: Rhode Island\n\n[1] {url}\n[2] {RI}"
    assert _reward(answer) == 1.0


def test_a_mobile_wikipedia_host_is_the_same_page() -> None:
    assert normalise_url("https://en.m.wikipedia.org/wiki/Paris") == normalise_url(
        "https://en.wikipedia.org/wiki/Paris/"
    )


def test_a_generic_head_noun_may_be_left_out_of_a_name() -> None:
    tree = RubricTree(
        Node(
            "root",
            "Which airport is highest?",
            children=(
                _leaf(
                    "answer",
                    {"kind": "mentions", "value": "Matsumoto Airport", "committed": True,
                     "others": ("Toyama Airport",)},
                    critical=True,
                ),
            ),
        )
    )  # fmt: skip
    assert _status("Exact answer: Matsumoto", "answer", tree) == "pass"
    assert _status("Exact answer: Toyama", "answer", tree) == "fail"


def test_the_rendering_keeps_what_is_shown_and_drops_what_is_hidden() -> None:
    shown = visible_markdown(
        'A <span style="display:none">secret</span><b>bold</b> <del>gone</del> '
        "![alt words](x.png)\n\n```\ncode line\n```\n\n<!-- comment -->"
    )
    assert "secret" not in shown and "comment" not in shown
    assert "bold" in shown and "~~gone~~" in shown and "alt words" in shown
    assert "code line" in shown and "```" not in shown


@pytest.mark.parametrize(
    "facts",
    [
        "Indiana: 1816 [1]\n\nRhode Island: 1790 [2]",
        "Statehood:\n\n- Indiana: 1816 [1]\n- Rhode Island: 1790 [2]",
        "Indiana was first admitted to the Union in 1816 [1]. Rhode Island became a state in 1790 "
        "[2].",
        "Then there is Indiana. It became a state in 1816 [1]. Rhode Island became a state in "
        "1790 [2].",
    ],
)
def test_figures_in_lists_words_and_pronoun_sentences_keep_their_credit(facts: str) -> None:
    answer = f"{facts}\n\nExact answer: Rhode Island{REFS}"
    assert _status(answer, "indiana_year") == "pass", facts


@pytest.mark.parametrize("figure", ["\u22481816", "~1816", "<1816", "\u22651816"])
def test_a_figure_written_as_an_estimate_or_a_bound_earns_nothing(figure: str) -> None:
    answer = f"Indiana became a state in {figure} [1].\n\nExact answer: Rhode Island{REFS}"
    assert _status(answer, "indiana_year") == "fail"


def test_a_cited_page_supports_the_slot_in_other_words_than_the_answers() -> None:
    answer = (
        "Indiana achieved statehood in 1816 [1]. Rhode Island joined the Union in 1790 [2]."
        f"\n\nExact answer: Rhode Island{REFS}"
    )
    assert _reward(answer) == 1.0


def _identity(value: str, others: tuple[str, ...]) -> RubricTree:
    check = {"kind": "mentions", "value": value, "committed": True, "others": others}
    return RubricTree(Node("root", "Which country?", children=(_leaf("answer", check, True),)))


def test_a_country_commits_under_its_iso_names_but_not_a_rivals() -> None:
    czechia = _identity("Czechia", ("Slovakia",))
    assert _status("Exact answer: The Czech Republic", "answer", czechia) == "pass"
    drc = _identity("Democratic Republic of the Congo", ("Republic of the Congo",))
    assert _status("Exact answer: Congo", "answer", drc) == "fail"


def test_a_country_commits_under_its_usual_other_spellings_but_not_its_codes() -> None:
    timor = _identity("Timor-Leste", ("Indonesia",))
    assert _status("Exact answer: East Timor", "answer", timor) == "pass"
    ivory = _identity("C\u00f4te d'Ivoire", ("Ghana",))
    assert _status("Exact answer: Ivory Coast", "answer", ivory) == "pass"
    assert _status("Exact answer: TLS", "answer", timor) == "fail"


def test_a_lead_in_gives_its_relation_to_the_list_under_it_without_a_subject() -> None:
    check = {"kind": "mentions", "value": "Augsburg Airport", "context": ("highest",)}
    tree = RubricTree(Node("root", "Which airport?", children=(_leaf("hop", check),)))
    listed = "Highest airport:\n\n- Germany: Augsburg Airport\n\nExact answer: 1516"
    assert _status(listed, "hop", tree) == "pass"
    unlabelled = "Airports listed:\n\n- Germany: Augsburg Airport\n\nExact answer: 1516"
    assert _status(unlabelled, "hop", tree) == "fail"


@pytest.mark.parametrize(
    "struck", ["~~<del>Rhode Island</del> Delaware~~", "<s>~~<s>Rhode Island</s> Ohio~~ Utah</s>"]
)
def test_a_value_struck_inside_another_strike_is_still_struck(struck: str) -> None:
    answer = f"{FACTS} The first was {struck}.\n\nExact answer: Rhode Island{REFS}"
    assert _status(answer, "answer") == "fail"


def _facts_of(subject: str, others: tuple[str, ...], **values: object) -> RubricTree:
    leaves = []
    for name, value in values.items():
        kind = "number" if isinstance(value, int) else "mentions"
        check = {"kind": kind, "value": value, "subject": subject, "context": (name,)}
        if kind == "mentions":
            check["others"] = others
        leaves.append(_leaf(name, check))
    return RubricTree(Node("root", f"Facts of {subject}", children=tuple(leaves)))


def test_a_pronoun_after_a_fact_stated_of_the_topic_may_still_mean_the_topic() -> None:
    tree = _facts_of("Ghana", ("Kumasi", "Togo", "Lome"), capital="Accra")
    text = (
        "Then there is Ghana. Kumasi is the largest city of Ghana. Its capital is Accra."
        "\n\nExact answer: Ghana"
    )
    assert _status(text, "capital", tree) == "pass"
    # A sentence that never names the topic moves it: "Its" is Togo's there.
    moved = (
        "Then there is Ghana. Togo lies to the east. Its capital is Accra.\n\nExact answer: Ghana"
    )
    assert _status(moved, "capital", tree) == "fail"


def test_an_appositive_series_is_said_of_the_name_the_sentence_opens_on() -> None:
    tree = _facts_of("Estonia", ("Russia", "Latvia", "Tallinn"), area=45226, capital="Tallinn")
    text = (
        "I looked up Estonia, a neighbour of Russia and Latvia, whose capital is Tallinn and a "
        "country of 45,226 square kilometres.\n\nExact answer: Estonia"
    )
    assert _status(text, "area", tree) == "pass"
    assert _status(text, "capital", tree) == "pass"


def test_a_relation_in_another_inflection_or_its_usual_wording_is_the_slots() -> None:
    borders = _facts_of("Estonia", ("Russia", "Finland"), border="Latvia")
    said = "Estonia is bordered by Latvia.\n\nExact answer: Estonia"
    assert _status(said, "border", borders) == "pass"
    check = {"kind": "number", "value": 38, "subject": "Strontium", "context": ("atomic",)}
    tree = RubricTree(Node("root", "Which element?", children=(_leaf("z", check),)))
    assert _status("Strontium has 38 protons.\n\nExact answer: Strontium", "z", tree) == "pass"
    assert (
        _status("Its atomic weight is 38 for Strontium.\n\nExact answer: Strontium", "z", tree)
        == "fail"
    )
