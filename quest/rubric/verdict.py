"""Leaf verdicts: what a check (deterministic or judge) concluded about one leaf."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from quest.rubric.errors import RubricError, quoted
from quest.rubric.model import JSONValue
from quest.rubric.walk import type_name

VerdictStatus: TypeAlias = Literal["pass", "fail", "error", "skipped"]
VERDICT_STATUSES: tuple[VerdictStatus, ...] = ("pass", "fail", "error", "skipped")
MAX_REASONING = 4_000


@dataclass(frozen=True)
class Evidence:
    url: str = ""
    quote: str = ""

    def to_dict(self) -> dict[str, JSONValue]:
        return {"url": self.url, "quote": self.quote}


@dataclass(frozen=True)
class LeafVerdict:
    """`error` means the check could not decide (a judge that failed, no judge configured):
    it is never counted as a failure, and the score report marks itself incomplete."""

    status: VerdictStatus
    evidence: Evidence = field(default_factory=Evidence)
    reasoning: str = ""
    judge: str = ""

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "status": self.status,
            "evidence": self.evidence.to_dict(),
            "reasoning": self.reasoning,
            "judge": self.judge,
        }


def verdict_from_json(value: object, where: str) -> LeafVerdict:
    """`"pass"` or `{"status", "evidence"?: {url, quote}, "reasoning"?, "judge"?}`."""
    if isinstance(value, str):
        return LeafVerdict(status_of(value, where))
    if not isinstance(value, Mapping):
        raise RubricError(
            [f"{where}: verdict must be a status or an object, got {type_name(value)}"]
        )
    status = status_of(value.get("status"), where)
    evidence = value.get("evidence") or {}
    if not isinstance(evidence, Mapping):
        raise RubricError([f"{where}: evidence must be an object, got {type_name(evidence)}"])
    return LeafVerdict(
        status=status,
        evidence=Evidence(url=_text(evidence.get("url")), quote=_text(evidence.get("quote"))),
        reasoning=_text(value.get("reasoning"))[:MAX_REASONING],
        judge=_text(value.get("judge")),
    )


def status_of(value: object, where: str) -> VerdictStatus:
    for status in VERDICT_STATUSES:
        if value == status and isinstance(value, str):
            return status
    shown = quoted(value, 40) if isinstance(value, str) else type_name(value)
    raise RubricError(
        [f"{where}: verdict status {shown} is not one of {', '.join(VERDICT_STATUSES)}"]
    )


def _text(value: object) -> str:
    return value[:MAX_REASONING] if isinstance(value, str) else ""
