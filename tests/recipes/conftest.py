"""Recipe fixtures: the GeoNames / countryinfo corpus the kg synthesizer reads (with its BM25
index for the scripted researcher), a training directory per test, people of each role, and
the audit a person does at the gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from tests.synthesis.conftest import geo_corpus_dir  # noqa: F401  (a session fixture)

# The smallest loop: a handful of tasks, the tiny model, a step or two of each training stage,
# short turns (a tiny model never stops on its own).
MINI = {
    "model": "tiny",
    "seed": 3,
    "rollout": {"max_turns": 2, "max_turn_tokens": 16, "max_session_tokens": 64},
    "synth": {"tasks": 8},
    "collect": {"min_reward": 0.0},
    "sft": {"max_steps": 1, "params": {"gradient_accumulation_steps": 1, "max_length": 1024}},
    "grpo": {"max_steps": 1, "params": {"num_generations": 2, "prompts_per_step": 1}},
    "eval": {"tasks": 2},
}


@pytest.fixture(autouse=True)
def recipe_dirs(settings: Any, tmp_path: Path, geo_corpus_dir: Path) -> Path:  # noqa: F811
    settings.TRAINING_DIR = tmp_path / "training"
    settings.CORPUS_DIR = geo_corpus_dir
    settings.DATA_DIR = tmp_path
    return Path(settings.TRAINING_DIR)


def audit_all(user: User, campaign_id: int, decision: str = "accept") -> int:
    """`user` claims and submits every task of the campaign left to them: how many."""
    from apps.audit.services import assignment_claim_next, assignment_submit
    from apps.audit.services.submissions import node_kinds

    done = 0
    while (assignment := assignment_claim_next(user=user, campaign_id=campaign_id)) is not None:
        version = assignment.item.task.current_version
        assignment_submit(
            user=user,
            assignment_id=assignment.pk,
            version=version.number,
            decision=decision,
            verdicts={node: "correct" for node in node_kinds(version.tree)},
        )
        done += 1
    return done


def finished_recipe(admin: User) -> Any:
    """A recipe every stage of which ended, with the evaluations' results as their workers
    store them (rows only: the pages and REST read nothing else)."""
    from django.utils import timezone

    from apps.recipes.models import STAGES, Recipe
    from apps.recipes.services import config_parse
    from apps.training.models import Evaluation
    from quest.training.evaluate import TaskScore, summarize

    def model(name: str, rewards: list[float]) -> dict[str, Any]:
        scores = [
            TaskScore(
                task_id=str(i),
                reward=r,
                base=r,
                citation=0.0,
                valid_rate=1.0,
                status="answered",
                answered=True,
                turns=2,
                invalid_turns=0,
                tool_calls=1,
                elapsed_s=0.5,
                answer="An answer.",
            )
            for i, r in enumerate(rewards)
        ]
        return {"model": name, **summarize(scores), "scores": [s.to_dict() for s in scores]}

    now = timezone.now().isoformat()
    base, sft, grpo = [0.1, 0.2, 0.0], [0.3, 0.2, 0.4], [0.5, 0.3, 0.4]
    measured = {"checkpoint": model("/runs/1/final", sft), "base": model("tiny", base)}
    sft_eval = Evaluation.objects.create(
        status="done", checkpoint="/runs/1/final", base_model="tiny", created_by=admin,
        results={"models": measured},
    )  # fmt: skip
    grpo_eval = Evaluation.objects.create(
        status="done", checkpoint="/runs/2/final", created_by=admin,
        results={"models": {"checkpoint": model("/runs/2/final", grpo)}},
    )  # fmt: skip
    stages = {s.value: {"started_at": now, "finished_at": now, "note": f"{s.label} ended"}
              for s in STAGES}  # fmt: skip
    return Recipe.objects.create(
        name="A finished recipe", config=config_parse(MINI), stage="report", status="done",
        stages=stages, sft_evaluation=sft_eval, grpo_evaluation=grpo_eval, created_by=admin,
        finished_at=timezone.now(),
    )  # fmt: skip
