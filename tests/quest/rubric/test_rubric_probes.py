from __future__ import annotations

from rubric_helpers import FIXTURES, leaf, node, tree

from quest.rubric import Check, Document, InMemoryDocumentStore, load_tree_file, probe_tree
from quest.rubric.probes import gibberish

WIKI = "https://en.wikipedia.org/wiki/Eiffel_Tower"
STORE = InMemoryDocumentStore(
    [
        Document(
            WIKI,
            "Eiffel Tower",
            "The Eiffel Tower in Paris is 330 metres tall. It opened on 31 March 1889.",
        )
    ]
)
SOLUTION = (
    "The Eiffel Tower in Paris is 330 metres tall [1]. It opened on 31 March 1889 [1].\n\n"
    f"References\n[1] {WIKI}"
)
SOUND = tree(
    node(
        "root",
        leaf("city", critical=True, check=Check("mentions", {"value": "Paris"})),
        leaf("height", check=Check("number", {"value": 330})),
        leaf("opened", check=Check("date", {"value": "1889-03-31"})),
        leaf("sourced", check=Check("source_supports", {"value": 330})),
    )
)


def test_a_sound_tree_ranks_the_counterfactual_answers_as_it_should() -> None:
    report = probe_tree(SOUND, SOLUTION, STORE)
    rewards = {probe.name: probe.reward for probe in report.probes}
    assert report.sound, report.reasons
    assert rewards["empty"] == 0.0
    assert rewards["with_citations"] == 1.0
    assert rewards["without_citations"] == 0.5  # base 2/3 (the sourcing leaf fails), no credit
    assert rewards["cited_gibberish"] == 0.0
    assert rewards["violated"] < rewards["without_citations"]
    assert report.probe("violated").note == "city (mentions)"


def test_a_tree_that_only_asks_for_citations_rewards_cited_gibberish_and_is_unsound() -> None:
    loose = tree(
        node(
            "root",
            leaf("cites", check=Check("cites_url", {})),
            leaf("any", check=Check("regex", {"pattern": r"\w"})),
        )
    )
    report = probe_tree(loose, SOLUTION, STORE)
    assert not report.sound
    assert any(reason.startswith("cited gibberish earns") for reason in report.reasons)


def test_a_tree_that_a_wrong_value_does_not_hurt_is_unsound() -> None:
    lenient = Check("number", {"value": 330, "tolerance_rel": 10})
    blind = tree(
        node(
            "root",
            leaf("height", check=lenient),
            leaf("tower", check=Check("regex", {"pattern": "Tower"})),
        )
    )
    report = probe_tree(blind, SOLUTION, STORE)
    assert not report.sound
    assert any("does not lower the reward" in reason for reason in report.reasons)


def test_judge_only_trees_without_a_judge_are_reported_as_undecided() -> None:
    quest_tree = load_tree_file(FIXTURES / "yu_lineage.json").tree
    report = probe_tree(quest_tree, "Xifeng Yan advised Yu Su.")
    assert not report.sound
    assert report.reasons[0].startswith("undecided leaves in")
    assert (
        "untested: no deterministic leaf value occurs in the solution to violate" in report.reasons
    )


def test_gibberish_keeps_every_citation_and_no_word() -> None:
    scrambled = gibberish(SOLUTION)
    assert WIKI in scrambled and "[1]" in scrambled
    prose = scrambled.split("https://")[0]
    assert "Eiffel" not in prose and "330" not in prose
    assert gibberish(SOLUTION) == scrambled
