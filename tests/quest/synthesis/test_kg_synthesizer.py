"""The knowledge-graph synthesizer on the real GeoNames and countryinfo pages."""

from __future__ import annotations

import random

import pytest

from quest.corpus.store import CorpusStore
from quest.rubric.importers import import_canonical
from quest.rubric.reward import answer_reward
from quest.rubric.stats import tree_stats
from quest.synthesis.facts import Unbuildable
from quest.synthesis.kg import KnowledgeGraph, agrees, robust_threshold
from quest.synthesis.kgsynth import Draft, KGSynthesizer
from quest.synthesis.runner import alternative_answer, task_record
from quest.synthesis.seeds import CLASSES


@pytest.fixture(scope="module")
def synth(pages: CorpusStore) -> KGSynthesizer:
    return KGSynthesizer(has_page=lambda url: pages.get(url) is not None)


def drafts(synth: KGSynthesizer, target: str, n: int, family: str | None = None) -> list[Draft]:
    made = []
    for seed in range(200):
        try:
            draft = synth.draft("General Info.", target, random.Random(seed))
        except Unbuildable:
            continue
        if family is None or draft.family == family:
            made.append(draft)
        if len(made) == n:
            break
    return made


def record(draft: Draft) -> dict:
    return task_record(draft, "General Info.", {"generator": "test"})


def test_the_graph_agrees_with_the_pages_it_was_read_from(pages: CorpusStore) -> None:
    kenya = KnowledgeGraph.load().get("KE")
    page = pages.get(kenya.url)
    assert page is not None and page.title == "Kenya (GeoNames)"
    assert f"Its capital is {kenya.capital}." in page.text
    assert f"Its population is {kenya.population_text()}." in page.text
    assert kenya.capital_city is not None
    assert "It is the capital of Kenya." in pages.get(kenya.capital_city.url).text  # type: ignore[union-attr]


def test_thresholds_are_chosen_where_both_sources_agree() -> None:
    # GeoNames and countryinfo put a country on different sides of 45 million: not a threshold.
    assert robust_threshold([(51_000_000, 41_800_000)], [45_000_000, 40_000_000]) == 40_000_000
    kenya = KnowledgeGraph.load().get("KE")
    assert agrees(kenya, "population", 40_000_000, True)
    assert not agrees(kenya, "population", 45_000_000, True)


@pytest.mark.parametrize("target", CLASSES)
def test_every_class_is_built_with_the_shape_it_names(synth: KGSynthesizer, target: str) -> None:
    made = drafts(synth, target, 3)
    assert len(made) == 3
    for draft in made:
        stats = tree_stats(record(draft)["rubric"])
        assert stats["complexity"] == target, (draft.family, stats)


@pytest.mark.parametrize("target", CLASSES)
def test_reference_answers_earn_full_reward_with_the_corpus_pages(
    synth: KGSynthesizer, pages: CorpusStore, target: str
) -> None:
    for draft in drafts(synth, target, 2):
        task = record(draft)
        tree = import_canonical(task["rubric"]).tree
        reward = answer_reward(tree, task["reference_answer"], pages)
        assert reward.value is not None and reward.value >= 0.95, (task["reference_answer"], reward)
        assert all(c.label == "supported" for c in reward.citations)


def test_find_k_accepts_any_valid_countries_and_no_invalid_one(
    synth: KGSynthesizer, pages: CorpusStore
) -> None:
    draft = drafts(synth, "C5", 1, family="find_k")[0]
    tree = import_canonical(record(draft)["rubric"]).tree
    valid = list(draft.tree_root["children"][0]["children"][0]["check"]["values"])
    assert len(valid) > len(draft.solution), "more valid countries than slots: non-exclusive"
    others = [name for name in valid if name not in draft.solution]
    alternative = alternative_answer(draft, draft.alternatives[0])
    assert any(name in alternative for name in others)
    assert answer_reward(tree, alternative, pages).value >= 0.95  # type: ignore[operator]
    # The same sentences about countries outside the valid set earn nothing.
    outside = [c for c in KnowledgeGraph.load().countries.values() if c.name not in valid][:8]
    wrong = " ".join(f"{c.name} is a country [{i}]." for i, c in enumerate(outside, 1)) + "\n\n"
    wrong += "\n".join(f"[{i}] {c.url}" for i, c in enumerate(outside, 1))
    assert answer_reward(tree, wrong, pages).value == 0


def test_find_k_gives_nothing_to_an_answer_that_lists_the_whole_continent(
    synth: KGSynthesizer, pages: CorpusStore
) -> None:
    # Without the guard, naming all 50-odd countries of a continent filled every item slot.
    kg = KnowledgeGraph.load()
    for draft in drafts(synth, "C5", 3, family="find_k"):
        tree = import_canonical(record(draft)["rubric"]).tree
        continent = kg.get(draft.subjects[0]).continent
        members = [c for c in kg.countries.values() if c.continent == continent]
        listing = ", ".join(c.name for c in members)
        sources = "\n".join(f"[{i}] {c.url}" for i, c in enumerate(members, 1))
        padded = f"**Answer:** {listing} [1].\n\n{sources}"
        assert answer_reward(tree, padded, pages).value == 0, draft.question
        # The reference answer, which names the k asked, still earns full reward.
        assert answer_reward(tree, record(draft)["reference_answer"], pages).value >= 0.95


def test_a_wrong_first_hop_zeroes_the_whole_chain(synth: KGSynthesizer, pages: CorpusStore) -> None:
    draft = drafts(synth, "C3", 1, family="chain")[0]
    task = record(draft)
    tree = import_canonical(task["rubric"]).tree
    first = next(iter(draft.solution))
    kg = KnowledgeGraph.load()
    start = kg.get(draft.subjects[0])
    wrong = next(n.name for n in kg.neighbours(start) if n.name != first)
    answer = task["reference_answer"].replace(first, wrong)
    assert answer_reward(tree, answer, pages).value == 0


def test_lookup_questions_state_only_the_constraints_needed(synth: KGSynthesizer) -> None:
    kg = KnowledgeGraph.load()
    for draft in drafts(synth, "C1", 10, family="lookup"):
        assert draft.question.count(",") <= 6
        assert kg.get(draft.subjects[0]).name in draft.solution
