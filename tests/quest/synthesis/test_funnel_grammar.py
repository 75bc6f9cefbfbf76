"""The funnel's red-team stage also reads a seeded sample of the grammar's attacks and correct
rewordings (quest.synthesis.funnel.grammar_sample): a reward that pays an attack, or refuses a
correct rewording, fails the tree; the real reward on a real tree passes it."""

from __future__ import annotations

from typing import Any

import pytest

from quest.corpus import load_domains
from quest.rubric.documents import Document, InMemoryDocumentStore
from quest.rubric.importers import import_canonical
from quest.rubric.reward import answer_reward
from quest.rubric.score import compile_tree
from quest.synthesis.funnel import grammar_sample
from tests.quest.synthesis.test_grammar import RECORDS


def _record(family: str) -> dict[str, Any]:
    return next(r for r in RECORDS if r["provenance"]["family"] == family)


def test_a_reward_that_pays_everything_is_beaten_by_the_attacks() -> None:
    # A stand-in reward, named for what it is: it pays every answer in full.
    sampled = grammar_sample(_record("comparison"), lambda _answer: 1.0)
    assert sampled["failures"]
    assert all(f["verdict"] != "right" for f in sampled["failures"])


def test_a_reward_that_pays_nothing_misses_the_correct_rewordings() -> None:
    sampled = grammar_sample(_record("comparison"), lambda _answer: 0.0)
    assert sampled["failures"]
    assert all(f["verdict"] == "right" for f in sampled["failures"])


@pytest.fixture(scope="module")
def domain_pages() -> InMemoryDocumentStore:
    """The data domains' real pages (US states, elements, airports …), read from packages."""
    return InMemoryDocumentStore(Document(d.url, d.title, d.text) for d in load_domains())


@pytest.mark.parametrize("family", ["temporal_order", "comparison"])
def test_the_real_reward_reads_the_sample_as_a_reader_does(
    family: str, domain_pages: InMemoryDocumentStore
) -> None:
    record = _record(family)
    tree = compile_tree(import_canonical(record["rubric"]).tree)
    store = domain_pages

    def reward(answer: str) -> float:
        return answer_reward(tree, answer, store).value or 0.0

    sampled = grammar_sample(record, reward)
    assert sampled["tried"] >= 10
    assert sampled["failures"] == []
