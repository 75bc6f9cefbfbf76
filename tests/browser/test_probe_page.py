"""An annotator probes a task's tree from its page on a phone-sized screen; a real worker on the
cpu queue runs the probe and the panel, polling, shows the verdict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.accounts.models import User
from apps.rubrics.services import task_prepare, tasks_write
from tests.browser.test_task_pages import _login
from tests.corpus.conftest import DOCS
from tests.rubrics.test_probes import QUESTION, REFERENCE, sound_tree

pytestmark = pytest.mark.django_db(transaction=True)
NO_OVERFLOW = "document.documentElement.scrollWidth <= window.innerWidth"


def _corpus(settings: Any, tmp_path: Path) -> Path:
    from quest.corpus import Document, corpus_write

    folder = tmp_path / "corpus"
    documents = [
        Document(url=u, title=t, text=x, source=s, licence=lic, topic="", fetched_at="2026")
        for u, t, x, s, lic in DOCS
    ]
    corpus_write(folder, documents)
    settings.CORPUS_DIR = folder
    return folder


@pytest.mark.integration
def test_an_annotator_probes_a_tree_and_sees_it_is_sound_at_390_px(
    live_server: Any,
    page: Any,
    make_user: Callable[..., User],
    settings: Any,
    tmp_path: Path,
    start_worker: Callable[..., Any],
) -> None:
    folder = _corpus(settings, tmp_path)
    record = {"question": QUESTION, "rubric": sound_tree(), "reference_answer": REFERENCE}
    [task] = tasks_write(user=None, prepared=[task_prepare(record)], note="test")
    worker = start_worker("cpu", QUESTWEB_CORPUS_DIR=str(folder), QUESTWEB_JUDGE_MODEL="")
    page.set_viewport_size({"width": 390, "height": 844})
    _login(page, live_server.url, make_user("annotator"), f"/tasks/{task.pk}/")
    badge = page.locator("#probe-panel [data-testid=probe-badge]")
    assert badge.inner_text() == "not probed"
    assert page.evaluate(NO_OVERFLOW)

    page.click("[data-testid=probe-button]")
    page.wait_for_selector(
        "#probe-panel [data-testid=probe-badge][data-state=sound]", timeout=90_000
    )
    assert worker.poll() is None
    assert page.locator("tr[data-probe]").count() == 14
    page.click(".probe-list > summary")  # a sound tree's answers are folded away
    page.click("tr[data-probe=negated] summary")
    assert "It is not true that" in page.locator("tr[data-probe=negated] pre").inner_text()
    assert page.evaluate(NO_OVERFLOW), "the probe table scrolls inside its box, not the page"
