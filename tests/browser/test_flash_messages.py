"""A flash message in a real browser: "Batch 1 queued." leaves once the batch is no longer
queued."""

from __future__ import annotations

from typing import Any

import pytest

from apps.accounts.models import User
from apps.synthesis.models import SynthesisBatch
from tests.browser.test_task_pages import _login
from tests.synthesis.conftest import admin

__all__ = ["admin"]

pytestmark = pytest.mark.django_db(transaction=True)
MESSAGE = "ul.messages li.msg-success"


def _queue_a_batch(page: Any, base: str, admin: User) -> SynthesisBatch:
    _login(page, base, admin, "/synthesis/")
    page.evaluate(
        "document.querySelector('[data-testid=batch-form]').closest('details').open = true"
    )
    page.fill("[data-testid=batch-form] input[name=count]", "2")
    page.click("[data-testid=batch-form] button[type=submit]")
    page.wait_for_selector(f"{MESSAGE}:has-text('queued.')")
    return SynthesisBatch.objects.get()


def test_a_queued_message_leaves_when_the_batch_starts_running(
    live_server: Any, page: Any, admin: User
) -> None:
    batch = _queue_a_batch(page, live_server.url, admin)
    assert page.locator(MESSAGE).inner_text() == f"Batch {batch.pk} queued."

    SynthesisBatch.objects.filter(pk=batch.pk).update(status="running", total=2)

    page.wait_for_selector("[data-testid=batch-status]:has-text('Running')")
    page.wait_for_selector(MESSAGE, state="detached")
