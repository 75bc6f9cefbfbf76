"""Recipe fixtures: the GeoNames / countryinfo corpus the kg synthesizer reads (with its BM25
index for the scripted researcher), a training directory per test, people of each role, and
the audit a person does at the gate."""

from __future__ import annotations

from collections.abc import Callable
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
    "sft": {"max_steps": 1, "params": {"gradient_accumulation_steps": 1}},
    "grpo": {"max_steps": 1, "params": {"num_generations": 2, "prompts_per_step": 1}},
    "eval": {"tasks": 2},
}


@pytest.fixture(autouse=True)
def recipe_dirs(settings: Any, tmp_path: Path, geo_corpus_dir: Path) -> Path:  # noqa: F811
    settings.TRAINING_DIR = tmp_path / "training"
    settings.CORPUS_DIR = geo_corpus_dir
    settings.DATA_DIR = tmp_path
    return Path(settings.TRAINING_DIR)


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin", username="ada")


@pytest.fixture
def viewer(make_user: Callable[..., User]) -> User:
    return make_user("viewer", username="vic")


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
