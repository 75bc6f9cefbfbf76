"""Criteria of open-ended tasks (QUEST-SPEC §4): written by a model when one is given, read
back from a stored task, and scored.

`relative` compares a candidate A with the task's reference B criterion by criterion,
T_a/(T_a+T_b), discretised for RL (quest.rubric.relative). Offline each criterion is scored by
`coverage_scores`, the deterministic coverage-and-citation scorer (10 when the check passes and,
for a fact, a cited page is the one stating it; 5 when stated without that citation; 0
otherwise); with a judge model, `judge_pair` scores each criterion 0-10 in both positions.
`llm_criteria` has a model write a draft's criteria instead of the facts: dimension weights
sampled WEIGHT_SAMPLES times and averaged, then weighted criteria per dimension, as judge leaves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from quest.rubric.citations import parse_citations
from quest.rubric.documents import DocumentStore
from quest.rubric.evaluate import check_context, leaf_verdicts
from quest.rubric.importers import import_canonical
from quest.rubric.judge import ChatClient, json_object
from quest.rubric.relative import (
    Criterion,
    CriterionScore,
    RelativeScore,
    judge_pair,
    relative_score,
)
from quest.rubric.score import CompiledTree, compile_tree
from quest.synthesis.facts import Unbuildable
from quest.synthesis.open_ended import DIMENSIONS, OpenEndedDraft, normalise


def criteria_of(record: Mapping[str, Any]) -> tuple[dict[str, float], list[Criterion], list[str]]:
    """Dimension weights, criteria and their leaf ids, read back from a stored record."""
    return _read(record)[1:]


def _read(
    record: Mapping[str, Any],
) -> tuple[CompiledTree, dict[str, float], list[Criterion], list[str]]:
    compiled = compile_tree(import_canonical(record["rubric"]).tree)
    weights: dict[str, float] = {}
    criteria: list[Criterion] = []
    ids: list[str] = []
    for dimension in compiled.tree.root.children:
        weights[dimension.id] = float(dimension.weight or 0) / 1000
        for leaf in dimension.children:
            criteria.append(Criterion(dimension.id, leaf.description, float(leaf.weight or 0)))
            ids.append(leaf.id)
    return compiled, weights, criteria, ids


def coverage_scores(
    record: Mapping[str, Any], answer: str, pages: DocumentStore | None
) -> list[float]:
    """The deterministic coverage-and-citation scorer: one 0-10 score per criterion."""
    compiled, _, _, ids = _read(record)
    return _coverage(compiled, ids, _fact_urls(record), record["question"], answer, pages)


def _coverage(
    compiled: CompiledTree,
    ids: list[str],
    fact_urls: Mapping[str, str],
    question: str,
    answer: str,
    pages: DocumentStore | None,
) -> list[float]:
    verdicts = leaf_verdicts(compiled, check_context(compiled, answer, pages, task=question))
    cited = {c.url for c in parse_citations(answer).citations}
    scores = []
    for leaf_id in ids:
        fact_url = fact_urls.get(leaf_id)
        if verdicts[leaf_id].status != "pass":
            scores.append(0.0)
        elif fact_url and fact_url not in cited:
            scores.append(5.0)
        else:
            scores.append(10.0)
    return scores


def _fact_urls(record: Mapping[str, Any]) -> dict[str, str]:
    """Leaf id -> the page stating that criterion's fact (criteria that are facts only)."""
    criteria = record["provenance"]["open_ended"]["criteria"]
    return {c["id"]: c["fact_url"] for c in criteria if c.get("fact_url")}


def relative(
    record: Mapping[str, Any],
    answer: str,
    pages: DocumentStore | None,
    judge: ChatClient | None = None,
) -> RelativeScore:
    """The candidate against the task's reference answer: T_a/(T_a+T_b), discretised."""
    compiled, weights, criteria, ids = _read(record)
    reference = str(record["reference_answer"])
    if judge is not None:
        judged = [
            judge_pair(
                judge, task=record["question"], answer_a=answer, answer_b=reference, criterion=c
            )
            for c in criteria
        ]
        return relative_score(weights, criteria, judged)
    urls = _fact_urls(record)
    a, b = (
        _coverage(compiled, ids, urls, record["question"], text, pages)
        for text in (answer, reference)
    )
    pairs: list[CriterionScore | None] = [CriterionScore(x, y) for x, y in zip(a, b, strict=True)]
    return relative_score(weights, criteria, pairs)


WEIGHTS_PROMPT = """A research report task: {question}
How much should each dimension count when judging reports for this task? Dimensions: \
comprehensiveness (covers what was asked), insight (comparisons and conclusions), \
instruction_following (does what the task says, cites sources), readability (clear and organised).
Reply with JSON only: {{"comprehensiveness": w, "insight": w, "instruction_following": w, \
"readability": w}}, weights from 0 to 1 that sum to 1."""

CRITERIA_PROMPT = """A research report task: {question}
Facts a good report states (with their sources):
{facts}
Write the criteria a judge will score reports on, from 0 to 10 each: for every dimension \
(comprehensiveness, insight, instruction_following, readability), 2 to 6 criteria, each \
{{"criterion": str, "explanation": str, "weight": w}}, weights summing to 1 in the dimension.
Reply with JSON only: {{"comprehensiveness": [...], "insight": [...], \
"instruction_following": [...], "readability": [...]}}"""
MAX_LLM_CRITERIA = 6
WEIGHT_SAMPLES = 3


def llm_criteria(client: Any, draft: OpenEndedDraft) -> OpenEndedDraft:
    """The draft with criteria written by a model (QUEST §4): dimension weights sampled
    WEIGHT_SAMPLES times and averaged, then weighted criteria per dimension, each a judge
    leaf. Unbuildable when the model's replies cannot be read as criteria."""
    samples = []
    for _ in range(WEIGHT_SAMPLES):
        reply = json_object(_ask(client, WEIGHTS_PROMPT.format(question=draft.question))) or {}
        weights = [_weight(reply.get(d)) for d in DIMENSIONS]
        if None not in weights and sum(w or 0 for w in weights) > 0:
            total = sum(w or 0 for w in weights)
            samples.append([(w or 0) / total for w in weights])
    if not samples:
        raise Unbuildable("the model gave no readable dimension weights")
    mean = [round(sum(s[i] for s in samples) / len(samples), 3) for i in range(4)]
    mean[0] = round(1 - sum(mean[1:]), 3)
    facts = "\n".join(
        f"- {f.sentence} ({f.url})" if f.url else f"- {f.sentence}" for f in draft.facts
    )
    reply = (
        json_object(
            _ask(client, CRITERIA_PROMPT.format(question=draft.question, facts=facts[:12000]))
        )
        or {}
    )
    criteria: list[dict[str, Any]] = []
    for dimension in DIMENSIONS:
        items = reply.get(dimension)
        rows = [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
        rows = [r for r in rows if isinstance(r.get("criterion"), str) and r["criterion"].strip()]
        if not rows:
            raise Unbuildable(f"the model wrote no readable {dimension} criteria")
        for row in rows[:MAX_LLM_CRITERIA]:
            weight = _weight(row.get("weight"))
            text = " ".join(str(row["criterion"]).split())[:500]
            criteria.append(
                {
                    "dimension": dimension,
                    "criterion": text,
                    "explanation": " ".join(str(row.get("explanation") or "").split())[:1000],
                    "raw": max(1, round((weight if weight is not None else 0.25) * 100)),
                    "check": {"kind": "judge", "claim": text},
                }
            )
    normalise(criteria)
    return dataclasses.replace(
        draft, criteria=criteria, dimension_weights=dict(zip(DIMENSIONS, mean, strict=True))
    )


def _weight(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= 1 else None


def _ask(client: Any, prompt: str) -> str:
    try:
        return str(client.chat([{"role": "user", "content": prompt}]))
    except Exception as exc:  # a failed call is an unreadable reply, never a crash
        return f"[error] {exc}"
