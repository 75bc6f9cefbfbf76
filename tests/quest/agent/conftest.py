from __future__ import annotations

from pathlib import Path

import pytest
from agent_helpers import build_corpus

from quest.tools import Toolbox
from quest.tools.offline import offline_toolbox


@pytest.fixture(scope="session")
def agent_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five real documents with a BM25 index (no dense index)."""
    return build_corpus(tmp_path_factory.mktemp("agent_corpus"))


@pytest.fixture
def toolbox(agent_corpus: Path) -> Toolbox:
    return offline_toolbox(agent_corpus)
