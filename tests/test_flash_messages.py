"""Flash messages ("Batch 1 queued.") are shown once: by the page that follows the action, and
never again, neither by a reload nor by the browser's back button or htmx's history."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from apps.accounts.models import User
from apps.synthesis.models import SynthesisBatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    return make_user("admin")


def _queue_a_batch(client: Client, admin: User) -> str:
    client.force_login(admin)
    created = client.post("/synthesis/", {"generator": "kg", "count": "2", "seed": "1"})
    assert created.status_code == 302
    return str(created["Location"])


def test_a_flash_message_shows_on_the_next_page_and_not_on_a_second_load(
    client: Client, admin: User
) -> None:
    location = _queue_a_batch(client, admin)
    batch = SynthesisBatch.objects.get()

    first = client.get(location).content.decode()
    second = client.get(location).content.decode()

    assert f"Batch {batch.pk} queued." in first
    assert f"Batch {batch.pk} queued." not in second


def test_a_page_that_showed_a_flash_message_is_not_kept_by_the_browser(
    client: Client, admin: User
) -> None:
    location = _queue_a_batch(client, admin)

    shown = client.get(location)
    again = client.get(location)

    assert "no-store" in shown["Cache-Control"], "back/forward must fetch it again"
    assert "no-store" not in again.get("Cache-Control", "")
