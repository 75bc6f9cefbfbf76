from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

WIKI = "https://en.wikipedia.org/wiki/"
GEO = "https://www.geonames.org/"
DOCS = [
    (f"{WIKI}Canberra", "Canberra", "Canberra is the capital city of Australia. It lies on a lake"),
    (f"{GEO}2172517", "Canberra (GeoNames)", "Canberra is the capital of Australia."),
    (f"{WIKI}Sydney", "Sydney", "Sydney is the largest city in Australia."),
    (f"{WIKI}Paris", "Paris", "Paris is the capital of France."),
]  # fmt: skip


@pytest.fixture
def corpus(settings: Any, tmp_path: Path) -> Path:
    """A real four-document corpus with a BM25 index, used by the web app and its workers."""
    from quest.corpus import Document, corpus_write
    from quest.search.indexing import bm25_build

    folder = tmp_path / "corpus"
    documents = [
        Document(
            url=u, title=t, text=x, source="wikipedia", licence="test", topic="", fetched_at="2026"
        )
        for u, t, x in DOCS
    ]
    corpus_write(folder, documents)
    bm25_build(folder)
    settings.CORPUS_DIR = folder
    return folder


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
