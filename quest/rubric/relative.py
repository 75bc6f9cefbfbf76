"""Open-ended tasks (QUEST-SPEC §4): a candidate A against a reference B, criterion by criterion.

S_x(d) = Σ w·s / Σ w over dimension d's criteria; T_x = Σ_d W_d·S_x(d); final = T_a / (T_a + T_b)
(0.5 = on par with the reference). A judge reply with a missing or out-of-range score is a
failed judge, not a verdict: it is listed in `errors` and the result has no final score, so the
caller drops the task instead of training on a silent zero. One criterion scored 0 for both
answers is a verdict (neither meets it); 0 for both on *every* criterion is the signature of a
judge that always fails (QUEST-SPEC §4), and is dropped the same way.

LLM judges favour one position, so `judge_pair` asks twice with A and B swapped and averages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from quest.rubric.judge import ChatClient, json_object
from quest.rubric.model import JSONValue

SCORE_RANGE = (0.0, 10.0)
# (threshold, reward), highest first: the RL discretisation of the relative score.
STEPS = ((0.5, 1.0), (0.475, 0.75), (0.45, 0.5), (0.425, 0.25))


@dataclass(frozen=True)
class Criterion:
    dimension: str
    text: str
    weight: float
    explanation: str = ""


@dataclass(frozen=True)
class CriterionScore:
    score_a: float | None
    score_b: float | None


@dataclass(frozen=True)
class RelativeScore:
    final: float | None
    discrete: float | None
    totals: tuple[float, float]
    per_dimension: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "final": self.final,
            "discrete": self.discrete,
            "t_a": self.totals[0],
            "t_b": self.totals[1],
            "per_dimension": {d: {"s_a": a, "s_b": b} for d, (a, b) in self.per_dimension.items()},
            "errors": list(self.errors),
        }


def discretise(final: float) -> float:
    for threshold, reward in STEPS:
        if final >= threshold:
            return reward
    return 0.0


def relative_score(
    dimension_weights: Mapping[str, float],
    criteria: Sequence[Criterion],
    scores: Sequence[CriterionScore | None],
) -> RelativeScore:
    """`scores[i]` is the judge's reading of `criteria[i]` (None when the call failed)."""
    errors = _input_errors(dimension_weights, criteria, scores)
    errors += [
        f"criterion {i} ({c.text[:60]!r}): {p}"
        for i, (c, s) in enumerate(zip(criteria, scores, strict=False))
        if (p := _score_problem(s))
    ]
    if errors:
        return RelativeScore(None, None, (0.0, 0.0), errors=tuple(errors))
    per_dimension = {
        d: _dimension(d, criteria, scores) for d in dimension_weights if dimension_weights[d] > 0
    }
    t_a = sum(dimension_weights[d] * s_a for d, (s_a, _) in per_dimension.items())
    t_b = sum(dimension_weights[d] * s_b for d, (_, s_b) in per_dimension.items())
    if t_a + t_b <= 0:
        reason = "the judge gave 0 to both answers on every criterion (a failed judge)"
        return RelativeScore(None, None, (t_a, t_b), per_dimension, (reason,))
    final = t_a / (t_a + t_b)
    return RelativeScore(final, discretise(final), (t_a, t_b), per_dimension)


def _input_errors(
    weights: Mapping[str, float],
    criteria: Sequence[Criterion],
    scores: Sequence[CriterionScore | None],
) -> list[str]:
    errors: list[str] = []
    if len(criteria) != len(scores):
        errors.append(f"{len(criteria)} criteria but {len(scores)} scores")
    if any(not _finite(w) or w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
        errors.append("dimension weights must be non-negative with a positive sum")
    for dimension, weight in weights.items():
        total = sum(c.weight for c in criteria if c.dimension == dimension)
        if weight > 0 and not total > 0:
            errors.append(
                f"dimension {dimension!r} has weight but no criteria with positive weight"
            )
    errors += [
        f"criterion {c.text[:60]!r} has an unknown dimension {c.dimension!r}"
        for c in criteria
        if c.dimension not in weights
    ]
    errors += [
        f"criterion {c.text[:60]!r} has a negative weight"
        for c in criteria
        if not _finite(c.weight) or c.weight < 0
    ]
    return errors


def _score_problem(score: CriterionScore | None) -> str | None:
    if score is None or score.score_a is None or score.score_b is None:
        return "judge returned no score"
    low, high = SCORE_RANGE
    if not all(_finite(s) and low <= s <= high for s in (score.score_a, score.score_b)):
        return f"scores must be from {low:g} to {high:g}"
    return None


def _dimension(
    dimension: str, criteria: Sequence[Criterion], scores: Sequence[CriterionScore | None]
) -> tuple[float, float]:
    pairs = [
        (c.weight, s)
        for c, s in zip(criteria, scores, strict=True)
        if c.dimension == dimension and s is not None
    ]
    total = sum(w for w, _ in pairs)
    s_a = sum(w * (s.score_a or 0.0) for w, s in pairs) / total
    s_b = sum(w * (s.score_b or 0.0) for w, s in pairs) / total
    return s_a, s_b


def _finite(value: float) -> bool:
    return _as_number(value) is not None


def parse_pair_reply(reply: str) -> CriterionScore | None:
    """`{"score_a": 0-10, "score_b": 0-10}` from a judge reply; None when unreadable."""
    data = json_object(reply)
    if data is None:
        return None
    a, b = _as_number(data.get("score_a")), _as_number(data.get("score_b"))
    if a is None or b is None:
        return None
    return CriterionScore(a, b)


def _as_number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def judge_pair(
    client: ChatClient, *, task: str, answer_a: str, answer_b: str, criterion: Criterion
) -> CriterionScore | None:
    """Both answers scored on one criterion, in both positions (candidate first, then reference
    first) and averaged, so a judge's preference for a position cancels out. None when either
    call fails: a half-read criterion is not a score."""
    first = _ask_pair(client, task, answer_a, answer_b, criterion)
    second = _ask_pair(client, task, answer_b, answer_a, criterion) if first else None
    if first is None or second is None:
        return None
    assert first.score_a is not None and first.score_b is not None
    assert second.score_a is not None and second.score_b is not None
    return CriterionScore(
        (first.score_a + second.score_b) / 2, (first.score_b + second.score_a) / 2
    )


def _ask_pair(
    client: ChatClient, task: str, first: str, second: str, criterion: Criterion
) -> CriterionScore | None:
    prompt = (
        f"Task:\n{task[:4000]}\n\nAnswer A:\n{first[:20000]}\n\n"
        f"Answer B:\n{second[:20000]}\n\n"
        f"Criterion: {criterion.text}\n{criterion.explanation}\n\n"
        "Score each answer on this criterion from 0 to 10. "
        'Reply with JSON only: {"score_a": n, "score_b": n}.'
    )
    try:
        reply = client.chat([{"role": "user", "content": prompt}])
    except Exception:  # a failed call is reported as a missing score, never as 0
        return None
    return parse_pair_reply(reply) if isinstance(reply, str) else None
