"""Agreement between annotators (per node type and on the task decision) and between the judge
and the humans, for one campaign."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignTask,
    GoldVerdict,
    JudgeVerdict,
    NodeVerdict,
)
from apps.common.errors import NotFound
from quest.audit import cohen_kappa, krippendorff_alpha, node_consensus, percent_agreement
from quest.audit.taxonomy import judge_suggestion

# (is_leaf, critical) -> belongs to the node type
NODE_TYPES: dict[str, Callable[[bool, bool], bool]] = {
    "all nodes": lambda leaf, crit: True,
    "leaves": lambda leaf, crit: leaf,
    "groups": lambda leaf, crit: not leaf,
    "critical": lambda leaf, crit: crit,
    "non-critical": lambda leaf, crit: not crit,
}
MAX_LEAF_ROWS = 500


@dataclass(frozen=True)
class AgreementRow:
    label: str
    units: int
    kappa: float | None
    alpha: float | None
    percent: float | None


@dataclass(frozen=True)
class JudgeLeaf:
    item_id: int
    task_id: int
    node_id: str
    judge_status: str
    suggested: str
    human: str
    agrees: bool


@dataclass(frozen=True)
class JudgeAgreement:
    leaves: int
    kappa: float | None
    percent: float | None
    rows: list[JudgeLeaf] = field(default_factory=list)


@dataclass(frozen=True)
class CampaignAgreement:
    campaign: Campaign
    nodes: list[AgreementRow]
    decisions: AgreementRow
    judge: JudgeAgreement


def _row(label: str, units: Iterable[list[str]], two_raters: bool) -> AgreementRow:
    rated = [u for u in units if len(u) >= 2]
    pairs = [(u[0], u[1]) for u in rated if len(u) == 2]
    return AgreementRow(
        label=label,
        units=len(rated),
        kappa=cohen_kappa(pairs) if two_raters else None,
        alpha=krippendorff_alpha(rated),
        percent=percent_agreement(rated),
    )


def _node_units(campaign: Campaign) -> dict[tuple[int, str], tuple[bool, bool, list[str]]]:
    rows = (
        NodeVerdict.objects.filter(
            assignment__campaign=campaign, assignment__status=AssignmentStatus.SUBMITTED
        )
        .order_by("assignment__item_id", "assignment__submitted_at", "assignment_id")
        .values_list("assignment__item_id", "node_id", "verdict", "is_leaf", "critical")
    )
    units: dict[tuple[int, str], tuple[bool, bool, list[str]]] = {}
    for item_id, node_id, verdict, is_leaf, critical in rows.iterator(chunk_size=5000):
        units.setdefault((item_id, node_id), (is_leaf, critical, []))[2].append(verdict)
    return units


def _decision_units(campaign: Campaign) -> list[list[str]]:
    by_item: dict[int, list[str]] = defaultdict(list)
    rows = (
        Assignment.objects.filter(campaign=campaign, status=AssignmentStatus.SUBMITTED)
        .order_by("item_id", "submitted_at", "pk")
        .values_list("item_id", "decision")
    )
    for item_id, decision in rows:
        by_item[item_id].append(decision)
    return list(by_item.values())


def _human_labels(
    campaign: Campaign, units: dict[tuple[int, str], tuple[bool, bool, list[str]]]
) -> dict[tuple[int, str], str]:
    """Per node: the reviewer's gold verdict, else the annotators' shared verdict."""
    labels = {}
    for key, (_, _, verdicts) in units.items():
        agreed = node_consensus(verdicts)
        if agreed is not None:
            labels[key] = agreed
    gold = GoldVerdict.objects.filter(item__campaign=campaign).values_list(
        "item_id", "node_id", "verdict"
    )
    labels.update({(item_id, node_id): verdict for item_id, node_id, verdict in gold})
    return labels


def _judge(campaign: Campaign, human: dict[tuple[int, str], str]) -> JudgeAgreement:
    items = dict(CampaignTask.objects.filter(campaign=campaign).values_list("task_id", "pk"))
    latest: dict[tuple[int, str], str] = {}
    rows = (
        JudgeVerdict.objects.filter(task_id__in=list(items))
        .order_by("version__number")
        .values_list("task_id", "node_id", "status")
    )
    for task_id, node_id, status in rows:
        latest[(task_id, node_id)] = status
    leaves = []
    for (task_id, node_id), status in latest.items():
        suggested = judge_suggestion(status)
        label = human.get((items[task_id], node_id))
        if suggested and label:
            leaves.append(
                JudgeLeaf(
                    items[task_id], task_id, node_id, status, suggested, label, suggested == label
                )
            )
    pairs = [(leaf.suggested, leaf.human) for leaf in leaves]
    return JudgeAgreement(
        leaves=len(leaves),
        kappa=cohen_kappa(pairs),
        percent=(sum(leaf.agrees for leaf in leaves) / len(leaves)) if leaves else None,
        rows=sorted(leaves, key=lambda leaf: (leaf.agrees, leaf.item_id))[:MAX_LEAF_ROWS],
    )


def campaign_agreement(*, user: User, campaign_id: int) -> CampaignAgreement:
    require_role(user, Role.REVIEWER)
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    two = campaign.annotators_per_task == 2
    units = _node_units(campaign)
    nodes = [
        _row(label, (v for leaf, crit, v in units.values() if keep(leaf, crit)), two)
        for label, keep in NODE_TYPES.items()
    ]
    decisions = _row("task decision", _decision_units(campaign), two)
    return CampaignAgreement(
        campaign, nodes, decisions, _judge(campaign, _human_labels(campaign, units))
    )
