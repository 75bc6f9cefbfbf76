from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.synthesis.models import SynthesisBatch, SynthesisCandidate
from tests.rubrics.conftest import small_tree

QUESTION = "Which city is the capital of Australia?"


@pytest.fixture(scope="session")
def geo_corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pages the kg synthesizer's facts come from: every GeoNames country, its cities of a
    million people or more and countryinfo's country pages (about 1,070 documents, a second to
    build), with a BM25 index for the baseline agent."""
    from quest.corpus import corpus_write, load_countryinfo, load_geonames
    from quest.search.indexing import bm25_build

    folder = tmp_path_factory.mktemp("geo_corpus")
    corpus_write(folder, [*load_geonames(min_city_population=1_000_000), *load_countryinfo()])
    bm25_build(folder)
    return folder


@pytest.fixture(autouse=True)
def _no_corpus(settings: Any, tmp_path: Path) -> None:
    """Each test starts without a corpus, whatever `make run` left in the data directory."""
    settings.CORPUS_DIR = tmp_path / "corpus"


@pytest.fixture
def geo_corpus(settings: Any, geo_corpus_dir: Path) -> Path:
    settings.CORPUS_DIR = geo_corpus_dir
    return geo_corpus_dir


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin", username="ada")


@pytest.fixture
def run_batch(geo_corpus: Path) -> Callable[..., SynthesisBatch]:
    """Queue a batch as `user` and run it here with the real engine, as the worker does."""
    from apps.synthesis.runner import batch_run
    from apps.synthesis.services import batch_create

    def run(user: User, **spec: Any) -> SynthesisBatch:
        spec = {"count": 3, "seed": 7, "baseline": False, **spec}
        return batch_run(batch_id=batch_create(user=user, spec=spec).pk)

    return run


def task_record(question: str = QUESTION, **fields: Any) -> dict[str, Any]:
    """A valid record in the import format (a small tree with deterministic checks)."""
    return {"question": question, "type": "objective", "category": "Misc.",
            "subcategory": "General Info.", "rubric": small_tree(question),
            "solution": {"capital": {"description": "Canberra"}},
            "reference_answer": "Canberra is the capital of Australia.", **fields}  # fmt: skip


@pytest.fixture
def rejected_candidate(admin: User) -> SynthesisCandidate:
    """A funnel-rejected candidate with a valid record, in a finished batch of `admin`'s."""
    from tests.factories import SynthesisCandidateFactory

    candidate: SynthesisCandidate = SynthesisCandidateFactory(
        batch__created_by=admin, record=task_record()
    )
    return candidate
