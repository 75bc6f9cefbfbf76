"""Each stage of a recipe: how it starts (through the service of the app that owns its work)
and how it is checked (by reading that work's row). Neither ever runs the work itself.

`start` and `check` return a Step; `done` moves the recipe to its next stage. A stage that
cannot go on raises StageFailed with the reason a person reads on the recipe's page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apps.audit.models import CampaignStatus, ItemState
from apps.audit.selectors import training_eligible_tasks
from apps.audit.services import campaign_create
from apps.common.errors import NotFound
from apps.recipes.models import Recipe, Stage
from apps.recipes.selectors import results
from apps.rubrics.models import ProbeRun, Task
from apps.rubrics.services import probes_ensure
from apps.synthesis.services import batch_create
from apps.training.datasets import campaign_tasks
from apps.training.selectors import checkpoint_get
from apps.training.services import SCRIPTED, dataset_create, evaluation_create, job_create
from quest.audit.taxonomy import ACCEPTING_DECISIONS
from quest.training.tasks import held_out


class StageFailed(Exception):
    """The stage cannot produce what the next one needs; the message says why."""


@dataclass(frozen=True)
class Step:
    done: bool = False
    note: str = ""
    waiting: bool = False  # on people (the gate's audit), not on a worker
    retry: bool = False  # refused for now (a full queue): tried again at the next advance


ENDED_BADLY = ("failed", "cancelled", "stopped")
GATE_INSTRUCTIONS = (
    "This campaign is the training gate of recipe {recipe}: only the tasks accepted here (and "
    "whose accepted tree then probes sound) reach its training data and its held-out set."
)


def owner(recipe: Recipe) -> Any:
    if recipe.created_by is None:
        raise StageFailed("its owner's account was deleted; start a new recipe")
    return recipe.created_by


def _ended_badly(noun: str, row: Any) -> StageFailed:
    why = f": {row.error}" if row.error else ""
    return StageFailed(f"{noun} {row.pk} ended {row.status}{why}")


def _present(row: Any, noun: str) -> Any:
    if row is None:
        raise StageFailed(f"its {noun} was deleted")
    return row


# ---- synthesize -----------------------------------------------------------------------------


def start_synth(recipe: Recipe) -> Step:
    synth = recipe.config["synth"]
    spec = {"generator": "kg", "count": synth["tasks"], "seed": recipe.config["seed"],
            "baseline": False}  # fmt: skip
    recipe.batch = batch_create(user=owner(recipe), spec=spec)
    return Step(note=f"batch {recipe.batch.pk} queued: {synth['tasks']} proposals")


def check_synth(recipe: Recipe) -> Step:
    batch = _present(recipe.batch, "synthesis batch")
    if batch.status in ("failed", "cancelled"):
        raise _ended_badly("synthesis batch", batch)
    counts = f"{batch.proposed} of {batch.total} proposed, {batch.accepted} accepted"
    if batch.status != "done":
        return Step(note=counts)
    if batch.accepted == 0:
        raise StageFailed(f"{counts}: no task to audit; ask for more synth.tasks")
    return Step(done=True, note=counts)


# ---- gate -----------------------------------------------------------------------------------


def start_gate(recipe: Recipe) -> Step:
    """An audit campaign over a sample of the batch's tasks, and a probe of each sampled tree
    (the gate takes a task only once the version its audit accepted probed sound)."""
    batch = _present(recipe.batch, "synthesis batch")
    campaign = campaign_create(
        user=owner(recipe),
        name=f"Recipe {recipe.pk} gate: {recipe.name}"[:200],
        filters={"batch": batch.provenance_batch},
        annotators_per_task=recipe.annotators_per_task,
        limit=recipe.audit_sample,
        instructions=GATE_INSTRUCTIONS.format(recipe=recipe.pk),
    )
    recipe.campaign = campaign
    items = list(campaign.items.select_related("start_version"))
    for item in items:
        _probe(recipe, item.task_id, item.start_version)
    return Step(waiting=True, note=f"campaign {campaign.pk} holds {len(items)} tasks to audit")


def _probe(recipe: Recipe, task_id: int, version: Any) -> None:
    """Queue a probe of a tree version unless one was run or queued already (the same call as
    an accepting audit decision and "probe all" make)."""
    probes_ensure(user=owner(recipe), targets=[(Task.objects.get(pk=task_id), version)])


def check_gate(recipe: Recipe) -> Step:
    campaign = _present(recipe.campaign, "audit campaign")
    items = list(campaign.items.select_related("final_version"))
    decided = [item for item in items if item.state == ItemState.DECIDED]
    accepted = [item for item in decided if item.decision in ACCEPTING_DECISIONS]
    for item in accepted:  # a fixed tree is a new version: it is probed too
        _probe(recipe, item.task_id, item.final_version)
    audit = f"{len(decided)} of {len(items)} tasks decided, {len(accepted)} accepted"
    undecided = len(decided) < len(items) and campaign.status != CampaignStatus.CLOSED
    if undecided and not recipe.proceed_requested:
        return Step(waiting=True, note=f"waiting for the audit: {audit}")
    versions = [item.final_version_id for item in accepted]
    probing = ProbeRun.objects.filter(version_id__in=versions, status__in=("queued", "running"))
    if probing.exists():
        return Step(note=f"{audit}; probing {probing.count()} accepted trees")
    train, held = gated_split(campaign.pk)
    passed = f"{audit}; {train + held} probed sound: {train} train, {held} held out"
    if not train or not held:
        raise StageFailed(
            f"{passed}. A recipe needs at least one train and one held-out task: audit a larger "
            "sample, or start a recipe with more synth.tasks"
        )
    return Step(done=True, note=passed)


def gated_split(campaign_id: int) -> tuple[int, int]:
    """(train, held out): the campaign's tasks the training gate lets through."""
    ids = campaign_tasks(campaign_id) or set()
    gated = training_eligible_tasks().filter(pk__in=ids).values_list("pk", flat=True)
    held = sum(1 for pk in gated if held_out(pk))
    return len(gated) - held, held


# ---- collect --------------------------------------------------------------------------------


def start_collect(recipe: Recipe) -> Step:
    """The SFT sessions (the scripted researcher on the gated train split, rollouts kept at the
    reward threshold) and the RL prompts, both of this recipe's campaign only."""
    collect, campaign = recipe.config["collect"], recipe.campaign_id
    user = owner(recipe)
    recipe.sft_dataset = dataset_create(
        user=user,
        kind="sft",
        name=f"Recipe {recipe.pk} SFT sessions",
        params={
            "split": "train",
            "campaign": campaign,
            "policy": SCRIPTED,
            "attempts": collect["attempts"],
            "min_reward": collect["min_reward"],
            "hint_retry": False,
        },
    )
    recipe.rl_dataset = dataset_create(
        user=user,
        kind="rl",
        name=f"Recipe {recipe.pk} RL prompts",
        params={"split": "train", "campaign": campaign},
    )
    return Step(note=f"datasets {recipe.sft_dataset.pk} and {recipe.rl_dataset.pk} queued")


def check_collect(recipe: Recipe) -> Step:
    sft = _present(recipe.sft_dataset, "SFT dataset")
    rl = _present(recipe.rl_dataset, "RL dataset")
    for dataset in (sft, rl):
        if dataset.status in ENDED_BADLY:
            raise _ended_badly(f"{dataset.kind.upper()} dataset", dataset)
    if sft.status != "done" or rl.status != "done":
        return Step(note=f"collecting: {sft.done} of {sft.total or '?'} train tasks")
    kept = (sft.stats.get("collect") or {}).get("kept", "?")
    return Step(done=True, note=f"{kept} rollouts kept: {sft.rows} SFT rows; {rl.rows} RL prompts")


# ---- SFT and GRPO ---------------------------------------------------------------------------


def _training_job(
    recipe: Recipe, kind: str, dataset: Any, model: str, *, save_every: int, **more: Any
) -> Any:
    """A `kind` ("sft", "grpo") training job of the recipe's config, saving every `save_every`
    steps; `more` are the kind's own params besides its `<kind>.params`."""
    config = recipe.config
    steps = config[kind]["max_steps"]
    params = {"max_steps": steps, "save_steps": min(save_every, steps), "seed": config["seed"]}
    return job_create(
        user=owner(recipe),
        kind=kind,
        dataset_id=dataset.pk,
        model=model,
        params={**params, kind: config[kind]["params"], **more, "lora": config["lora"]},
        name=f"Recipe {recipe.pk} {kind.upper()}",
    )


def start_sft(recipe: Recipe) -> Step:
    dataset = _present(recipe.sft_dataset, "SFT dataset")
    recipe.sft_job = _training_job(recipe, "sft", dataset, recipe.config["model"], save_every=5)
    return Step(note=f"job {recipe.sft_job.pk} queued: {recipe.config['sft']['max_steps']} steps")


def start_grpo(recipe: Recipe) -> Step:
    """GRPO from the SFT job's final model, on the RL prompts (skipped at grpo.max_steps 0)."""
    config = recipe.config
    steps = config["grpo"]["max_steps"]
    if steps == 0:
        return Step(done=True, note="skipped: grpo.max_steps is 0")
    dataset = _present(recipe.rl_dataset, "RL dataset")
    model = final_model(_present(recipe.sft_job, "SFT job"))
    recipe.grpo_job = _training_job(
        recipe, "grpo", dataset, model, save_every=2, rollout=config["rollout"]
    )
    return Step(note=f"job {recipe.grpo_job.pk} queued from the SFT model: {steps} steps")


def final_model(job: Any) -> str:
    try:
        return checkpoint_get(job, "final").path
    except NotFound:
        raise StageFailed(f"job {job.pk} ended without its final model on disk") from None


def _check_job(job: Any, noun: str) -> Step:
    job = _present(job, noun)
    if job.status in ENDED_BADLY:
        raise _ended_badly(noun, job)
    if job.status != "done":
        return Step(note=f"{job.get_status_display().lower()}: step {job.step} of {job.max_steps}")
    final_model(job)
    return Step(done=True, note=f"{job.step} steps")


def check_sft(recipe: Recipe) -> Step:
    return _check_job(recipe.sft_job, "SFT job")


def check_grpo(recipe: Recipe) -> Step:
    return _check_job(recipe.grpo_job, "GRPO job")


# ---- evaluate and report --------------------------------------------------------------------


def start_evaluate(recipe: Recipe) -> Step:
    """The SFT model and its base, then the GRPO model, by the same agent loop on the same
    held-out tasks of the recipe's campaign."""
    config, user = recipe.config, owner(recipe)
    asked = {
        "limit": config["eval"]["tasks"],
        "budgets": {
            "max_turns": config["rollout"]["max_turns"],
            "max_turn_tokens": config["rollout"]["max_turn_tokens"],
        },
        "campaign_id": recipe.campaign_id,
    }
    sft_job = _present(recipe.sft_job, "SFT job")
    recipe.sft_evaluation = evaluation_create(user=user, job_id=sft_job.pk, **asked)
    if recipe.grpo_job_id is not None:
        recipe.grpo_evaluation = evaluation_create(
            user=user, job_id=recipe.grpo_job_id, compare_base=False, **asked
        )
    tasks = len(recipe.sft_evaluation.task_ids)
    return Step(note=f"{tasks} held-out task{'s' if tasks != 1 else ''} queued")


def check_evaluate(recipe: Recipe) -> Step:
    evaluations = [_present(recipe.sft_evaluation, "SFT evaluation")]
    if recipe.grpo_job_id is not None:
        evaluations.append(_present(recipe.grpo_evaluation, "GRPO evaluation"))
    for evaluation in evaluations:
        if evaluation.status in ENDED_BADLY:
            raise _ended_badly("evaluation", evaluation)
    done, total = sum(e.done for e in evaluations), sum(e.total for e in evaluations)
    if any(e.status != "done" for e in evaluations):
        return Step(note=f"{done} of {total} runs done")
    return Step(done=True, note=f"{total} runs done")


def start_report(recipe: Recipe) -> Step:
    table = results(recipe)
    shown = [f"{m['label']} {m['mean']:.3f}" for m in table["models"] if m["mean"] is not None]
    return Step(done=True, note="mean reward: " + (", ".join(shown) or "no task scored"))


def check_report(recipe: Recipe) -> Step:
    return Step(done=True)


STARTS: dict[str, Callable[[Recipe], Step]] = {
    Stage.SYNTH: start_synth, Stage.GATE: start_gate, Stage.COLLECT: start_collect,
    Stage.SFT: start_sft, Stage.GRPO: start_grpo, Stage.EVALUATE: start_evaluate,
    Stage.REPORT: start_report,
}  # fmt: skip
CHECKS: dict[str, Callable[[Recipe], Step]] = {
    Stage.SYNTH: check_synth, Stage.GATE: check_gate, Stage.COLLECT: check_collect,
    Stage.SFT: check_sft, Stage.GRPO: check_grpo, Stage.EVALUATE: check_evaluate,
    Stage.REPORT: check_report,
}  # fmt: skip
