"""The demo tasks against the real offline corpus: sound under the probes, and the answers that
used to game them (issue "A reward you can train on") now earn nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quest.corpus import load_offline
from quest.rubric import (
    Document,
    InMemoryDocumentStore,
    TitleDistractors,
    answer_reward,
    import_tree,
    probe_tree,
)

DEMO = Path(__file__).resolve().parents[3] / "fixtures" / "demo" / "tasks.jsonl"
KILIMANJARO = "https://en.wikipedia.org/wiki/Mount_Kilimanjaro"
GEONAMES = "https://www.geonames.org/"
WIKIPEDIA = "https://en.wikipedia.org/wiki/"


@pytest.fixture(scope="module")
def corpus() -> tuple[InMemoryDocumentStore, TitleDistractors]:
    docs = [Document(d.url, d.title, d.text) for d in load_offline()]
    return InMemoryDocumentStore(docs), TitleDistractors((d.url, d.title, d.text) for d in docs)


def demo_tasks() -> dict[str, dict[str, Any]]:
    records = [json.loads(line) for line in DEMO.read_text().splitlines()]
    return {
        r["provenance"]["demo_id"]: r
        for r in records
        if r["provenance"].get("generator") == "questweb demo"
    }


@pytest.mark.parametrize("demo_id", sorted(demo_tasks()))
def test_every_demo_task_is_solvable_offline_and_sound(demo_id: str, corpus: Any) -> None:
    store, distractors = corpus
    task = demo_tasks()[demo_id]
    tree = import_tree(task["rubric"]).tree
    report = probe_tree(
        tree, task["reference_answer"], store, distractors=distractors, question=task["question"]
    )
    assert report.verdict == "sound", report.reasons
    assert report.probe("solution").reward >= 0.95
    assert report.untested == ()


def test_the_demo_campaign_has_eight_tasks_each_with_a_distinct_question() -> None:
    """Eight, so that the demo campaign holds tasks of both splits (quest.training.held_out)."""
    tasks = demo_tasks()
    assert sorted(tasks) == sorted(
        ["canberra", "kilimanjaro", "paris", "burn-criteria", "tokyo", "ottawa", "cairo", "nairobi"]
    )
    assert len({task["question"] for task in tasks.values()}) == len(tasks)


@pytest.mark.parametrize("demo_id", sorted(demo_tasks()))
def test_every_demo_reference_answer_earns_the_whole_reward(demo_id: str, corpus: Any) -> None:
    task = demo_tasks()[demo_id]
    tree = import_tree(task["rubric"]).tree
    result = answer_reward(tree, task["reference_answer"], corpus[0])
    assert result.value == 1.0
    assert result.valid_rate == 1.0, "every citation of the reference answer is supported"


def reward(demo_id: str, answer: str, store: InMemoryDocumentStore) -> float | None:
    tree = import_tree(demo_tasks()[demo_id]["rubric"]).tree
    return answer_reward(tree, answer, store).value


@pytest.mark.parametrize(
    ("demo_id", "answer"),
    [
        (
            "kilimanjaro",
            "The highest mountain in Africa is Mount Kenya, not Kilimanjaro: it stands 5,895 m "
            f"high in Tanzania [1].\n\n[1] {KILIMANJARO}",
        ),
        (
            "kilimanjaro",
            "The highest mountain in Africa is Mount Kenya, Kilimanjaro, Mount Stanley or Ras "
            f"Dashen, at 5,895 m, in Tanzania [1].\n\n[1] {KILIMANJARO}",
        ),
        (
            "canberra",
            "Sydney is the capital of Australia, with 367,752 people; other cities include "
            "Melbourne, Canberra and Perth. The largest city is Sydney.",
        ),
        ("canberra", "https://www.geonames.org/2172517\nhttps://www.geonames.org/2077456"),
        ("paris", "Thought process:"),
        (
            "tokyo",
            "The capital of Japan is Kyoto [1]. Tokyo is the largest city, with 9,733,276 "
            f"people [1].\n\n[1] {GEONAMES}1861060",
        ),
        (
            "ottawa",
            "The capital of Canada is Toronto [1]. The largest city is Ottawa [1].\n\n"
            f"[1] {GEONAMES}6251999",
        ),
        (
            "cairo",
            "Alexandria is the capital of Egypt [1]. It lies on the Nile [1].\n\n"
            f"[1] {WIKIPEDIA}Giza",
        ),
        (
            "nairobi",
            "The capital of Kenya is Mombasa [1]. Nairobi has 4,397,073 people [1].\n\n"
            f"[1] {GEONAMES}184745",
        ),
    ],
)
def test_the_answers_that_gamed_the_old_reward_earn_nothing(
    demo_id: str, answer: str, corpus: Any
) -> None:
    assert reward(demo_id, answer, corpus[0]) == 0.0


def test_a_correct_answer_with_numeric_link_text_keeps_its_citation_credit(corpus: Any) -> None:
    answer = (
        "The highest mountain in Africa is Mount Kilimanjaro, a dormant volcano in Tanzania "
        f"[1]({KILIMANJARO}). Its summit stands 5,895 m above sea level [1]({KILIMANJARO})."
    )
    assert reward("kilimanjaro", answer, corpus[0]) == 1.0


@pytest.mark.parametrize(
    ("demo_id", "answer", "expected"),
    [
        # Wikipedia's 5.6 million is not the figure GeoNames gives, which the question asks for.
        (
            "nairobi",
            "The capital of Kenya is Nairobi [1]. It has a population of 5.6 million [1].\n\n"
            f"[1] {WIKIPEDIA}Nairobi",
            1 / 3,
        ),
        # The Nile page never names Cairo: the river is right but not sourced.
        (
            "cairo",
            "Cairo is the capital of Egypt [1]. It lies on the Nile [2].\n\n"
            f"[1] {WIKIPEDIA}Cairo\n[2] {WIKIPEDIA}Nile",
            2 / 3,
        ),
        # Montreal is the second largest: only the capital and its source count.
        (
            "ottawa",
            "The capital of Canada is Ottawa [1]. The largest city is Montreal [1].\n\n"
            f"[1] {GEONAMES}6251999",
            1 / 3,
        ),
    ],
)
def test_a_wrong_or_unsourced_part_costs_its_share(
    demo_id: str, answer: str, expected: float, corpus: Any
) -> None:
    assert reward(demo_id, answer, corpus[0]) == pytest.approx(expected)
