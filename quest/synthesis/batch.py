"""What every candidate of one synthesis batch shares, and the record every candidate starts
from (quest.synthesis.runner drives the batch)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quest.llm.types import LLMClient
from quest.rubric.distractors import Distractors
from quest.rubric.documents import DocumentStore
from quest.rubric.judge import ChatClient
from quest.synthesis import funnel
from quest.synthesis.kgsynth import KGSynthesizer, category_of
from quest.synthesis.model import BatchSpec
from quest.synthesis.open_ended import OpenEndedSynthesizer
from quest.tools import Toolbox
from quest.tools.protocols import SearchBackend

if TYPE_CHECKING:
    from quest.synthesis.worlds import Scope

MAX_TRIES = 6  # drafts per proposal before it is recorded as unbuildable
# ... within one world (quest.synthesis.worlds): drafts naming the other world's entities are
# refused before the funnel, and cost a few milliseconds each.
SCOPED_TRIES = 40


@dataclass
class Batch:
    """What every candidate of one batch shares."""

    spec: BatchSpec
    pages: DocumentStore
    distractors: Distractors | None
    duplicates: funnel.DuplicateIndex
    run_agent: Callable[[str], str] | None
    judge: ChatClient | None = None
    synthesizer: KGSynthesizer | None = None
    proposed: set[tuple[str, ...]] = field(default_factory=set)
    llm: LLMClient | None = None
    verifier: LLMClient | None = None
    toolbox: Toolbox | None = None
    keywords: Sequence[str] = ()
    keyword_source: Callable[[str], list[str]] | None = None
    open_ended: OpenEndedSynthesizer | None = None
    search: SearchBackend | None = None  # the difficulty stage's top-hit search; None: not run
    scope: Scope | None = None  # the world the batch draws from; None: the whole graph


def base_provenance(batch: Batch, index: int, target: str, generator: str) -> dict[str, Any]:
    return {
        "generator": generator,
        "generator_key": batch.spec.generator,
        "seed": batch.spec.seed,
        "index": index,
        "target_class": target,
    }


def empty_record(subcategory: str, provenance: dict[str, Any]) -> dict[str, Any]:
    return {
        "question": "",
        "type": "objective",
        "category": category_of(subcategory),
        "subcategory": subcategory,
        "provenance": provenance,
    }
