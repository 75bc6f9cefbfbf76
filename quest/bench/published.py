"""Published results on the same protocols, to show beside a run, with where they come from
and a note of every way a run's setup differs from theirs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from quest.bench.formats import BROWSECOMP_PLUS, FLASHRAG, FRAMES

BROWSECOMP_PLUS_PAPER = (
    "Chen et al., BrowseComp-Plus: A More Fair and Transparent Evaluation Benchmark of "
    "Deep-Research Agent (2025), arXiv:2508.06600"
)
SEARCH_R1_PAPER = (
    "Jin et al., Search-R1: Training LLMs to Reason and Leverage Search Engines with "
    "Reinforcement Learning (2025), arXiv:2503.09516"
)
BROWSECOMP_PLUS_CORPUS = "BrowseComp-Plus corpus (100,195 documents)"


@dataclass(frozen=True)
class Published:
    benchmark: str
    system: str
    metric: str
    value: str  # as published: a number or a range
    corpus: str
    retriever: str
    judge: str
    source: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


PUBLISHED: tuple[Published, ...] = (
    Published(
        BROWSECOMP_PLUS,
        "Search-R1-32B",
        "accuracy",
        "3.86 %",
        BROWSECOMP_PLUS_CORPUS,
        "BM25",
        "an open judge model with BrowseComp's grader prompt",
        BROWSECOMP_PLUS_PAPER,
    ),
    Published(
        BROWSECOMP_PLUS,
        "GPT-5",
        "accuracy",
        "70.1 %",
        BROWSECOMP_PLUS_CORPUS,
        "Qwen3-Embedding-8B",
        "an open judge model with BrowseComp's grader prompt",
        BROWSECOMP_PLUS_PAPER,
    ),
    Published(
        FLASHRAG,
        "Search-R1, Qwen2.5-3B trained with GRPO",
        "exact match, average of NQ, TriviaQA, PopQA, HotpotQA, 2Wiki, MuSiQue, Bamboogle",
        "0.31-0.34",
        "2018 Wikipedia dump",
        "E5 (dense)",
        "none (exact match)",
        SEARCH_R1_PAPER,
    ),
)

NOT_RECORDED = {
    FRAMES: "No published FRAMES result is recorded here: none was given with a setup "
    "(corpus, retriever, judge) precise enough to compare a run with.",
}


def published_for(benchmark: str) -> list[Published]:
    return [entry for entry in PUBLISHED if entry.benchmark == benchmark]


def setup_differences(setup: Mapping[str, Any], entry: Published) -> list[str]:
    """What differs between a run's setup (its `corpus`, `retriever`, `judge`) and a published
    result's; an empty list when nothing recorded differs."""
    notes = []
    for name in ("corpus", "retriever", "judge"):
        ours, theirs = str(setup.get(name) or "none"), getattr(entry, name)
        if ours.lower() not in theirs.lower() and theirs.lower() not in ours.lower():
            notes.append(f"{name}: this run used {ours}; the published result used {theirs}")
    return notes


def side_by_side(benchmark: str, setup: Mapping[str, Any]) -> dict[str, Any]:
    rows = [
        {**entry.to_dict(), "setup_differs": setup_differences(setup, entry)}
        for entry in published_for(benchmark)
    ]
    return {"results": rows, "note": NOT_RECORDED.get(benchmark)}
