from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _own_corpus(settings: Any, tmp_path: Path) -> None:
    """Each test starts without a corpus, whatever `make run` left in the data directory."""
    settings.CORPUS_DIR = tmp_path / "corpus"


@pytest.fixture
def make_session(db: None) -> Callable[..., Any]:
    from apps.live.models import Session

    def make(owner: Any, **fields: Any) -> Session:
        fields.setdefault("question", "What is the capital of Australia?")
        session: Session = Session.objects.create(owner=owner, **fields)
        return session

    return make


def session_cookie(user: Any) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


@pytest.fixture
def ws_connect(asgi_server: str) -> Callable[..., Any]:
    """Open a real websocket to the app under uvicorn as `user` (a real session cookie)."""
    from asgiref.sync import sync_to_async
    from websockets.asyncio.client import connect as ws

    async def connect(user: Any, path: str) -> Any:
        headers = {"Origin": f"http://{asgi_server}"}
        if user is not None:
            headers["Cookie"] = await sync_to_async(session_cookie)(user)
        return await ws(f"ws://{asgi_server}{path}", additional_headers=headers, open_timeout=10)

    return connect


@pytest.fixture(autouse=True)
async def _close_thread_connections() -> Any:
    """asgiref runs `sync_to_async` calls in a worker thread that keeps its own database
    connection; closing it lets pytest-django drop the test database at the end."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    await sync_to_async(connections.close_all)()
