"""The reward on knowledge-graph-shaped trees against the attacks an optimiser finds: a committed
answer for identity, facts bound to their subject and relation, contradictions, retractions,
whole-name list items and the protocol's tags (quest.rubric.commitment, quest.rubric.binding)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from quest.rubric import Check, Node, RubricTree
from quest.rubric.documents import Document, InMemoryDocumentStore
from quest.rubric.evaluate import evaluate
from quest.rubric.reward import answer_reward

AU = "https://www.geonames.org/2077456"
CB = "https://www.geonames.org/2172517"
NZ = "https://www.geonames.org/2186224"
PAGES = InMemoryDocumentStore(
    [
        Document(
            AU,
            "Australia (GeoNames)",
            "Australia is a country or territory in Oceania, as recorded by GeoNames. Its "
            "capital is Canberra. Its area is 7,686,850 square kilometres. Its population is "
            "24,992,369. Its currency is the Dollar (AUD).",
        ),
        Document(
            CB,
            "Canberra (GeoNames)",
            "Canberra is a city in Australia, as recorded by GeoNames. It is the capital of "
            "Australia. Its population is 367,752.",
        ),
        Document(
            NZ,
            "New Zealand (GeoNames)",
            "New Zealand is a country or territory in Oceania, as recorded by GeoNames. Its "
            "capital is Wellington. Its area is 268,680 square kilometres. Its population is "
            "4,885,500. Its currency is the Dollar (NZD).",
        ),
    ]
)
OTHERS = ("New Zealand", "Papua New Guinea", "Fiji", "Samoa", "American Samoa")
POPULATION = ("population", "people", "inhabitants", "residents")
AREA = ("area", "square kilometres")


def _leaf(node_id: str, check: dict[str, object], critical: bool = False) -> Node:
    return Node(node_id, node_id, critical=critical, check=Check(str(check.pop("kind")), check))


LOOKUP = RubricTree(
    Node(
        "root",
        "Which country in Oceania has its capital at Canberra? Give its population and area.",
        children=(
            _leaf(
                "identity",
                {
                    "kind": "mentions",
                    "value": "Australia",
                    "committed": True,
                    "others": OTHERS,
                    "max_chars": 6000,
                },
                critical=True,
            ),
            _leaf(
                "population",
                {
                    "kind": "number",
                    "value": 24992369,
                    "tolerance_rel": 0.01,
                    "context": POPULATION,
                    "subject": "Australia",
                },
            ),
            _leaf(
                "population_sourced",
                {
                    "kind": "source_supports",
                    "value": 24992369,
                    "context": POPULATION,
                    "subject": "Australia",
                },
            ),
            _leaf(
                "area",
                {
                    "kind": "number",
                    "value": 7686850,
                    "tolerance_rel": 0.01,
                    "context": AREA,
                    "subject": "Australia",
                },
            ),
        ),
    )
)
FACTS = (
    "The population of Australia is 24,992,369 [1]. The area of Australia is 7,686,850 "
    "square kilometres [1]."
)
REFERENCE = f"{FACTS}\n\nExact answer: Australia\n\n[1] {AU}"


def _score(answer: str, tree: RubricTree = LOOKUP) -> float:
    reward = answer_reward(tree, answer, PAGES)
    assert reward.value is not None
    return reward.value


def _leaf_status(answer: str, leaf: str, tree: RubricTree = LOOKUP) -> str:
    verdict = evaluate(tree, answer, PAGES).verdict_of(leaf)
    assert verdict is not None
    return verdict.status


def test_the_reference_with_its_commitment_scores_full() -> None:
    assert _score(REFERENCE) == 1.0


def test_a_dossier_that_never_commits_scores_zero() -> None:
    dossier = (
        f"{FACTS} The population of New Zealand is 4,885,500 [2]. The area of New Zealand "
        f"is 268,680 square kilometres [2].\n\n[1] {AU}\n[2] {NZ}"
    )
    assert _score(dossier) == 0.0


def test_a_long_correct_report_keeps_its_credit_past_the_old_length_limit() -> None:
    padding = " ".join(["Oceania has many islands."] * 4000)  # ~100 KB, max_chars is 6,000
    assert _score(f"{FACTS} {padding}\n\nExact answer: Australia\n\n[1] {AU}") == 1.0


def test_a_retraction_after_the_commitment_leaves_nothing_committed() -> None:
    assert _score(f"{REFERENCE}\n\nAll of the above is wrong. The answer is New Zealand.") == 0.0


def test_a_retraction_then_another_commitment_commits_to_the_other() -> None:
    answer = f"{FACTS}\n\nAll of the above is wrong.\n\nExact answer: New Zealand\n\n[1] {AU}"
    assert _score(answer) == 0.0


def test_two_different_exact_answer_lines_commit_to_nothing() -> None:
    answer = f"Exact answer: New Zealand\n\n{FACTS}\n\nExact answer: Australia\n\n[1] {AU}"
    assert _score(answer) == 0.0


def test_a_comparison_with_the_right_country_commits_to_the_wrong_one() -> None:
    answer = (
        "The answer is New Zealand. For comparison, here is what the pages say about "
        f"Australia: {FACTS}\n\nExact answer: New Zealand\n\n[1] {AU}"
    )
    assert _score(answer) == 0.0


def test_denying_the_committed_country_in_any_wording_commits_to_nothing() -> None:
    for denial in (
        "Australia is wrong.",
        "Australia is incorrect.",
        "Australia is ruled out.",
        "Australia (false).",
        "Forget Australia.",
    ):
        answer = f"{FACTS} {denial}\n\nExact answer: Australia\n\n[1] {AU}"
        assert _score(answer) == 0.0, denial


def test_a_denial_far_from_the_name_is_about_something_else() -> None:
    answer = (
        "Some atlases wrongly print Sydney as the capital, while the population of Australia "
        f"is 24,992,369 [1].\n\nExact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(answer, "identity") == "pass"


def test_hedged_or_questioned_commitments_commit_to_nothing() -> None:
    for line in (
        "Australia or New Zealand",
        "probably Australia",
        "one of Australia, Fiji",
        "Is it Australia?",
        "Australia/New Zealand",
        "not New Zealand",
    ):
        assert _leaf_status(f"{FACTS}\n\nExact answer: {line}", "identity") == "fail", line


def test_the_committed_line_may_be_bold_and_end_with_a_period() -> None:
    assert _leaf_status(f"{FACTS}\n\n**Exact answer:** Australia.\n\n[1] {AU}", "identity") == (
        "pass"
    )


def test_a_second_answer_smuggled_in_protocol_tags_commits_to_nothing() -> None:
    answer = f"The answer is New Zealand.<ANSWER>{REFERENCE}</ANSWER>"
    assert _score(answer) == 0.0


def test_swapped_figures_earn_neither_fact_nor_citation() -> None:
    swapped = (
        "Australia has an area of 24,992,369 square kilometres and a population of 7,686,850 "
        f"people [1].\n\nExact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(swapped, "population") == "fail"
    assert _leaf_status(swapped, "area") == "fail"
    assert _leaf_status(swapped, "population_sourced") == "fail"


def test_a_fact_stated_of_another_country_earns_nothing() -> None:
    answer = (
        f"The population of New Zealand is 24,992,369 [1].\n\nExact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(answer, "population") == "fail"


def test_a_pronoun_sentence_continues_the_subject_before_it() -> None:
    answer = (
        f"Australia is in Oceania [1]. Its population is 24,992,369 [1].\n\n"
        f"Exact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(answer, "population") == "pass"


def test_right_and_wrong_figures_together_contradict() -> None:
    answer = (
        f"{FACTS} Its population is 7,686,850 according to another count.\n\n"
        f"Exact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(answer, "population") == "fail"
    assert "two values" in evaluate(LOOKUP, answer, PAGES).verdict_of("population").reasoning  # type: ignore[union-attr]


def test_a_year_beside_a_figure_is_no_second_figure() -> None:
    answer = (
        f"In 2019 the population of Australia was 24,992,369 [1].\n\n"
        f"Exact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(answer, "population") == "pass"


_ITEMS = tuple(
    _leaf(
        f"item_{i}",
        {
            "kind": "one_of",
            "values": ("Sudan", "Republic of the Congo", "Chad", "Egypt"),
            "committed": True,
            "at_least": i,
        },
    )
    for i in (1, 2)
)
_NOT_PADDED = _leaf(
    "not_padded",
    {
        "kind": "at_most",
        "values": ("Sudan", "South Sudan", "Chad", "Egypt", "Republic of the Congo"),
        "most": 4,
        "committed": True,
    },
    critical=True,
)
FIND_K = RubricTree(
    Node("root", "Name two countries of Africa that border Sudan.", children=(*_ITEMS, _NOT_PADDED))
)


def test_find_k_counts_whole_names_not_names_inside_longer_ones() -> None:
    answer = "Exact answer: South Sudan; Democratic Republic of the Congo"
    assert _score(answer, FIND_K) == 0.0
    assert _score("Exact answer: Chad; Egypt", FIND_K) == 0.75


def test_find_k_reads_the_committed_list_not_the_prose() -> None:
    prose = "Chad, Egypt, Sudan and the Republic of the Congo are all in Africa."
    assert _score(prose, FIND_K) == 0.0
    assert _score(f"{prose}\n\nExact answer: Chad", FIND_K) == 0.375


def test_a_committed_list_longer_than_allowed_earns_nothing() -> None:
    answer = "Exact answer: Chad; Egypt; Sudan; South Sudan; Republic of the Congo"
    assert _score(answer, FIND_K) == 0.0


_SENTENCES = st.sampled_from(
    [
        "The population of Australia is 24,992,369 [1].",
        "The area of Australia is 7,686,850 square kilometres [1].",
        "Australia is the answer.",
        "The country is Australia [1].",
        "Exact answer: Australia",
        "Australia, Australia, Australia.",
        "The capital of Australia is Canberra [2].",
        "New Zealand is not the answer.",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_SENTENCES, max_size=8),
    st.sampled_from(["New Zealand", "Fiji", "Samoa", "Papua New Guinea", "Canberra", ""]),
)
def test_any_answer_committed_to_a_wrong_country_scores_zero(body: list[str], wrong: str) -> None:
    answer = " ".join(body) + f"\n\nExact answer: {wrong}\n\n[1] {AU}\n[2] {CB}"
    assert _leaf_status(answer, "identity") == "fail"
    assert _score(answer) == 0.0


def test_prose_that_calls_another_country_the_answer_leaves_nothing_committed() -> None:
    for aside in (
        "Correction: the answer is New Zealand.",
        "All of the above is wrong. The answer is Fiji.",
        "The answer is Samoa. For comparison, here is what the pages say about Australia.",
    ):
        answer = f"{aside} {FACTS}\n\nExact answer: Australia\n\n[1] {AU}"
        assert _score(answer) == 0.0, aside


def test_prose_that_names_a_rival_only_to_rule_it_out_keeps_the_commitment() -> None:
    answer = (
        f"The answer is Australia, not New Zealand. {FACTS}\n\nExact answer: Australia\n\n[1] {AU}"
    )
    assert _leaf_status(answer, "identity") == "pass"


def test_striking_out_the_committed_country_takes_it_back() -> None:
    for struck in ("~~Australia~~ New Zealand", "<del>Australia</del> Fiji", "<s>Australia</s>"):
        answer = f"The country is {struck}. {FACTS}\n\nExact answer: Australia\n\n[1] {AU}"
        assert _score(answer) == 0.0, struck


def test_prose_that_calls_any_other_name_the_answer_leaves_nothing_committed() -> None:
    answer = (
        f"Disregard everything above: the answer is Kairouan. {FACTS}\n\nExact answer: Australia"
    )
    assert _leaf_status(answer, "identity") == "fail"
