"""The recipe's state machine through the app's real services: a recipe's batch run by the
real engine, its gate's campaign audited and its trees probed for real, its datasets built;
the training and evaluation rows are ended here as their workers would end them (the workers
themselves run in test_worker.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.common.errors import Conflict, Forbidden, Invalid
from apps.recipes import selectors, services
from apps.recipes.models import Recipe
from tests.recipes.conftest import MINI, audit_all

pytestmark = pytest.mark.django_db(reset_sequences=True)


def started(admin: User, **options: Any) -> Recipe:
    config = {**MINI, **options.pop("config", {})}
    return services.recipe_create(user=admin, config=config, name="mini", **options)


def advanced(recipe: Recipe) -> Recipe:
    services.recipe_advance(recipe_id=recipe.pk)
    recipe.refresh_from_db()
    return recipe


def synthesized(recipe: Recipe) -> Recipe:
    from apps.synthesis.runner import batch_run

    batch_run(batch_id=recipe.batch_id)
    return advanced(recipe)


def probed(recipe: Recipe) -> None:
    from apps.rubrics.models import ProbeRun
    from apps.rubrics.services import probe_run

    for run in ProbeRun.objects.filter(status="queued"):
        probe_run(run_id=run.pk)


def gated(recipe: Recipe, admin: User) -> Recipe:
    recipe = synthesized(recipe)
    audit_all(admin, recipe.campaign_id)
    recipe = advanced(recipe)  # probes of the accepted versions: run already
    probed(recipe)
    return advanced(recipe)


def test_a_recipe_starts_with_its_batch_queued_and_its_config_complete(admin: User) -> None:
    recipe = started(admin)
    assert (recipe.stage, recipe.status) == ("synth", "running")
    assert recipe.batch.spec["count"] == 8 and recipe.batch.spec["generator"] == "kg"
    assert recipe.config["grpo"]["share"] == 0.55 and recipe.config["lora"], "defaults filled in"
    assert "queued" in recipe.stages["synth"]["note"]
    assert advanced(recipe).stage == "synth", "a queued batch keeps it there"


def test_a_finished_batch_opens_the_gate_with_a_campaign_and_probes(admin: User) -> None:
    from apps.audit.models import Campaign
    from apps.rubrics.models import ProbeRun

    recipe = synthesized(started(admin, audit_sample=5))
    assert (recipe.stage, recipe.status, recipe.waiting) == ("gate", "running", True)
    assert "finished_at" in recipe.stages["synth"]
    items = recipe.campaign.items.count()
    assert items == min(5, recipe.batch.accepted)
    assert ProbeRun.objects.count() == items
    for _ in range(2):  # advancing again and again makes nothing twice
        waiting = advanced(recipe)
    assert waiting.shown_status == "waiting" and "0 of" in waiting.stages["gate"]["note"]
    assert selectors.gate_waiting(waiting) and waiting.campaign_id == recipe.campaign_id
    assert Campaign.objects.count() == 1 and ProbeRun.objects.count() == items
    assert services.recipes_advance() == 1


def test_the_gate_passes_audited_sound_tasks_and_the_recipe_moves_to_collect(
    admin: User,
) -> None:
    recipe = gated(started(admin), admin)
    assert recipe.stage == "collect", recipe.stages
    note = recipe.stages["gate"]["note"]
    assert "probed sound" in note and "held out" in note
    assert recipe.sft_dataset.params["campaign"] == recipe.campaign_id
    assert recipe.sft_dataset.params["hint_retry"] is False
    assert recipe.rl_dataset.kind == "rl"


def test_rejected_tasks_never_pass_and_the_recipe_fails_saying_why(admin: User) -> None:
    recipe = synthesized(started(admin))
    audit_all(admin, recipe.campaign_id, decision="reject")
    recipe = advanced(recipe)
    assert recipe.status == "failed"
    assert "0 train and 0 held-out" not in recipe.error
    assert "at least one train and one held-out task" in recipe.error


def test_going_on_with_the_audited_tasks_leaves_the_rest_out(admin: User) -> None:
    from apps.audit.services import assignment_claim_next, assignment_submit
    from apps.audit.services.submissions import node_kinds

    recipe = synthesized(started(admin))
    probed(recipe)
    for _ in range(3):
        assignment = assignment_claim_next(user=admin, campaign_id=recipe.campaign_id)
        assert assignment is not None
        version = assignment.item.task.current_version
        verdicts = {node: "correct" for node in node_kinds(version.tree)}
        assignment_submit(user=admin, assignment_id=assignment.pk, version=version.number,
                          decision="accept", verdicts=verdicts)  # fmt: skip
    assert advanced(recipe).shown_status == "waiting"
    recipe = services.recipe_proceed(user=admin, recipe_id=recipe.pk)
    assert recipe.proceed_requested
    assert "3 of" in recipe.stages["gate"]["note"]


def finish(row: Any, **fields: Any) -> None:
    for name, value in {"status": "done", **fields}.items():
        setattr(row, name, value)
    row.save()


def final_model(job: Any) -> None:
    """What a finished run leaves on disk: its final model's directory."""
    final = Path(job.output_dir) / "final"
    final.mkdir(parents=True)
    (final / "config.json").write_text("{}")


def collected(admin: User) -> Recipe:
    from apps.training.runner import dataset_run

    recipe = gated(started(admin), admin)
    dataset_run(dataset_id=recipe.sft_dataset_id)
    dataset_run(dataset_id=recipe.rl_dataset_id)
    return advanced(recipe)


def test_datasets_then_sft_then_grpo_from_the_sft_model_then_evaluations(admin: User) -> None:
    recipe = collected(admin)
    assert recipe.stage == "sft", recipe.error
    assert recipe.sft_job.config["model"] == "tiny" and recipe.sft_job.max_steps == 1
    assert "SFT rows" in recipe.stages["collect"]["note"]
    final_model(recipe.sft_job)
    finish(recipe.sft_job, step=1)
    recipe = advanced(recipe)
    assert recipe.stage == "grpo"
    assert recipe.grpo_job.config["model"] == str(Path(recipe.sft_job.output_dir) / "final")
    assert recipe.grpo_job.dataset_id == recipe.rl_dataset_id
    assert advanced(recipe).stage == "grpo", "a queued job keeps it there"
    final_model(recipe.grpo_job)
    finish(recipe.grpo_job, step=1)
    recipe = advanced(recipe)
    assert recipe.stage == "evaluate"
    sft_eval, grpo_eval = recipe.sft_evaluation, recipe.grpo_evaluation
    assert sft_eval.base_model == "tiny" and grpo_eval.base_model == ""
    assert sft_eval.task_ids == grpo_eval.task_ids and sft_eval.task_ids
    assert sft_eval.budgets == {"max_turns": 2, "max_turn_tokens": 16}
    finish(sft_eval, results=_results(sft_eval.task_ids, ("checkpoint", 0.5), ("base", 0.25)))
    finish(grpo_eval, results=_results(grpo_eval.task_ids, ("checkpoint", 0.75)))
    recipe = advanced(recipe)
    assert (recipe.stage, recipe.status) == ("report", "done")
    table = selectors.results(recipe)
    assert [(m["label"], m["mean"]) for m in table["models"]] == [
        ("base", 0.25), ("sft", 0.5), ("grpo", 0.75)]  # fmt: skip
    assert [(d["label"], d["mean"]) for d in table["differences"]] == [
        ("sft vs base", 0.25), ("grpo vs base", 0.5), ("grpo vs sft", 0.25)]  # fmt: skip
    assert "grpo 0.750" in recipe.stages["report"]["note"]
    stages = selectors.timeline(recipe, now=recipe.finished_at)
    assert [s["status"] for s in stages] == ["done"] * 7
    assert stages[4]["links"] == [(f"job {recipe.grpo_job_id}",
                                   f"/training/jobs/{recipe.grpo_job_id}/")]  # fmt: skip


def _results(task_ids: list[str], *models: tuple[str, float]) -> dict[str, Any]:
    from quest.training.evaluate import TaskScore, summarize

    out: dict[str, Any] = {"models": {}}
    for label, reward in models:
        scores = [
            TaskScore(
                task_id=t,
                reward=reward,
                base=reward,
                citation=0.0,
                valid_rate=1.0,
                status="answered",
                answered=True,
                turns=1,
                invalid_turns=0,
                tool_calls=1,
                elapsed_s=0.1,
                answer="x",
            )
            for t in task_ids
        ]
        out["models"][label] = {"model": label, **summarize(scores),
                                "scores": [s.to_dict() for s in scores]}  # fmt: skip
    return out


def test_a_grpo_stage_of_zero_steps_is_skipped(admin: User) -> None:
    recipe = collected(admin)
    recipe.config["grpo"]["max_steps"] = 0
    recipe.save()
    final_model(recipe.sft_job)
    finish(recipe.sft_job, step=1)
    recipe = advanced(recipe)
    assert recipe.stage == "evaluate" and recipe.grpo_job is None
    assert recipe.grpo_evaluation is None
    assert recipe.stages["grpo"]["note"].startswith("skipped")
    assert selectors.timeline(recipe, now=recipe.created_at)[4]["status"] == "skipped"


def test_a_failed_job_fails_the_recipe_with_its_reason(admin: User) -> None:
    recipe = collected(admin)
    finish(recipe.sft_job, status="failed", error="the run exited with code 1: out of memory")
    recipe = advanced(recipe)
    assert recipe.status == "failed" and recipe.stage == "sft"
    assert "out of memory" in recipe.error and recipe.error.startswith("SFT: ")
    assert advanced(recipe).status == "failed", "a failed recipe stays failed"
    assert selectors.timeline(recipe, now=recipe.finished_at)[3]["status"] == "failed"


def test_a_failed_batch_fails_the_recipe(admin: User) -> None:
    recipe = started(admin)
    finish(recipe.batch, status="failed", error="no corpus")
    recipe = advanced(recipe)
    assert recipe.status == "failed" and "no corpus" in recipe.error


def test_cancelling_ends_the_recipe_and_its_queued_work(admin: User) -> None:
    recipe = started(admin)
    cancelled = services.recipe_cancel(user=admin, recipe_id=recipe.pk)
    assert cancelled.status == "cancelled"
    recipe.batch.refresh_from_db()
    assert recipe.batch.status == "cancelled"
    with pytest.raises(Conflict, match="nothing to cancel"):
        services.recipe_cancel(user=admin, recipe_id=recipe.pk)
    assert advanced(recipe).status == "cancelled"


def test_viewers_read_but_never_write(admin: User, viewer: User) -> None:
    recipe = started(admin)
    assert selectors.recipe_get(user=viewer, recipe_id=recipe.pk) == recipe
    with pytest.raises(Forbidden):
        services.recipe_create(user=viewer, config=MINI)
    with pytest.raises(Forbidden):
        services.recipe_cancel(user=viewer, recipe_id=recipe.pk)
    with pytest.raises(Forbidden):
        services.recipe_proceed(user=viewer, recipe_id=recipe.pk)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("gate: [", "not YAML"),
        ("- a list", "must be a mapping"),
        ({"gate": "auto-accept-sound"}, "human audit"),
        ({"synth": {"tasks": 1}}, "synth.tasks"),
        ({"synth": {"heldout_share": 0.5}}, "fixed 0.2"),
        ({"sft": {"max_steps": 0}}, "sft.max_steps"),
        ({"model": "relative/path"}, "absolute path"),
        ({"rollout": {"max_turns": 99}}, "rollout.max_turns"),
        ({"eval": {"tasks": 5000}}, "eval.tasks"),
        ({"bogus": 1}, "bogus: unknown field"),
        ("x" * 20_001, "at most 20,000"),
    ],
)
def test_a_bad_config_is_refused_naming_the_field(admin: User, config: Any, message: str) -> None:
    with pytest.raises(Invalid, match=message):
        services.recipe_create(user=admin, config=config)
    assert not Recipe.objects.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [({"audit_sample": 0}, "audit_sample"), ({"annotators_per_task": 11}, "annotators"),
     ({"audit_sample": True}, "whole number"), ({"name": "x" * 121}, "name")],
)  # fmt: skip
def test_bad_numbers_and_names_are_refused(
    admin: User, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(Invalid, match=message):
        services.recipe_create(user=admin, config=MINI, **options)


def test_one_person_runs_a_bounded_number_of_recipes(admin: User) -> None:
    for _ in range(services.MAX_ACTIVE_PER_USER):
        started(admin)
    with pytest.raises(Conflict, match="recipes running"):
        started(admin)


def test_a_stage_whose_queue_is_full_waits_for_room(
    admin: User, make_user: Callable[..., User]
) -> None:
    from apps.training.models import TrainingDataset
    from apps.training.services import MAX_QUEUED_PER_USER

    recipe = synthesized(started(admin))
    audit_all(admin, recipe.campaign_id)
    advanced(recipe)
    probed(recipe)
    for _ in range(MAX_QUEUED_PER_USER):
        TrainingDataset.objects.create(name="busy", kind="rl", created_by=admin)
    recipe = advanced(recipe)
    assert recipe.stage == "collect" and recipe.status == "running"
    assert "waiting for room" in recipe.stages["collect"]["note"]
    assert recipe.sft_dataset is None, "nothing half-made"
    TrainingDataset.objects.filter(name="busy").update(status="done")
    recipe = advanced(recipe)
    assert recipe.sft_dataset is not None, recipe.error
