from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from quest.corpus import corpus_write
from quest.corpus.model import Document
from quest.corpus.store import CorpusStore
from quest.rubric.model import FORMAT
from quest.rubric.score import CompiledTree
from quest.search.indexing import bm25_build
from quest.synthesis import BatchSpec, synthesize
from quest.synthesis.difficulty import TOP_HIT_MAX, difficulty_stage, search_of
from quest.synthesis.funnel import schema_stage
from quest.tools.offline import offline_toolbox
from quest.tools.protocols import SearchBackend

WIKI = "https://en.wikipedia.org/wiki/"
PAGES = {
    "Mount Kilvar": "Mount Kilvar is the highest peak of the Dorran Range. It rises to 4,210 "
    "metres above the sea and is climbed from the village of Ostra.",
    "Dorran Range": "The Dorran Range is a chain of mountains in Velmoria. Its highest peak is "
    "Mount Kilvar, and its rivers run north to the Pale Sea.",
    "Ostra": "Ostra is a village of 300 people at the foot of Mount Kilvar, known for its goats.",
    "Pale Sea": "The Pale Sea is a shallow sea north of Velmoria, frozen from December to March.",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("difficulty") / "corpus"
    documents = [
        Document(
            url=WIKI + title.replace(" ", "_"),
            title=title,
            text=text,
            source="wikipedia",
            licence="CC BY-SA 4.0",
            fetched_at="2026-01-01T00:00:00Z",
        )
        for title, text in PAGES.items()
    ]
    corpus_write(folder, documents)
    bm25_build(folder)
    return folder


@pytest.fixture(scope="module")
def search(corpus: Path) -> SearchBackend:
    backend = search_of(offline_toolbox(corpus))
    assert backend is not None
    return backend


def task(question: str, answer: str, page: str) -> CompiledTree:
    """A tree that wants `answer` named and `page` cited."""
    root = {"id": "root", "description": question, "critical": False, "strategy": "parallel",
            "children": [
                {"id": "named", "description": f"Names {answer}", "critical": True,
                 "check": {"kind": "mentions", "value": answer}},
                {"id": "cited", "description": "Cites its page", "critical": False,
                 "check": {"kind": "cites_url", "urls": [WIKI + page.replace(" ", "_")]}},
            ]}  # fmt: skip
    rubric = {"format": FORMAT, "scoring": "quest", "task_description": question, "root": root}
    record: dict[str, Any] = {
        "question": question,
        "rubric": rubric,
        "solution": {answer: {"description": "", "reference_urls": []}},
        "reference_answer": f"**Answer:** {answer} [1]\n\n[1]: {WIKI}{page.replace(' ', '_')}",
    }
    stage, compiled = schema_stage(record)
    assert stage.passed and compiled is not None, stage.reason
    return compiled


EASY = "Which mountain rises to 4,210 metres above the sea?"
HARD = "In which country are the mountains whose highest peak rises to 4,210 metres?"


def test_it_rejects_a_task_whose_answer_is_the_title_of_its_first_search_hit(
    corpus: Path, search: SearchBackend
) -> None:
    compiled = task(EASY, "Mount Kilvar", "Mount Kilvar")
    stage = difficulty_stage(EASY, compiled, CorpusStore(corpus), search)
    assert not stage.passed
    assert stage.name == "difficulty"
    assert stage.detail["reward"] >= TOP_HIT_MAX
    assert stage.detail["answer"] == "title"
    assert "too easy" in stage.reason and "Mount Kilvar" in stage.reason


def test_a_task_that_needs_another_page_than_the_first_hit_passes(
    corpus: Path, search: SearchBackend
) -> None:
    compiled = task(HARD, "Velmoria", "Dorran Range")
    stage = difficulty_stage(HARD, compiled, CorpusStore(corpus), search)
    assert stage.passed, stage.reason
    assert stage.detail["hit"]["url"] == WIKI + "Mount_Kilvar"
    assert stage.detail["reward"] < TOP_HIT_MAX


def test_the_stage_records_the_reward_of_each_top_hit_answer_and_the_hit(
    corpus: Path, search: SearchBackend
) -> None:
    compiled = task(EASY, "Mount Kilvar", "Mount Kilvar")
    detail = difficulty_stage(EASY, compiled, CorpusStore(corpus), search).detail
    assert detail["hit"] == {"url": WIKI + "Mount_Kilvar", "title": "Mount Kilvar"}
    assert set(detail["rewards"]) == {"title", "title, exact", "snippet", "first sentence"}
    assert detail["reward"] == max(detail["rewards"].values())


def test_without_a_search_index_the_stage_passes_and_says_it_did_not_run(corpus: Path) -> None:
    compiled = task(EASY, "Mount Kilvar", "Mount Kilvar")
    stage = difficulty_stage(EASY, compiled, CorpusStore(corpus), None)
    assert stage.passed
    assert stage.reason.startswith("not run")
    assert stage.detail["reward"] is None


def test_a_batch_runs_the_stage_with_the_agents_search_unless_it_is_switched_off(
    geo_corpus: Path, pages: CorpusStore
) -> None:
    spec = BatchSpec(count=3, seed=2, baseline=False)
    tools = functools.partial(offline_toolbox, geo_corpus)
    reached = [
        s for c in synthesize(spec, pages=pages, toolbox_factory=tools)
        if (s := c.stage("difficulty")) is not None
    ]  # fmt: skip
    assert reached
    assert all(s.detail["hit"]["url"] and s.detail["reward"] is not None for s in reached)
    off = list(synthesize(spec, pages=pages, toolbox_factory=tools, top_hit=False))
    skipped = [s for c in off if (s := c.stage("difficulty")) is not None]
    assert skipped
    assert all(s.reason.startswith("not run") for s in skipped)
