from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import redis
from django.conf import settings
from django.test import Client

from apps.accounts.models import User
from apps.accounts.services import token_create
from tests.factories import UserFactory


@pytest.fixture
def redis_client() -> Iterator[redis.Redis]:
    """The real Redis of the test run, with questweb's keys cleared before and after."""
    client = redis.Redis.from_url(settings.REDIS_URL)

    def clear() -> None:
        for key in client.scan_iter("questweb:*"):
            client.delete(key)

    clear()
    yield client
    clear()
    client.close()


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    def make(*roles: str, **fields: object) -> User:
        user: User = UserFactory(roles=list(roles), **fields)
        return user

    return make


@pytest.fixture
def bearer(db: None) -> Callable[[User], dict[str, str]]:
    def headers(user: User) -> dict[str, str]:
        issued = token_create(user=user, name="test")
        return {"Authorization": f"Bearer {issued.secret}"}

    return headers


@pytest.fixture
def csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)
