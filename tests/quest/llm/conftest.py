from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# Models must load from local files alone; any hub access would fail loudly.
os.environ["HF_HUB_OFFLINE"] = "1"

from llm_servers import TINY, ServedModel, build_tiny_model, start_serve_llm


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random-weights Llama (SmolLM2's tokenizer): real generation, nonsense text."""
    return build_tiny_model(tmp_path_factory.mktemp("models") / TINY)


@pytest.fixture(scope="session")
def tiny_server(tiny_model_dir: Path) -> Iterator[ServedModel]:
    """`python -m quest serve-llm` serving the tiny random model, shared by the session."""
    served = start_serve_llm(tiny_model_dir)
    yield served
    served.stop()


@pytest.fixture
def serve_llm() -> Iterator[Callable[[Path], ServedModel]]:
    """Starts serve-llm processes that this test alone uses (and may kill)."""
    started: list[ServedModel] = []

    def start(model: Path) -> ServedModel:
        started.append(start_serve_llm(model))
        return started[-1]

    yield start
    for served in started:
        served.stop()
