"""Each funnel stage, on candidates it must pass and candidates it must reject."""

from __future__ import annotations

import copy
import random

import pytest

from quest.corpus.store import CorpusStore
from quest.rubric import TitleDistractors
from quest.rubric.documents import InMemoryDocumentStore
from quest.rubric.importers import import_canonical
from quest.rubric.score import compile_tree
from quest.search.encoder import MiniLMEncoder
from quest.synthesis import funnel
from quest.synthesis.facts import Draft, Unbuildable
from quest.synthesis.kgsynth import KGSynthesizer
from quest.synthesis.runner import alternative_answer, task_record


@pytest.fixture(scope="module")
def synth(pages: CorpusStore) -> KGSynthesizer:
    return KGSynthesizer(has_page=lambda url: pages.get(url) is not None)


def first(synth: KGSynthesizer, target: str, family: str) -> Draft:
    for seed in range(300):
        try:
            draft = synth.draft("News", target, random.Random(seed))
        except Unbuildable:
            continue
        if draft.family == family:
            return draft
    raise AssertionError(f"no {family} draft for {target}")


def test_schema_rejects_a_tree_that_breaks_quests_rules(synth: KGSynthesizer) -> None:
    task = task_record(first(synth, "C2", "lookup"), "News", {})
    broken = copy.deepcopy(task)
    broken["rubric"]["root"]["critical"] = True  # a critical parent with non-critical children
    stage, compiled = funnel.schema_stage(broken)
    assert not stage.passed and compiled is None
    assert "critical" in stage.reason
    good, compiled = funnel.schema_stage(task)
    assert good.passed and compiled is not None


def test_complexity_is_measured_on_the_tree_not_taken_from_the_label(synth: KGSynthesizer) -> None:
    task = task_record(first(synth, "C5", "lookup"), "News", {})
    assert funnel.complexity_stage(task, "C5").passed
    stage = funnel.complexity_stage(task, "C9")
    assert not stage.passed
    assert stage.detail["measured"] == "C5" and "asked for C9" in stage.reason


def test_solvability_fails_when_the_cited_pages_are_not_in_the_corpus(
    synth: KGSynthesizer, pages: CorpusStore, distractors: TitleDistractors
) -> None:
    task = task_record(first(synth, "C5", "lookup"), "News", {})
    compiled = compile_tree(import_canonical(task["rubric"]).tree)
    stages = funnel.probe_stages(
        compiled, task["reference_answer"], pages, distractors, task["question"]
    )
    assert [s.name for s in stages] == ["solvability", "soundness"]
    assert all(s.passed for s in stages), stages
    empty = InMemoryDocumentStore([])
    stages = funnel.probe_stages(
        compiled, task["reference_answer"], empty, distractors, task["question"]
    )
    assert [s.name for s in stages] == ["solvability"] and not stages[0].passed


def test_the_probes_reject_a_tree_that_rewards_citations_alone(
    synth: KGSynthesizer, pages: CorpusStore, distractors: TitleDistractors
) -> None:
    """A "find k" tree whose item groups pay for citing a valid page, whatever the answer says:
    the negated, hedged and wrong-entity answers cite the same pages and collect that credit."""
    draft = first(synth, "C5", "find_k")
    task = task_record(draft, "News", {})
    weak = copy.deepcopy(task)
    for group in weak["rubric"]["root"]["children"]:
        if "children" in group:  # an item group
            group["children"][0]["critical"] = False
        else:  # the guard against listing every country, which also needs a commitment
            group["critical"] = False
    compiled = compile_tree(import_canonical(weak["rubric"]).tree)
    stages = funnel.probe_stages(
        compiled, weak["reference_answer"], pages, distractors, weak["question"]
    )
    assert stages[0].passed, "the weak tree is still solvable"
    assert not stages[1].passed
    assert "negated" in stages[1].reason and stages[1].detail["verdict"] == "unsound"
    # The tree as generated (slots critical inside their groups) is sound.
    compiled = compile_tree(import_canonical(task["rubric"]).tree)
    assert funnel.probe_stages(
        compiled, task["reference_answer"], pages, distractors, task["question"]
    )[1].passed


def test_non_exclusivity_fails_a_tree_that_hard_codes_the_solutions_countries(
    synth: KGSynthesizer, pages: CorpusStore
) -> None:
    draft = first(synth, "C4", "find_k")
    task = task_record(draft, "News", {})
    alternatives = [
        ("other countries", alternative_answer(draft, alt)) for alt in draft.alternatives
    ]
    compiled = compile_tree(import_canonical(task["rubric"]).tree)
    assert funnel.non_exclusive_stage(compiled, alternatives, pages).passed
    hard = copy.deepcopy(task)
    for slot in hard["rubric"]["root"]["children"]:
        if slot["check"]["kind"] == "one_of":
            slot["check"]["values"] = sorted(draft.solution)
    compiled = compile_tree(import_canonical(hard["rubric"]).tree)
    stage = funnel.non_exclusive_stage(compiled, alternatives, pages)
    assert not stage.passed and "hard-codes" in stage.reason


def test_duplicates_by_entities_and_by_meaning() -> None:
    index = funnel.DuplicateIndex(MiniLMEncoder(), ["What is the capital city of Kenya?"])
    same = index.stage("Which city is the capital of Kenya?", ("KE", "capital"), ("KE",))
    assert not same.passed and same.detail["cosine"] >= funnel.SIMILAR_COSINE
    other = index.stage("Name three countries in Europe that use the euro.", ("Europe",), ("FR",))
    assert other.passed
    index.add("Name three countries in Europe that use the euro.", ("Europe",), ("FR",))
    again = index.stage("A different wording entirely", ("Europe",), ("DE",))
    assert not again.passed and "same entities" in again.reason


def test_similar_questions_are_one_task_when_they_share_most_of_their_subjects() -> None:
    index = funnel.DuplicateIndex(MiniLMEncoder())
    earlier = "Which of the elements Potassium, Tungsten, Ruthenium, Uranium or Nickel is densest?"
    index.add(earlier, ("densest", "K", "W", "Ru", "U", "Ni"), ("K", "W", "Ru", "U", "Ni"))
    # Three of seven elements in common: another set, another answer.
    other_set = "Which of the elements Potassium, Ruthenium, Uranium, Lithium or Zinc is densest?"
    other = index.stage(
        other_set, ("densest", "K", "Ru", "U", "Li", "Zn"), ("K", "Ru", "U", "Li", "Zn")
    )
    assert other.passed and other.detail["cosine"] >= funnel.SIMILAR_COSINE
    # Four of five in common: the same question again.
    same_set = "Which of the elements Potassium, Tungsten, Ruthenium or Uranium is densest?"
    same = index.stage(same_set, ("densest", "K", "W", "Ru", "U"), ("K", "W", "Ru", "U"))
    assert not same.passed and "near-duplicate" in same.reason
    # Of the similar questions, the one about the same things decides.
    index.add(other_set, ("densest", "K", "Ru", "U", "Li", "Zn"), ("K", "Ru", "U", "Li", "Zn"))
    again = index.stage(same_set, ("x",), ("K", "W", "Ni", "Ru"))
    assert not again.passed and earlier[:40] in again.reason


def test_without_an_encoder_only_the_same_entities_count() -> None:
    index = funnel.DuplicateIndex(None)
    index.add("q1", ("KE", "capital"), ("KE",))
    assert index.stage("q1 again", ("KE", "population"), ("KE",)).passed
    assert not index.stage("q1 again", ("KE", "capital"), ("KE",)).passed


class CountingEncoder:
    """The real MiniLM encoder, counting the texts it is asked to encode."""

    name = "counting-minilm"

    def __init__(self) -> None:
        self.inner = MiniLMEncoder()
        self.dimension = self.inner.dimension
        self.encoded: list[str] = []

    def encode(self, texts: list[str]) -> object:
        self.encoded += texts
        return self.inner.encode(texts)


def test_questions_already_in_the_store_are_encoded_once_per_process() -> None:
    encoder = CountingEncoder()
    store = ["What is the capital of Kenya?", "Name three countries that use the euro."]
    funnel.DuplicateIndex(encoder, store)  # type: ignore[arg-type]
    second = funnel.DuplicateIndex(encoder, [*store, "Which river flows through Paris?"])  # type: ignore[arg-type]
    assert encoder.encoded == [*store, "Which river flows through Paris?"]
    assert not second.stage("Which city is the capital of Kenya?", ("KE",), ("KE",)).passed
