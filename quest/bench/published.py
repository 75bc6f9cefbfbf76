"""Published results on the same protocols, to show beside a run, with where they come from
and a note of every way a run's setup differs from theirs; and each benchmark's published
metric (PROTOCOLS), which says how a run without a judge is labelled: for the Search-R1 /
FlashRAG sets exact match is the published metric, for BrowseComp-Plus and FRAMES it is judged
accuracy, which exact match is not comparable to."""

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
FRAMES_PAPER = (
    "Krishna et al., Fact, Fetch, and Reason: A Unified Evaluation of Retrieval-Augmented "
    "Generation (2024), arXiv:2409.12941"
)
BROWSECOMP_PLUS_CORPUS = "BrowseComp-Plus corpus (100,195 documents)"
JUDGED_ACCURACY = "judged accuracy"
EXACT_MATCH = "exact match"
NOT_COMPARABLE = "exact match, not comparable to judged accuracy"
# The setup's corpus and retriever when a run scored another system's saved responses.
FROM_RESPONSES = "as the responses say (another system searched; this run searched nothing)"


@dataclass(frozen=True)
class Protocol:
    """A benchmark's published metric. `reported_by`: who reports it, as a sentence names them;
    `unjudged_label`: the label of a run's exact match when no judge graded it."""

    benchmark: str
    metric: str  # JUDGED_ACCURACY or EXACT_MATCH
    reported_by: str
    source: str

    @property
    def exact_match_is_published(self) -> bool:
        return self.metric == EXACT_MATCH

    @property
    def unjudged_label(self) -> str:
        if self.exact_match_is_published:
            return f"exact match (the metric {self.reported_by} reports)"
        return NOT_COMPARABLE

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "exact_match_is_published": self.exact_match_is_published,
            "unjudged_label": self.unjudged_label,
            "without_judge": self.without_judge(),
        }

    def without_judge(self) -> str:
        """What a run without a judge reports, as a sentence for a person."""
        if self.exact_match_is_published:
            return (
                f"No judge graded this run, and none is needed: its headline is exact match, "
                f"the metric {self.reported_by} reports."
            )
        return (
            "No judge graded this run: its headline is exact match, which is not comparable "
            f"to {self.metric} (the metric {self.reported_by} reports)."
        )


PROTOCOLS: dict[str, Protocol] = {
    BROWSECOMP_PLUS: Protocol(
        BROWSECOMP_PLUS, JUDGED_ACCURACY, "the BrowseComp-Plus paper", BROWSECOMP_PLUS_PAPER
    ),
    FLASHRAG: Protocol(FLASHRAG, EXACT_MATCH, "Search-R1", SEARCH_R1_PAPER),
    FRAMES: Protocol(FRAMES, JUDGED_ACCURACY, "the FRAMES paper", FRAMES_PAPER),
}


def protocol_for(benchmark: str | None) -> Protocol | None:
    return PROTOCOLS.get(str(benchmark))


def unjudged_label(benchmark: str | None) -> str:
    """How exact match is labelled in a run no judge graded."""
    protocol = protocol_for(benchmark)
    return protocol.unjudged_label if protocol else NOT_COMPARABLE


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
        if ours == FROM_RESPONSES:
            notes.append(
                f"{name}: the responses' system's is not recorded; the published result used "
                f"{theirs}"
            )
            continue
        if ours.lower() not in theirs.lower() and theirs.lower() not in ours.lower():
            notes.append(f"{name}: this run used {ours}; the published result used {theirs}")
    if entry.benchmark == FLASHRAG and setup.get("dataset"):
        # Search-R1 publishes the average over its seven sets; a run is one set.
        notes.append(
            f"dataset: this run is {setup['dataset']} alone; the published result is the "
            "average over NQ, TriviaQA, PopQA, HotpotQA, 2Wiki, MuSiQue and Bamboogle"
        )
    return notes


def side_by_side(benchmark: str, setup: Mapping[str, Any]) -> dict[str, Any]:
    rows = [
        {**entry.to_dict(), "setup_differs": setup_differences(setup, entry)}
        for entry in published_for(benchmark)
    ]
    protocol = protocol_for(benchmark)
    return {
        "results": rows,
        "note": NOT_RECORDED.get(benchmark),
        "protocol": protocol.to_dict() if protocol else None,
    }
