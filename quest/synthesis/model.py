"""What a synthesis batch asks for and what each candidate task went through.

A batch is a `BatchSpec`; running it yields one `Candidate` per proposal, accepted or not, with
the outcome and reason of every funnel stage it reached (quest.synthesis.funnel). A candidate's
`record` is one task in the `/api/imports` format (`question`, `type`, `category`,
`subcategory`, `complexity`, `rubric`, `solution`, `reference_answer`, `provenance`), so an
accepted candidate can be imported, exported as JSONL or written by the CLI unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from quest.rubric.model import attributes
from quest.synthesis.seeds import CLASSES, SUBCATEGORIES

GENERATORS = ("kg", "llm")
# Stages only the llm generator has, before the shared funnel.
LLM_STAGES = ("proposal", "refine", "verifier")
# Funnel stages in the order they run; a candidate stops at the first it fails.
STAGES = (
    "schema",
    "complexity",
    "solvability",
    "soundness",
    "redteam",
    "non_exclusive",
    "duplicate",
    "difficulty",
    "baseline",
)
STAGE_LABELS = {
    "proposal": "Proposal readable",
    "refine": "Refine loop",
    "verifier": "Independent verifier",
    "schema": "Schema",
    "complexity": "Complexity measured",
    "solvability": "Solvable with its pages",
    "soundness": "Soundness probes",
    "redteam": "Red-team finds no hack",
    "non_exclusive": "Other valid answers pass",
    "duplicate": "Not a near-duplicate",
    "difficulty": "Top search hit does not solve it",
    "baseline": "Baseline difficulty",
}
MAX_BATCH = 2000


class SynthesisError(ValueError):
    """A batch that cannot run as asked (a bad spec, a missing corpus)."""


@dataclass(frozen=True)
class BatchSpec:
    generator: str = "kg"
    count: int = 20
    seed: int = 0
    # subcategory -> weight; empty: least-used subcategory first (QUEST-SPEC §3)
    categories: Mapping[str, float] = field(default_factory=dict)
    # "C1".."C9" -> weight; empty: the paper's targets
    classes: Mapping[str, float] = field(default_factory=dict)
    baseline: bool = True  # run the scripted agent on each accepted candidate
    open_ended: bool = False  # report-writing tasks with criteria and relative scoring (§4)
    proposer_turns: int = 30  # the llm proposer's turn budget per proposal
    # kg: count is the accepted tasks to reach, proposing shard after shard until the funnel
    # (cross-shard duplicates included) has accepted that many (quest.synthesis.shards.Goal)
    until_accepted: bool = False

    def problems(self) -> list[str]:
        found = []
        if self.generator not in GENERATORS:
            found.append(f"generator must be one of {', '.join(GENERATORS)}")
        if not 1 <= self.count <= MAX_BATCH:
            found.append(f"count must be from 1 to {MAX_BATCH}")
        if self.open_ended and self.generator != "kg":
            found.append("open-ended tasks come from the kg generator")
        if self.until_accepted and self.generator != "kg":
            found.append("until_accepted needs the kg generator (its batches are sharded)")
        if not 2 <= self.proposer_turns <= 400:
            found.append("proposer_turns must be from 2 to 400")
        if not 0 <= self.seed < 2**31:
            found.append("seed must be from 0 to 2147483647")
        for name, weights, known in (
            ("categories", self.categories, SUBCATEGORIES),
            ("classes", self.classes, CLASSES),
        ):
            unknown = sorted(set(weights) - set(known))
            if unknown:
                found.append(f"{name}: unknown {', '.join(unknown)}")
            if any(not isinstance(w, int | float) or w < 0 for w in weights.values()):
                found.append(f"{name}: weights must be numbers of at least 0")
            elif weights and not sum(weights.values()) > 0:
                found.append(f"{name}: at least one weight must be above 0")
        return found


@dataclass(frozen=True)
class Stage:
    name: str  # one of STAGES
    passed: bool
    reason: str  # one line a person reads: why it passed or failed
    detail: Mapping[str, Any] = field(default_factory=dict)  # JSON

    def to_dict(self) -> dict[str, Any]:
        return {**attributes(self, "name passed reason"), "detail": dict(self.detail)}


@dataclass(frozen=True)
class Candidate:
    index: int  # 0-based position in the batch
    record: Mapping[str, Any]  # the task, in the /api/imports format
    stages: tuple[Stage, ...]
    target_class: str  # the class sampled for it; record["complexity"] is the measured one

    @property
    def accepted(self) -> bool:
        """Every stage passed, through the last one (baseline)."""
        return (
            bool(self.stages)
            and all(s.passed for s in self.stages)
            and self.stages[-1].name == STAGES[-1]
        )

    @property
    def rejected_at(self) -> str:
        """The first failed stage, or "" when accepted."""
        return next((s.name for s in self.stages if not s.passed), "")

    @property
    def reason(self) -> str:
        failed = next((s for s in self.stages if not s.passed), None)
        return failed.reason if failed else "passed every stage"

    @property
    def question(self) -> str:
        return str(self.record.get("question", ""))

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            **attributes(self, "index accepted rejected_at reason target_class"),
            "stages": [s.to_dict() for s in self.stages],
            "record": dict(self.record),
        }
