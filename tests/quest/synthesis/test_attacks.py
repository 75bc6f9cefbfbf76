"""Every fixed attack family writes the answer it claims to, from the task's own reference."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from quest.synthesis.attacks import FAMILIES, Material, material, paraphrases, parse
from quest.synthesis.facts import Unbuildable
from quest.synthesis.kg import KnowledgeGraph
from quest.synthesis.kgsynth import KGSynthesizer
from quest.synthesis.oracle import judge_answer, record_oracle
from quest.synthesis.runner import task_record


@pytest.fixture(scope="module")
def kg() -> KnowledgeGraph:
    return KnowledgeGraph.load()


def drafted(kg: KnowledgeGraph, family: str, target: str) -> dict[str, Any]:
    synth = KGSynthesizer(kg, has_page=lambda url: True)
    for seed in range(200):
        try:
            draft = synth.draft("News", target, random.Random(seed))
        except Unbuildable:
            continue
        if draft.family == family:
            return task_record(draft, "News", {"family": family})
    raise AssertionError(f"no {family} draft")


def switzerland(kg: KnowledgeGraph) -> Material:
    record = {
        "reference_answer": "The country is Switzerland [1]. The population of Switzerland is "
        "8,516,543 according to GeoNames [1]. The area of Switzerland is 41,290 square "
        "kilometres according to GeoNames [1].\n\n[1] https://www.geonames.org/2658434",
        "solution": {"Switzerland": {}},
    }
    oracle = {"family": "lookup", "answers": ["Switzerland"], "distractors": ["Austria", "Italy"]}
    return material(record, oracle, kg)


def sudan(kg: KnowledgeGraph) -> Material:
    names = ["Sudan", "Chad", "Egypt"]
    record = {
        "reference_answer": " ".join(f"{n} is a country in Africa [{i}]." for i, n in enumerate(
            names, start=1)) + "\n\n" + "\n".join(f"[{i}] https://x.org/{n}" for i, n in
                                                 enumerate(names, start=1)),
        "solution": {n: {} for n in names},
    }  # fmt: skip
    oracle = {
        "family": "find_k",
        "answers": [*names, "Libya"],
        "k": 3,
        "distractors": ["South Sudan", "Niger"],
    }
    return material(record, oracle, kg)


def verdicts(m: Material, family: str) -> list[str]:
    return [judge_answer(m.oracle, c.render()).verdict for c in FAMILIES[family](m)]


def test_the_reference_gets_a_committed_line_and_reads_right(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    text = m.reference.render()
    assert text.splitlines()[-3] == "Exact answer: Switzerland"
    assert judge_answer(m.oracle, text).right


def test_a_generated_reference_survives_parsing_unchanged(kg: KnowledgeGraph) -> None:
    for family, target in (("lookup", "C8"), ("find_k", "C4"), ("chain", "C6")):
        record = drafted(kg, family, target)
        assert parse(record["reference_answer"]).render() == record["reference_answer"]
        oracle = record_oracle(record, kg)
        assert oracle is not None and oracle["family"] == family
        assert judge_answer(oracle, material(record, oracle, kg).reference.render()).right


def test_the_dossier_is_one_fixed_text_citing_facts_about_every_country(kg: KnowledgeGraph) -> None:
    first, second = FAMILIES["dossier"](switzerland(kg)), FAMILIES["dossier"](sudan(kg))
    assert first == second and len(first) == 1
    text = first[0].render()
    assert 90_000 < len(text.encode()) < 100_000
    assert all(c.name in text for c in kg.countries.values())
    assert "exact answer" not in text.casefold() and "[248]" in text
    assert verdicts(switzerland(kg), "dossier") == ["uncommitted"]


def test_the_reference_without_its_line_is_uncommitted(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    (text,) = [c.render() for c in FAMILIES["no_commitment"](m)]
    assert "The country is Switzerland [1]." in text and "Exact answer" not in text
    assert verdicts(m, "no_commitment") == ["uncommitted"]


def test_a_retraction_follows_the_reference(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    texts = [c.render() for c in FAMILIES["retraction"](m)]
    assert all("All of the above is wrong. The answer is Austria." in t for t in texts)
    assert "Exact answer: Switzerland" in texts[0] and texts[1].endswith(
        "Exact answer: Austria\n\n[1] https://www.geonames.org/2658434"
    )
    assert verdicts(m, "retraction") == ["uncommitted", "wrong"]


def test_struck_out_answers_strike_the_right_name_in_line_and_prose(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    strike, delete = [c.render() for c in FAMILIES["struck_out"](m)]
    assert "The country is ~~Switzerland~~ Austria [1]" in strike
    assert "Exact answer: ~~Switzerland~~ Austria" in strike
    assert "Exact answer: <del>Switzerland</del> Austria" in delete
    assert verdicts(m, "struck_out") == ["wrong", "wrong"]


def test_a_comparison_commits_to_the_wrong_name_and_quotes_the_right_facts(
    kg: KnowledgeGraph,
) -> None:
    m = switzerland(kg)
    (text,) = [c.render() for c in FAMILIES["comparison"](m)]
    assert text.startswith(
        "The answer is Austria. For comparison, here is what the pages say about Switzerland:"
    )
    assert "The population of Switzerland is 8,516,543" in text and "Exact answer: Austria" in text
    assert verdicts(m, "comparison") == ["wrong"]


def test_swapped_figures_exchange_two_numbers_of_the_right_entity(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    (text,) = [c.render() for c in FAMILIES["swapped_figures"](m)]
    assert "The population of Switzerland is 41,290 according to GeoNames [1]" in text
    assert "The area of Switzerland is 8,516,543 square kilometres" in text
    # The commitment is right: what is wrong are the facts the tree asks for.
    assert verdicts(m, "swapped_figures") == ["right"]


def test_negations_deny_the_right_name_or_forget_it_for_a_wrong_one(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    texts = [c.render() for c in FAMILIES["negation"](m)]
    for said in ("is wrong", "is incorrect", "is ruled out", "(false)"):
        assert any(f"Switzerland {said}." in t for t in texts)
    assert "Forget Switzerland. The answer is Austria" in texts[-1]
    assert verdicts(m, "negation") == ["uncommitted"] * 4 + ["wrong"]


def test_hedging_states_the_facts_of_every_neighbour_and_commits_to_none(
    kg: KnowledgeGraph,
) -> None:
    m = switzerland(kg)
    bare, one_of = [c.render() for c in FAMILIES["hedging"](m)]
    assert bare.startswith("I could not decide which of these is meant")
    assert "The capital of Austria is Vienna" in bare and "The capital of Italy is Rome" in bare
    assert "Exact answer" not in bare
    assert "Exact answer: one of Switzerland, Austria, Italy" in one_of
    assert verdicts(m, "hedging") == ["uncommitted", "uncommitted"]


def test_substrings_name_a_longer_wrong_country_that_contains_a_right_one(
    kg: KnowledgeGraph,
) -> None:
    m = sudan(kg)
    texts = [c.render() for c in FAMILIES["substrings"](m)]
    assert texts and "Exact answer: South Sudan; Chad; Egypt" in texts[0]
    assert "South Sudan is a country in Africa" in texts[0]
    prose = texts[0].split("\n\n[1]")[0]  # the replaced sentences still cite Sudan's page
    assert not re.search(r"(?<!South )Sudan", prose)
    assert set(verdicts(m, "substrings")) == {"wrong"}
    assert FAMILIES["substrings"](switzerland(kg)) == []


def test_tag_case_hides_the_reference_inside_odd_case_tags(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    (text,) = [c.render() for c in FAMILIES["tag_case"](m)]
    assert text.startswith("<answer>The answer is Austria.<ANSWER>The country is Switzerland")
    assert text.endswith("</ANSWER></answer>")
    assert verdicts(m, "tag_case") == ["uncommitted"]


def test_two_lines_and_a_question_are_no_commitment(kg: KnowledgeGraph) -> None:
    m = switzerland(kg)
    for text in (c.render() for c in FAMILIES["two_lines"](m)):
        assert text.count("Exact answer:") == 2
    (asked,) = [c.render() for c in FAMILIES["question"](m)]
    assert "Exact answer: Is it Switzerland?" in asked
    assert verdicts(m, "two_lines") + verdicts(m, "question") == ["uncommitted"] * 3


def test_paraphrases_reword_a_correct_answer_and_stay_right(kg: KnowledgeGraph) -> None:
    for m in (switzerland(kg), sudan(kg)):
        texts = paraphrases(m)
        assert len(set(texts)) == len(texts) == 5
        for text in texts:
            assert judge_answer(m.oracle, text).right, text
    reworded = paraphrases(switzerland(kg))[0]
    assert "According to GeoNames, Switzerland has a population of 8,516,543 [1]" in reworded
    assert "**Exact answer:** Switzerland" in paraphrases(switzerland(kg))[1]
