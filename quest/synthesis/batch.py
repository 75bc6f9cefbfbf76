"""What every candidate of one synthesis batch shares, and the record every candidate starts
from (quest.synthesis.runner drives the batch)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from quest.llm.types import LLMClient
from quest.rubric.distractors import Distractors
from quest.rubric.documents import DocumentStore
from quest.rubric.judge import ChatClient
from quest.rubric.score import CompiledTree
from quest.synthesis import funnel
from quest.synthesis.facts import Unbuildable
from quest.synthesis.kgsynth import KGSynthesizer, category_of
from quest.synthesis.model import BatchSpec, Stage
from quest.synthesis.open_ended import OpenEndedSynthesizer
from quest.tools import Toolbox
from quest.tools.protocols import SearchBackend

if TYPE_CHECKING:
    from quest.synthesis.worlds import Scope

MAX_TRIES = 6  # drafts per proposal before it is recorded as unbuildable
# ... within one world (quest.synthesis.worlds): drafts naming the other world's entities are
# refused before the funnel, and cost a few milliseconds each.
SCOPED_TRIES = 40


class _Drafted(Protocol):
    @property
    def entities(self) -> tuple[str, ...]: ...


DraftT = TypeVar("DraftT", bound=_Drafted)


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

    def probe_stages(self, record: Mapping[str, Any], compiled: CompiledTree) -> list[Stage]:
        """The funnel's probes of a record's tree, from its reference answer and question over
        the batch's pages."""
        return funnel.probe_stages(
            compiled,
            record["reference_answer"],
            self.pages,
            self.distractors,
            record["question"],
            self.judge,
        )

    def new_drafts(
        self, draft: Callable[[], DraftT], tries: int, reasons: list[str], repeat: str
    ) -> Iterator[DraftT]:
        """The drafts of `tries` attempts that no earlier proposal of the batch made (by their
        entities); why each other attempt gave nothing goes to `reasons` (`repeat` for one made
        before)."""
        for _ in range(tries):
            try:
                made = draft()
            except Unbuildable as exc:
                reasons.append(str(exc))
                continue
            if made.entities in self.proposed:
                reasons.append(repeat)
                continue
            yield made


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
