"""Synthesis batches: asking for one, stopping it, and people's calls on its candidates.

Creating tasks goes through the import's own services (task_prepare, tasks_write), so a
synthesized task is checked and stored exactly as an imported one. The run itself is runner.py.

Hand decisions. Accepting a candidate the funnel rejected writes its task (refused, with the
import's reason, when its record is no valid task). Rejecting an accepted candidate removes its
task when nobody has touched it yet (unaudited, first version, in no campaign, never probed or
researched); otherwise the task is left to the audit flow, which is where a task in use is
judged, and the candidate keeps its link so the task can be found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.paginator import Page
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.permissions import require_role
from apps.accounts.roles import Role
from apps.audit import selectors as audit_selectors
from apps.audit import services as audit_services
from apps.audit.models import Campaign
from apps.common import llm
from apps.common.errors import Conflict, Invalid, NotFound
from apps.common.llm import needs_gpu
from apps.common.storable import ensure_storable, printable
from apps.jobs.dispatch import job_send, jobs_expire, task_send
from apps.jobs.models import ACTIVE
from apps.jobs.services import job_cancel
from apps.rubrics.models import Task
from apps.rubrics.selectors import subcategory_counts
from apps.rubrics.services import task_discard_untouched, task_prepare, tasks_write
from apps.synthesis import selectors
from apps.synthesis.models import BatchCampaign, Decision, SynthesisBatch, SynthesisCandidate
from apps.synthesis.records import task_record
from quest.synthesis import shards
from quest.synthesis.keywords import (
    MAX_KEYWORD_CHARS,
    MAX_KEYWORDS,
    KeywordError,
    read_keywords,
)
from quest.synthesis.kgsynth import SUBCATEGORIES as KG
from quest.synthesis.model import BatchSpec
from quest.synthesis.seeds import SUBCATEGORIES
from workers.queues import Queue

SPEC_FIELDS = (
    "generator",
    "count",
    "seed",
    "categories",
    "classes",
    "baseline",
    "open_ended",
    "proposer_turns",
    "until_accepted",
)
# A worker runs one batch at a time: this bounds how much one person can queue ahead of others.
MAX_ACTIVE_PER_USER = 3
SYNTHESIS = "synthesis"  # the job kind (apps/synthesis/jobs.py)
SHARD_TASK = "apps.synthesis.tasks.cpu_synthesis_shard"
NOTE_MAX = 500


def _typed(data: Mapping[str, Any]) -> dict[str, Any]:
    kinds = {
        "generator": (str, "text"),
        "count": (int, "a whole number"),
        "seed": (int, "a whole number"),
        "categories": (dict, "an object of weights"),
        "classes": (dict, "an object of weights"),
        "baseline": (bool, "true or false"),
        "open_ended": (bool, "true or false"),
        "proposer_turns": (int, "a whole number"),
        "until_accepted": (bool, "true or false"),
    }
    fields = {}
    for name, value in data.items():
        kind, words = kinds[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise Invalid(f"{name} must be {words}")
        fields[name] = value
    return fields


def writable_subcategories(generator: str) -> tuple[str, ...]:
    """The subcategories a generator writes tasks for: the kg synthesizer has geography
    framings of 15 of QUEST's 24, the llm proposer takes any."""
    return {"kg": KG, "llm": SUBCATEGORIES}.get(generator, ())


def _check_writable(spec: BatchSpec) -> None:
    # The engine would skip these silently, or refuse the batch once it runs.
    writable = writable_subcategories(spec.generator)
    chosen = [name for name, weight in spec.categories.items() if weight > 0]
    unwritable = sorted(set(chosen) - set(writable))
    if unwritable:
        raise Invalid(
            f"categories: the {spec.generator} generator writes no tasks for "
            f"{', '.join(unwritable)} (it writes {', '.join(writable)})"
        )


def spec_parse(data: Mapping[str, Any]) -> BatchSpec:
    """A BatchSpec from JSON-like data, or Invalid saying every problem the engine finds."""
    unknown = sorted(set(data) - set(SPEC_FIELDS))
    if unknown:
        raise Invalid(f"unknown field {unknown[0]!r} (a batch has {', '.join(SPEC_FIELDS)})")
    ensure_storable(dict(data), field="")
    spec = BatchSpec(**_typed(data))
    problems = shards.problems(spec)
    if problems:
        raise Invalid("; ".join(problems))
    _check_writable(spec)
    return spec


def spec_json(spec: BatchSpec) -> dict[str, Any]:
    return {
        "generator": spec.generator,
        "count": spec.count,
        "seed": spec.seed,
        "categories": dict(spec.categories),
        "classes": dict(spec.classes),
        "baseline": spec.baseline,
        "open_ended": spec.open_ended,
        "proposer_turns": spec.proposer_turns,
        "until_accepted": spec.until_accepted,
    }


def spec_load(data: Mapping[str, Any]) -> BatchSpec:
    return BatchSpec(**{k: data[k] for k in SPEC_FIELDS if k in data})


def _model(spec: BatchSpec, model: str) -> str:
    """The llm generator's model: one a live session could use, the first by default."""
    if spec.generator != "llm":
        if model:
            raise Invalid(f"the {spec.generator} generator takes no model")
        return ""

    choices = llm.model_choices()
    chosen = model or choices[0]
    if chosen not in choices:
        raise Invalid(f"model must be one of {', '.join(choices)}")
    return chosen


def _enqueue(batch: SynthesisBatch) -> None:
    if batch.shards:
        enqueue_shards(batch, range(batch.shards))
        return
    job_send(SYNTHESIS, batch.pk, queue=Queue.GPU if needs_gpu(batch.model) else None)


def keywords_parse(keywords: Any) -> list[str]:
    """Seed keywords as given over REST (a list) or uploaded (CSV bytes with a `keyword`
    column); Invalid saying what is wrong."""
    if isinstance(keywords, bytes):
        try:
            return read_keywords(keywords, name="the keyword file")
        except KeywordError as exc:
            raise Invalid(str(exc)) from exc
    if not isinstance(keywords, list | tuple) or not all(isinstance(k, str) for k in keywords):
        raise Invalid("keywords must be a list of strings")
    cleaned = list(dict.fromkeys(" ".join(k.split()) for k in keywords if k.strip()))
    if len(cleaned) > MAX_KEYWORDS:
        raise Invalid(f"keywords: more than {MAX_KEYWORDS:,}")
    if any(len(k) > MAX_KEYWORD_CHARS for k in cleaned):
        raise Invalid(f"keywords: each at most {MAX_KEYWORD_CHARS} characters")
    ensure_storable(cleaned, field="keywords")
    return cleaned


def batch_create(
    *, user: User, spec: Mapping[str, Any], model: str = "", keywords: Any = ()
) -> SynthesisBatch:
    """Queue a batch (whoever may create and import tasks: admins) on the cpu queue, or the gpu
    queue for an llm batch whose model runs in-process with vLLM."""
    require_role(user, Role.ADMIN)
    parsed = spec_parse(spec)
    model = _model(parsed, model.strip())
    seeds = keywords_parse(keywords if keywords is not None else [])
    if seeds and parsed.generator != "llm":
        raise Invalid("keywords seed the llm generator; the kg generator takes none")

    with transaction.atomic():
        active = SynthesisBatch.objects.select_for_update().filter(
            created_by=user, status__in=ACTIVE
        )
        if len(active) >= MAX_ACTIVE_PER_USER:
            raise Conflict(
                f"you already have {MAX_ACTIVE_PER_USER} batches queued or running; "
                "cancel one or wait for it to finish"
            )
        batch = SynthesisBatch.objects.create(
            spec=spec_json(parsed),
            model=model,
            keywords=seeds,
            total=parsed.count,
            **_sharding(parsed),
            created_by=user,
        )
        transaction.on_commit(lambda: _enqueue(batch))
    return batch


def _sharding(spec: BatchSpec) -> dict[str, int]:
    """How a batch is split: SYNTHESIS_SHARD_SIZE candidates a shard (the engine's default)."""
    size = int(getattr(settings, "SYNTHESIS_SHARD_SIZE", shards.SHARD_SIZE))
    if not shards.shardable(spec, size):
        return {}
    return {"shards": len(shards.shards_of(spec, size)), "shard_size": size}


def enqueue_shards(batch: SynthesisBatch, numbers: range) -> None:
    # Every shard of a wave samples subcategories from the same counts, whatever the others
    # write (a later wave's counts hold the earlier waves' tasks).
    used = subcategory_counts()
    for number in numbers:
        task_send(SHARD_TASK, batch.pk, number, used, queue=Queue.CPU)


def batch_cancel(*, user: User, batch_id: int) -> SynthesisBatch:
    """End a queued or running batch now. The candidates written so far stay, with their tasks;
    the worker writes nothing more (each write checks the batch under its row lock)."""
    batch: SynthesisBatch = job_cancel(user=user, kind=SYNTHESIS, job_id=batch_id)
    return batch


def batch_status(*, user: User, batch_id: int) -> SynthesisBatch:
    """A batch as it stands, after the watchdog, so a dead worker's batch reads as failed even
    where no beat process runs."""
    jobs_expire(kind=SYNTHESIS)
    return selectors.batch_get(user=user, batch_id=batch_id)


def batch_page(*, user: User, page: int, page_size: int) -> Page[SynthesisBatch]:
    """A page of batches, newest first, after the watchdog (see batch_status)."""
    jobs_expire(kind=SYNTHESIS)
    return selectors.batch_page(user=user, page=page, page_size=page_size)


def batch_list(*, user: User) -> QuerySet[SynthesisBatch]:
    """Every batch, newest first, after the watchdog (see batch_status)."""
    jobs_expire(kind=SYNTHESIS)
    return selectors.batch_list(user=user)


def candidate_task_write(candidate: SynthesisCandidate, *, user: User | None) -> Task:
    """The candidate's task, pending audit, through the import's checks and writer."""
    batch = candidate.batch
    try:
        prepared = task_prepare(task_record(batch, candidate))
    except Invalid as exc:
        raise Invalid(f"candidate {candidate.index} cannot become a task: {exc.message}") from exc
    note = f"synthesis batch {batch.pk}, candidate {candidate.index}"
    [task] = tasks_write(user=user, prepared=[prepared], note=note)
    return task


def _locked(candidate_id: int) -> SynthesisCandidate:
    candidate = (
        SynthesisCandidate.objects.select_for_update(of=("self",))
        .select_related("batch")
        .filter(pk=candidate_id)
        .first()
    )
    if candidate is None:
        raise NotFound(f"no synthesis candidate {candidate_id}")
    return candidate


def _decide(candidate: SynthesisCandidate, user: User, decision: str, note: str) -> None:
    candidate.decision = decision
    candidate.decided_by = user
    candidate.decided_at = timezone.now()
    candidate.decision_note = printable(note.strip())[:NOTE_MAX]
    candidate.save()
    change = 1 if candidate.accepted else -1
    SynthesisBatch.objects.filter(pk=candidate.batch_id).update(accepted=F("accepted") + change)


@transaction.atomic
def candidate_accept(*, user: User, candidate_id: int, note: str = "") -> SynthesisCandidate:
    """Accept a candidate the funnel (or a person) rejected: its task is written, pending audit;
    a task kept from an earlier hand rejection is linked again instead of written twice."""
    require_role(user, Role.ADMIN)
    candidate = _locked(candidate_id)
    if candidate.accepted:
        raise Conflict(f"candidate {candidate.index} of batch {candidate.batch_id} is accepted")
    if candidate.task_id is None:
        candidate.task = candidate_task_write(candidate, user=user)
    candidate.accepted = True
    _decide(candidate, user, Decision.ACCEPTED_BY_HAND, note)
    return candidate


@transaction.atomic
def candidate_reject(*, user: User, candidate_id: int, note: str = "") -> SynthesisCandidate:
    """Reject an accepted candidate. Its task is removed when nobody has touched it, else left
    to the audit flow (see the module's notes); `task_id` is then still set."""
    require_role(user, Role.ADMIN)
    candidate = _locked(candidate_id)
    if not candidate.accepted:
        raise Conflict(f"candidate {candidate.index} of batch {candidate.batch_id} is rejected")
    if candidate.task_id is not None and task_discard_untouched(task_id=candidate.task_id):
        candidate.task = None
    candidate.accepted = False
    _decide(candidate, user, Decision.REJECTED_BY_HAND, note)
    return candidate


@dataclass(frozen=True)
class BatchCampaignResult:
    """What a press on a batch's campaign button did: made `campaign` (with `added` tasks), or
    found it already there and added the `added` undecided tasks it lacked."""

    campaign: Campaign
    created: bool
    added: int

    @property
    def message(self) -> str:
        name = f"Campaign “{self.campaign.name}”"
        tasks = "undecided task" if self.added == 1 else "undecided tasks"
        if self.created:
            return f"{name} created with {self.added} {tasks}."
        if not self.added:
            return f"{name} already exists for this batch: nothing new to add."
        return f"{name} already exists for this batch: added {self.added} new {tasks}."


def _campaignable(batch: SynthesisBatch) -> None:
    if batch.is_active:
        raise Conflict(
            f"batch {batch.pk} is still {batch.status}: a campaign holds the tasks there are "
            "when it is created, so wait for the batch to end (or cancel it)"
        )
    if not batch.candidates.filter(accepted=True, task__isnull=False).exists():
        raise Invalid(f"batch {batch.pk} has no accepted candidate, so no task to audit")


def _distinct_name(name: str, campaigns: list[Campaign]) -> str:
    """`name`, or with a " (n)" suffix when another campaign of the batch has it."""
    if name not in {c.name for c in campaigns}:
        return name
    suffix = f" ({len(campaigns) + 1})"
    return name[: 200 - len(suffix)] + suffix


def batch_campaign_create(
    *,
    user: User,
    batch_id: int,
    name: str = "",
    annotators_per_task: int = 2,
    lock_minutes: int = 30,
    instructions: str = "",
    new: bool = False,
) -> BatchCampaignResult:
    """An audit campaign over the undecided tasks of a batch that ended (filtered on the batch
    its tasks' provenance names). Pressed again, it adds to the batch's newest open campaign
    the undecided tasks that campaign lacks; another campaign is made only when `new` asks.
    The batch's row lock makes two presses at once one campaign."""
    require_role(user, Role.ADMIN)
    ensure_storable({"name": name, "instructions": instructions}, field="")
    batch_status(user=user, batch_id=batch_id)
    with transaction.atomic():
        batch = SynthesisBatch.objects.select_for_update().get(pk=batch_id)
        _campaignable(batch)
        campaigns = list(
            Campaign.objects.filter(synthesis_link__batch=batch).order_by("-created_at", "-id")
        )
        filters = selectors.campaign_filters(batch)
        if campaigns and not new:
            return _campaign_add(user, campaigns, filters)
        if not audit_selectors.tasks_matching_count(user=user, filters=filters):
            raise Invalid(f"every task of batch {batch.pk} has been decided by an audit already")
        campaign = audit_services.campaign_create(
            user=user,
            name=_distinct_name(name.strip() or f"Synthesis batch {batch.pk}", campaigns),
            filters=filters,
            annotators_per_task=annotators_per_task,
            lock_minutes=lock_minutes,
            instructions=instructions,
        )
        BatchCampaign.objects.create(batch=batch, campaign=campaign)
    return BatchCampaignResult(campaign, created=True, added=campaign.items.count())


def _campaign_add(
    user: User, campaigns: list[Campaign], filters: dict[str, str]
) -> BatchCampaignResult:
    campaign = selectors.campaign_reused(campaigns)
    if campaign is None:
        raise Conflict(
            f"the campaign “{campaigns[0].name}” of this batch is closed: ask for a new "
            "campaign to audit the batch's undecided tasks"
        )
    added = audit_services.campaign_tasks_add(user=user, campaign_id=campaign.pk, filters=filters)
    return BatchCampaignResult(campaign, created=False, added=added)
