from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

# Django is imported inside the fixtures: the engine's tests (tests/quest) run without Django.
if TYPE_CHECKING:
    import redis
    from django.test import Client

    from apps.accounts.models import User


@pytest.fixture
def redis_client() -> Iterator[redis.Redis]:
    """The real Redis of the test run, with questweb's keys cleared before and after."""
    import redis
    from django.conf import settings

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
    from tests.factories import UserFactory

    def make(*roles: str, **fields: object) -> User:
        user: User = UserFactory(roles=list(roles), **fields)
        return user

    return make


@pytest.fixture
def admin(make_user: Callable[..., User]) -> User:
    """An admin, "ada" (a module or folder that needs another defines its own)."""
    return make_user("admin", username="ada")


@pytest.fixture
def viewer(make_user: Callable[..., User]) -> User:
    return make_user("viewer", username="vic")


@pytest.fixture
def bearer(db: None) -> Callable[[User], dict[str, str]]:
    from apps.accounts.services import token_create

    def headers(user: User) -> dict[str, str]:
        issued = token_create(user=user, name="test")
        return {"Authorization": f"Bearer {issued.secret}"}

    return headers


@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    """The tasks the job framework sends (by name, with their arguments), held here instead of
    reaching the broker: a test that runs the job itself needs no worker to pick it up too."""
    from workers import app

    sent: list[tuple[str, list[Any]]] = []

    def send_task(name: str, args: Any = (), **options: Any) -> None:
        sent.append((name, list(args)))

    monkeypatch.setattr(app, "send_task", send_task)
    return sent


@pytest.fixture
def csrf_client() -> Client:
    from django.test import Client

    return Client(enforce_csrf_checks=True)


@pytest.fixture
def start_worker(request: pytest.FixtureRequest) -> Iterator[Callable[..., object]]:
    """Start a real Celery worker process on the given queues, against the test database."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from django.db import connection

    from workers import app as celery_app
    from workers.queues import Queue

    workers: list[subprocess.Popen[bytes]] = []
    # Messages an earlier test sent with no worker to take them (a job enqueued by a
    # transactional test) name rows that are gone: drop them before this test runs, not when
    # its worker starts, since a test may send its own work before starting the worker.
    with celery_app.connection_for_write() as conn:
        for queue in Queue:
            conn.default_channel.queue_purge(queue.value)

    def start(queues: str, **extra_env: str) -> subprocess.Popen[bytes]:
        db = connection.settings_dict
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "questweb.settings", **extra_env}
        if db["ENGINE"].endswith("postgresql"):
            env["DATABASE_URL"] = (
                f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
            )
        argv = [sys.executable, "-m", "celery", "-A", "workers", "worker", "-P", "solo",
                "-Q", queues, "-n", f"test-{os.getpid()}-{len(workers)}@%h",
                "--loglevel", "WARNING"]  # fmt: skip
        worker = subprocess.Popen(argv, cwd=Path(__file__).resolve().parent.parent, env=env)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.terminate()
        worker.wait(30)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def asgi_server(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """The real ASGI app (HTTP and websockets) under uvicorn, on the test database and Redis."""
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    from django.conf import settings
    from django.db import connection

    with django_db_blocker.unblock():
        db = connection.settings_dict
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "questweb.settings",
        "REDIS_URL": settings.REDIS_URL,
    }
    if db["ENGINE"].endswith("postgresql"):
        env["DATABASE_URL"] = f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    argv = [sys.executable, "-m", "uvicorn", "questweb.asgi:application",
            "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]  # fmt: skip
    server = subprocess.Popen(argv, cwd=Path(__file__).resolve().parent.parent, env=env)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("uvicorn did not start") from None
            time.sleep(0.1)
    yield f"127.0.0.1:{port}"
    server.terminate()
    server.wait(30)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests last: Playwright's sync API keeps an event loop running in the main thread
    for the rest of the session, and async tests cannot start their own after that."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))
