"""Reading synthesis batches and their candidates. Every batch is visible to every viewer: they
are the workbench's shared task supply, like the tasks they write."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit import selectors as audit_selectors
from apps.audit.models import Campaign, CampaignStatus
from apps.audit.selectors.campaigns import tasks_matching
from apps.common.errors import Invalid, NotFound
from apps.rubrics.models import AuditState
from apps.synthesis.models import ALL_STAGES, SynthesisBatch, SynthesisCandidate
from apps.synthesis.records import task_record
from quest.synthesis.model import STAGES

MAX_PAGE_SIZE = 200
EXPORT_CHUNK = 200


def batch_list(*, user: User) -> QuerySet[SynthesisBatch]:
    require_role(user, Role.VIEWER)
    return SynthesisBatch.objects.select_related("created_by").order_by("-created_at", "-id")


def batch_page(*, user: User, page: int, page_size: int) -> Page[SynthesisBatch]:
    paginator = Paginator(batch_list(user=user), min(max(page_size, 1), MAX_PAGE_SIZE))
    return paginator.get_page(page)


def batch_get(*, user: User, batch_id: int) -> SynthesisBatch:
    batch = batch_list(user=user).filter(pk=batch_id).first()
    if batch is None:
        raise NotFound(f"no synthesis batch {batch_id}")
    return batch


def campaign_filters(batch: SynthesisBatch) -> dict[str, str]:
    """The tasks a campaign of the batch audits: the batch's, those no audit has decided yet."""
    return {"batch": batch.provenance_batch, "audit_state": str(AuditState.UNAUDITED)}


def batch_campaigns(*, user: User, batch_id: int) -> list[Campaign]:
    """The audit campaigns made from the batch that the caller may see, newest first, with
    their counts (audit's campaign_list)."""
    batch = batch_get(user=user, batch_id=batch_id)
    return list(audit_selectors.campaign_list(user=user).filter(synthesis_link__batch=batch))


def campaign_reused(campaigns: Sequence[Campaign]) -> Campaign | None:
    """The campaign a press on the batch's button adds to: the newest open one (`campaigns`
    newest first). A closed campaign takes no tasks; nobody could claim them there."""
    return next((c for c in campaigns if c.status == CampaignStatus.OPEN), None)


def campaign_tasks_pending(*, user: User, batch_id: int, campaign: Campaign | None) -> int:
    """How many of the batch's undecided tasks `campaign` does not hold yet: what the button
    would add to it (to a new campaign, when None)."""
    require_role(user, Role.ADMIN)
    batch = batch_get(user=user, batch_id=batch_id)
    tasks = tasks_matching(campaign_filters(batch))
    if campaign is not None:
        tasks = tasks.exclude(audit_items__campaign=campaign)
    return tasks.count()


@dataclass(frozen=True)
class CandidateFilters:
    accepted: bool | None = None
    rejected_at: str = ""  # a funnel stage: the candidates that failed there


def _check(filters: CandidateFilters) -> None:
    if filters.rejected_at and filters.rejected_at not in ALL_STAGES:
        raise Invalid(f"rejected_at must be one of {', '.join(ALL_STAGES)}")


def candidate_list(
    *, user: User, batch_id: int, filters: CandidateFilters
) -> QuerySet[SynthesisCandidate]:
    batch = batch_get(user=user, batch_id=batch_id)
    _check(filters)
    candidates = batch.candidates.select_related("decided_by").defer("record")
    if filters.accepted is not None:
        candidates = candidates.filter(accepted=filters.accepted)
    if filters.rejected_at:
        candidates = candidates.filter(rejected_at=filters.rejected_at)
    return candidates.order_by("index")


def candidate_page(
    *, user: User, batch_id: int, filters: CandidateFilters, page: int, page_size: int
) -> Page[SynthesisCandidate]:
    candidates = candidate_list(user=user, batch_id=batch_id, filters=filters)
    return Paginator(candidates, min(max(page_size, 1), MAX_PAGE_SIZE)).get_page(page)


def candidate_get(*, user: User, candidate_id: int) -> SynthesisCandidate:
    require_role(user, Role.VIEWER)
    candidate = (
        SynthesisCandidate.objects.select_related("batch", "decided_by", "task")
        .filter(pk=candidate_id)
        .first()
    )
    if candidate is None:
        raise NotFound(f"no synthesis candidate {candidate_id}")
    return candidate


@dataclass
class BatchReport:
    """What the batch page plots: the funnel and the distributions of what it proposed."""

    # stage -> candidates that ran it: the shared funnel's always, the llm generator's if any
    reached: dict[str, int] = field(default_factory=dict)
    passed: dict[str, int] = field(default_factory=dict)
    categories: dict[str, Counter[str]] = field(default_factory=dict)  # accepted / rejected
    classes: Counter[tuple[str, str]] = field(default_factory=Counter)  # (target, measured)
    depths: list[int] = field(default_factory=list)
    breadths: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)  # the baseline agent's, per candidate


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _add_stages(report: BatchReport, stages: list[dict[str, Any]]) -> None:
    for stage in stages:
        name = str(stage.get("name", ""))
        if name not in ALL_STAGES:
            continue
        report.reached[name] = report.reached.get(name, 0) + 1
        report.passed[name] = report.passed.get(name, 0) + bool(stage.get("passed"))
        detail = stage.get("detail") or {}
        if name == "complexity":
            depth, breadth = _number(detail.get("depth")), _number(detail.get("breadth"))
            if depth is not None:
                report.depths.append(int(depth))
            if breadth is not None:
                report.breadths.append(int(breadth))
        elif name == "baseline":
            reward = _number(detail.get("reward"))
            if reward is not None:
                report.rewards.append(reward)


def batch_report(*, user: User, batch_id: int) -> BatchReport:
    batch = batch_get(user=user, batch_id=batch_id)
    report = BatchReport(
        reached=dict.fromkeys(STAGES, 0),
        passed=dict.fromkeys(STAGES, 0),
        categories={"accepted": Counter(), "rejected": Counter()},
    )
    rows = batch.candidates.values_list("stages", "accepted", "category", "target_class",
                                        "complexity")  # fmt: skip
    for stages, accepted, category, target, measured in rows.iterator(chunk_size=500):
        _add_stages(report, stages if isinstance(stages, list) else [])
        report.categories["accepted" if accepted else "rejected"][category or "none"] += 1
        if target or measured:
            report.classes[(target or "none", measured or "none")] += 1
    return report


def _export_records(batch: SynthesisBatch) -> Iterator[list[dict[str, Any]]]:
    accepted = batch.candidates.filter(accepted=True).order_by("index")
    chunk: list[dict[str, Any]] = []
    for candidate in accepted.iterator(chunk_size=EXPORT_CHUNK):
        chunk.append(task_record(batch, candidate))
        if len(chunk) == EXPORT_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def export_chunks(*, user: User, batch_id: int) -> Iterator[bytes]:
    """The accepted candidates as JSONL in the /api/imports format, a chunk of lines at a time.
    The batch is looked up now (a 404 or 403 before streaming starts); rows as they stream."""
    batch = batch_get(user=user, batch_id=batch_id)

    def chunks() -> Iterator[bytes]:
        for records in _export_records(batch):
            yield "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()

    return chunks()
