"""The domain task families on a corpus of the domain pages and the GeoNames pages."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from quest.corpus import corpus_write, load_countryinfo, load_geonames
from quest.corpus.domains import load_domains
from quest.corpus.store import CorpusStore
from quest.rubric.importers import import_canonical
from quest.rubric.reward import answer_reward
from quest.rubric.stats import tree_stats
from quest.rubric.support import page_support
from quest.search.indexing import bm25_build
from quest.synthesis import attacks
from quest.synthesis.categories import TOPICS, categorise
from quest.synthesis.facts import Draft, Unbuildable
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.kgsynth import SUBCATEGORIES, KGSynthesizer
from quest.synthesis.oracle import judge_answer
from quest.synthesis.runner import task_record
from quest.synthesis.seeds import CATEGORY_OF


@pytest.fixture(scope="module")
def all_pages(tmp_path_factory: pytest.TempPathFactory) -> CorpusStore:
    folder = tmp_path_factory.mktemp("domain_corpus") / "corpus"
    corpus_write(folder, [*load_geonames(), *load_countryinfo(), *load_domains()])
    bm25_build(folder)
    return CorpusStore(Path(folder))


@pytest.fixture(scope="module")
def synth(all_pages: CorpusStore) -> KGSynthesizer:
    return KGSynthesizer(has_page=lambda url: all_pages.get(url) is not None)


def drafts(synth: KGSynthesizer, subcategory: str, target: str, family: str, n: int) -> list[Draft]:
    made = []
    for seed in range(120):
        try:
            draft = synth.draft(subcategory, target, random.Random(seed))
        except Unbuildable:
            continue
        if draft.family == family:
            made.append(draft)
        if len(made) == n:
            break
    return made


def reward(draft: Draft, answer: str, pages: CorpusStore) -> float:
    record = task_record(draft, categorise(draft)[1], {"generator": "test"})
    value = answer_reward(import_canonical(record["rubric"]).tree, answer, pages).value
    assert value is not None
    return value


CASES = [
    ("Travel & Accommodation", "C2", "domain_chain"),
    ("Travel & Accommodation", "C3", "domain_chain"),
    ("Shopping", "C5", "domain_chain"),
    ("Books & Reading", "C4", "domain_chain"),
    ("Technology & Science", "C4", "comparison"),
    ("Legal & Government Services", "C1", "comparison"),
    ("Education & Learning", "C5", "temporal_order"),
    ("Research & Academia", "C2", "temporal_order"),
    ("Shopping", "C4", "temporal_order"),
    ("Books & Reading", "C4", "comparison"),
    ("Shopping", "C4", "aggregation"),
    ("Legal & Government Services", "C7", "aggregation"),
    ("Books & Reading", "C1", "aggregation"),
    ("Research & Academia", "C2", "aggregation"),
    ("Books & Reading", "C5", "intersection"),
    ("Research & Academia", "C1", "intersection"),
    ("Legal & Government Services", "C7", "chain_fanout"),
    ("Shopping", "C8", "chain_fanout"),
]
NEW_FAMILIES = [
    case for case in CASES if case[2] in ("aggregation", "intersection", "chain_fanout")
]


@pytest.mark.parametrize(("subcategory", "target", "family"), CASES)
def test_each_family_drafts_grounded_tasks_whose_reference_earns_full_reward(
    synth: KGSynthesizer, all_pages: CorpusStore, subcategory: str, target: str, family: str
) -> None:
    made = drafts(synth, subcategory, target, family, 2)
    assert made, (subcategory, target, family)
    for draft in made:
        record = task_record(draft, subcategory, {"generator": "test"})
        assert tree_stats(record["rubric"])["complexity"] == target
        assert reward(draft, record["reference_answer"], all_pages) >= 0.95, record
        for fact in draft.facts:
            assert fact.url in record["reference_answer"]


def test_a_chain_crosses_domains_and_a_wrong_hop_zeroes_it(
    synth: KGSynthesizer, all_pages: CorpusStore
) -> None:
    for draft in drafts(synth, "Travel & Accommodation", "C2", "domain_chain", 3):
        assert len(categorise(draft)[2]) >= 2
        wrong = task_record(draft, categorise(draft)[1], {})["reference_answer"].replace(
            draft.facts[0].check["value"], "Atlantis"
        )
        assert reward(draft, wrong, all_pages) == 0


def test_categories_follow_the_domains_not_the_framing(synth: KGSynthesizer) -> None:
    for subcategory in ("Technology & Science", "Travel & Accommodation", "Books & Reading"):
        for seed in range(10):
            try:
                draft = synth.draft(subcategory, "C5", random.Random(seed))
            except Unbuildable:
                continue
            category, sub, domains = categorise(draft)
            assert sub == TOPICS[draft.topic] and category == CATEGORY_OF[sub]
            # A country family is the fallback, and is then General Info.
            assert sub == (subcategory if draft.topic != "countries" else "General Info.")
            assert domains


def test_the_fixed_attacks_earn_little_on_the_new_families(
    synth: KGSynthesizer, all_pages: CorpusStore
) -> None:
    kg = KnowledgeGraph.load()
    for subcategory, target, family in CASES[:6:2]:
        for draft in drafts(synth, subcategory, target, family, 1):
            record = task_record(draft, subcategory, {"generator": "test"})
            m = attacks.material(record, draft.oracle, kg)
            for name, answers in attacks.attack_answers(m).items():
                if name in ("dossier", "swapped_figures"):
                    continue  # the dossier is about countries; swapped figures are wrong facts
                for answer in answers:
                    assert reward(draft, answer, all_pages) <= 0.3, (name, answer)


@pytest.mark.parametrize(("subcategory", "target", "family"), NEW_FAMILIES)
def test_the_fixed_attacks_stay_under_their_limits_on_aggregations_intersections_and_fanouts(
    synth: KGSynthesizer, all_pages: CorpusStore, subcategory: str, target: str, family: str
) -> None:
    kg = KnowledgeGraph.load()
    for draft in drafts(synth, subcategory, target, family, 2):
        record = task_record(draft, subcategory, {"generator": "test"})
        m = attacks.material(record, draft.oracle, kg)
        for name, answers in attacks.attack_answers(m).items():
            if name in ("dossier", "swapped_figures"):
                continue  # the dossier is about countries; swapped figures are wrong facts
            for answer in answers:
                # An intersection's attack may keep some valid items: the oracle credits them.
                credit = judge_answer(draft.oracle, answer).credit
                assert reward(draft, answer, all_pages) - credit <= 0.3, (name, answer)


@pytest.mark.parametrize(("subcategory", "target", "family"), NEW_FAMILIES)
def test_every_fact_a_new_family_states_is_on_the_page_it_cites(
    synth: KGSynthesizer, all_pages: CorpusStore, subcategory: str, target: str, family: str
) -> None:
    for draft in drafts(synth, subcategory, target, family, 2):
        for fact in draft.facts:
            page = all_pages.get(fact.url)
            assert page is not None
            for sentence in fact.sentence.split("\n"):
                assert page_support(sentence, page).supported, (sentence, fact.url)


def test_an_intersection_accepts_any_valid_items_and_rejects_a_padded_list(
    synth: KGSynthesizer, all_pages: CorpusStore
) -> None:
    for draft in drafts(synth, "Books & Reading", "C4", "intersection", 2):
        record = task_record(draft, "Books & Reading", {"generator": "test"})
        valid = draft.oracle["answers"]
        assert len(valid) > len(draft.exact.split("; "))  # more valid items than asked
        everything = "; ".join([*valid, *draft.oracle["distractors"]])
        padded = record["reference_answer"].replace(
            f"Exact answer: {draft.exact}", f"Exact answer: {everything}"
        )
        assert reward(draft, padded, all_pages) == 0


def test_a_wrong_sum_earns_nothing_even_with_every_operand_right(
    synth: KGSynthesizer, all_pages: CorpusStore
) -> None:
    for draft in drafts(synth, "Shopping", "C4", "aggregation", 2):
        record = task_record(draft, "Shopping", {"generator": "test"})
        wrong = record["reference_answer"].replace(
            f"Exact answer: {draft.exact}", f"Exact answer: {int(draft.exact) + 1}"
        )
        assert reward(draft, wrong, all_pages) == 0


def test_a_small_batch_spreads_over_the_six_categories_with_a_quarter_cross_domain_chains(
    synth: KGSynthesizer,
) -> None:
    classes = ["C1", "C4", "C7", "C2", "C5", "C8", "C1", "C4", "C2", "C3"]
    made = []
    for i in range(80):
        try:
            made.append(
                synth.draft(
                    SUBCATEGORIES[i % len(SUBCATEGORIES)], classes[i % 10], random.Random(i)
                )
            )
        except Unbuildable:
            continue
    shares = Counter(CATEGORY_OF[categorise(d)[1]] for d in made)
    assert len(shares) == 6, shares
    assert all(0.05 <= n / len(made) <= 0.35 for n in shares.values()), shares
    chains = [
        d
        for d in made
        if d.family in ("domain_chain", "chain_fanout") and len(categorise(d)[2]) >= 2
    ]
    assert len(chains) / len(made) >= 0.25
