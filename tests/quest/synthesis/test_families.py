"""The domain task families on a corpus of the domain pages and the GeoNames pages."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from quest.corpus import corpus_write, load_countryinfo, load_geonames
from quest.corpus.domains import load_domains
from quest.corpus.store import CorpusStore
from quest.rubric.importers import import_canonical
from quest.rubric.reward import answer_reward
from quest.rubric.stats import tree_stats
from quest.search.indexing import bm25_build
from quest.synthesis import attacks
from quest.synthesis.categories import TOPICS, categorise
from quest.synthesis.facts import Draft, Unbuildable
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.kgsynth import KGSynthesizer
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
    for seed in range(60):
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
