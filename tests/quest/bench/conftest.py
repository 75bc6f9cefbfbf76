from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Models load from local files alone; any hub access would fail loudly.
os.environ["HF_HUB_OFFLINE"] = "1"
# The LLM tests' helpers start the real `python -m quest serve-llm`.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))

from llm_servers import ServedModel, start_serve_llm

DATA = Path(__file__).resolve().parents[1] / "data" / "bench"


@pytest.fixture
def data() -> Path:
    return DATA


@pytest.fixture(scope="module")
def smollm2_server() -> Iterator[ServedModel]:
    """`python -m quest serve-llm` with the built-in SmolLM2-135M: a real OpenAI-compatible
    server. The test may stop it (to show that a second run asks it nothing)."""
    served = start_serve_llm("smollm2")
    yield served
    served.stop()
