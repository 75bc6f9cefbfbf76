"""The RL reward of QUEST-SPEC §2: R = 0.75·base + 0.25·valid_rate·clip(base, 0, 1).

Citation credit is capped by task success, so cited gibberish and an uncited correct answer
both lose. An empty <answer> earns 0; a task whose verifier cannot run is *dropped* (value
None), never scored 0, so a broken verifier cannot teach the policy anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quest.protocol.turns import answer_text
from quest.rubric.citations import Citation, CitedAnswer, parse_citations
from quest.rubric.documents import Document, DocumentStore, page_at
from quest.rubric.errors import RubricError
from quest.rubric.evaluate import evaluate
from quest.rubric.judge import ChatClient, ClaimJudge
from quest.rubric.model import Check, JSONValue, RubricTree, attributes
from quest.rubric.report import ScoreReport
from quest.rubric.score import CompiledTree
from quest.rubric.slots import slot_support, states_slot
from quest.rubric.support import Label, page_support

BASE_SHARE = 0.75
CITATION_SHARE = 0.25
_LABELS: dict[str, Label] = {"pass": "supported", "fail": "unsupported"}


@dataclass(frozen=True)
class LabelledCitation:
    citation: Citation
    label: Label
    reason: str
    quote: str = ""  # the page's words that support the fact (or came closest)

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            **attributes(self.citation, "fact url"),
            **attributes(self, "label reason quote"),
        }


@dataclass(frozen=True)
class Reward:
    value: float | None  # None when the task is dropped
    base: float | None
    valid_rate: float
    citations: tuple[LabelledCitation, ...] = ()
    reason: str = ""
    # (passed, total) leaves of the tree, when it was scored: what a rollout table shows.
    leaves: tuple[int, int] | None = None

    @property
    def dropped(self) -> bool:
        return self.value is None

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "reward": self.value,
            **attributes(self, "dropped base valid_rate reason"),
            "citations": [c.to_dict() for c in self.citations],
            "leaves": list(self.leaves) if self.leaves is not None else None,
        }


def combine(base: float, valid_rate: float) -> float:
    clipped = min(1.0, max(0.0, base))
    return BASE_SHARE * base + CITATION_SHARE * valid_rate * clipped


def extract_answer(response: str) -> str:
    """The answer of a response, by the one rule of the agent protocol
    (quest.protocol.turns.answer_text): the last closed, non-empty `<answer>…</answer>` outside
    `<think>`, tags in lower case only (`<ANSWER>` is text of the answer, as the protocol shows
    it); "" when tags hold no such block; a response without `<answer>` is all answer. An answer
    the protocol already took out of its tags comes back unchanged, so what is scored is what
    was shown."""
    return answer_text(response)


def valid_rate(labels: Sequence[LabelledCitation]) -> float:
    """supported / (supported + unsupported); 0 with no citations or only unknown ones."""
    supported = sum(1 for item in labels if item.label == "supported")
    unsupported = sum(1 for item in labels if item.label == "unsupported")
    return supported / (supported + unsupported) if supported + unsupported else 0.0


def label_citations(
    cited: CitedAnswer,
    store: DocumentStore | None,
    judge: ChatClient | None = None,
    *,
    task: str = "",
    slots: Sequence[Check] = (),
) -> tuple[LabelledCitation, ...]:
    """Check each (fact, url) pair against its page: deterministically (one window of the page
    states the fact's subject with its value or object, quest.rubric.support) or, with a judge,
    by the claim judge. A page the store cannot return is unsupported: citing an unreadable
    page earns nothing."""
    claim_judge = ClaimJudge(judge, store) if judge is not None else None
    return tuple(_label(c, cited.text, store, claim_judge, task, slots) for c in cited.citations)


def _label(
    citation: Citation,
    answer: str,
    store: DocumentStore | None,
    claim_judge: ClaimJudge | None,
    task: str,
    slots: Sequence[Check] = (),
) -> LabelledCitation:
    if store is None:
        return LabelledCitation(citation, "unknown", "no document store configured")
    if claim_judge is not None:
        verdict = claim_judge.verdict(
            citation.fact, task=task, answer=answer, sources=[citation.url], needs_source=True
        )
        label = _LABELS.get(verdict.status, "unknown")
        return LabelledCitation(citation, label, verdict.reasoning, verdict.evidence.quote)
    page = page_at(store, citation.url)
    if page is None:
        return LabelledCitation(citation, "unsupported", "page unreachable")
    return _page_support(citation, page, slots)


def _page_support(
    citation: Citation, page: Document, slots: Sequence[Check] = ()
) -> LabelledCitation:
    """The page states the cited fact in its words, or states the slot of the tree the fact
    states (its subject and value, and a wording of its relation): a citation is read as a
    reader checks it, by what it claims, not by the answer's wording."""
    found = page_support(citation.fact, page)
    if not found.supported:
        for check in slots:
            if states_slot(check, citation.fact):
                slot = slot_support(check, citation.fact, page)
                if slot.supported:
                    found = slot
                    break
    return LabelledCitation(citation, found.label, found.reason, found.quote)


def tree_slots(tree: RubricTree | CompiledTree) -> tuple[Check, ...]:
    """The checks of a tree that name a fact as (subject, value): what citations can state."""
    plain = tree.tree if isinstance(tree, CompiledTree) else tree
    return tuple(
        leaf.check
        for leaf in plain.leaves()
        if leaf.check is not None
        and isinstance(leaf.check.params.get("subject"), str)
        and "value" in leaf.check.params
    )


def reward_from_report(report: ScoreReport, labels: Sequence[LabelledCitation]) -> Reward:
    """R for an objective task. An incomplete report whose undecided leaves could still move
    the score is a verifier that did not run: the task is dropped."""
    rate = valid_rate(labels)
    leaves = (report.leaves_passed, report.leaves_total)
    if report.root_score_lower != report.root_score_upper:
        bracket = f"[{report.root_score_lower:.3f}, {report.root_score_upper:.3f}]"
        undecided = f"{len(report.errored)} errored and {len(report.unverified)} unverified leaves"
        reason = f"{undecided} leave the score in {bracket}"
        return Reward(None, None, rate, tuple(labels), reason, leaves)
    base = report.root_score
    return Reward(combine(base, rate), base, rate, tuple(labels), leaves=leaves)


def answer_reward(
    tree: RubricTree | CompiledTree,
    response: str,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
) -> Reward:
    """Reward of a full agent response for an objective task (rubric-tree base)."""
    answer = extract_answer(response)
    if not answer:
        return Reward(0.0, 0.0, 0.0, (), "empty answer")
    try:
        report = evaluate(tree, answer, store, judge)
    except RubricError as exc:
        return Reward(None, None, 0.0, (), f"verifier cannot run: {exc.summary()}")
    task = tree.tree.task_description if isinstance(tree, CompiledTree) else tree.task_description
    slots = tree_slots(tree)
    labels = label_citations(parse_citations(answer), store, judge, task=task, slots=slots)
    return reward_from_report(report, labels)
