from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.rubrics.models import Task

# The corpus app's small real corpus (Canberra, Kilimanjaro, a GeoNames page) for probes.
from tests.corpus.conftest import corpus_dir, small_corpus

__all__ = ["corpus_dir", "small_corpus", "small_tree"]

ROOT = Path(__file__).resolve().parents[2]
QUEST_TREES = ROOT / "fixtures" / "quest-trees"


@pytest.fixture
def quest_task() -> Callable[[str], dict[str, Any]]:
    """A real QUEST task file (shape C) from the release."""

    def load(name: str = "yu_lineage") -> dict[str, Any]:
        data: dict[str, Any] = json.loads((QUEST_TREES / f"{name}.json").read_text())
        return data

    return load


def small_tree(question: str = "Which city is the capital of Australia?") -> dict[str, Any]:
    """A tiny canonical tree with deterministic checks."""
    return {
        "format": "questweb.rubric/1",
        "scoring": "quest",
        "task_description": question,
        "root": {
            "id": "root",
            "description": question,
            "critical": False,
            "strategy": "parallel",
            "children": [
                {
                    "id": "capital",
                    "description": "Names Canberra",
                    "critical": True,
                    "check": {"kind": "mentions", "value": "Canberra"},
                },
                {
                    "id": "cited",
                    "description": "Cites a source",
                    "critical": False,
                    "check": {"kind": "cites_url"},
                },
            ],
        },
    }


@pytest.fixture(autouse=True)
def _no_corpus(settings: Any, tmp_path: Path) -> None:
    """Each test starts without a corpus, whatever `make run` left in the data directory."""
    settings.CORPUS_DIR = tmp_path / "corpus"


def judged_tree(question: str = "Which city is the capital of Australia?") -> dict[str, Any]:
    """small_tree with one more leaf that only an LLM judge can decide."""
    tree = small_tree(question)
    tree["root"]["children"].append(
        {
            "id": "reasoned",
            "description": "Explains why",
            "critical": False,
            "check": {"kind": "judge", "claim": "The answer explains why Canberra was chosen"},
        }
    )
    return tree


def small_task() -> Task:
    """A task over small_tree, written as an import writes it."""
    from apps.rubrics.services import task_prepare, tasks_write

    [task] = tasks_write(
        user=None,
        prepared=[task_prepare({"question": "Capital?", "rubric": small_tree()})],
        note="",
    )
    return task
