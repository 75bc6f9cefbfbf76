"""The llm policy through the web app: an admin adds an OpenAI-compatible endpoint at run time
(no restart), and the next session uses it: a real `python -m quest serve-llm` process serving a
tiny random-weights model (real generation, nonsense text; quality is not under test here). And a
generation that never ends: viewers see its tokens, and Stop ends the session all the same."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from apps.live.models import Event, LLMEndpoint, Session, SessionStatus

LLM_TESTS = Path(__file__).resolve().parents[1] / "quest" / "llm" / "llm_servers.py"


def _llm_servers() -> Any:
    spec = importlib.util.spec_from_file_location("llm_servers", LLM_TESTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["llm_servers"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def build_roomy_tiny_model(folder: Path, window: int = 4096) -> Path:
    """The tiny model reading `window` tokens rather than 512: the QUEST system prompt and a
    question alone are about 550 tokens, so a 512-token model's first turn cannot fit (the
    client ends the run with ContextFull, quest.llm.window). Its rotary positions have no
    learned table, so only the config changes."""
    built = Path(_llm_servers().build_tiny_model(folder))
    config = json.loads((built / "config.json").read_text())
    (built / "config.json").write_text(json.dumps({**config, "max_position_embeddings": window}))
    return built


@pytest.fixture(scope="module")
def tiny_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    servers = _llm_servers()
    model = build_roomy_tiny_model(tmp_path_factory.mktemp("models") / servers.TINY)
    served = servers.start_serve_llm(model)
    yield served.url, servers.TINY
    served.stop()


def _post(client: Client, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    return client.post(path, json.dumps(body), content_type="application/json", headers=headers)


@pytest.mark.integration
@pytest.mark.django_db
def test_an_endpoint_added_by_an_admin_serves_the_next_llm_session(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    client: Client,
    tiny_endpoint: tuple[str, str],
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from apps.live import runner

    monkeypatch.setattr("apps.live.services._enqueue", lambda session: None)
    url, model = tiny_endpoint
    admin = bearer(make_user("admin"))
    assert model not in client.get("/api/live/models", headers=admin).json()["models"]
    created = _post(client, "/api/live/endpoints",
                    {"name": "local", "base_url": url, "model": model, "api_key": "sk-secret"},
                    admin)  # fmt: skip
    assert created.status_code == 201, created.content
    assert created.json()["has_key"] is True
    assert "sk-secret" not in created.content.decode()
    assert model in client.get("/api/live/models", headers=admin).json()["models"]

    body = {"question": "What is the capital of Australia?", "policy": "llm", "model": model,
            "max_turns": 3, "max_turn_tokens": 24}  # fmt: skip
    response = _post(client, "/api/live/sessions", body, admin)
    assert response.status_code == 201, response.content
    session = Session.objects.get(public_id=response.json()["id"])
    runner.session_run(session_id=session.pk)

    session.refresh_from_db()
    events = list(Event.objects.filter(session=session).values_list("type", "payload"))
    assert events[0][0] == "started"
    assert events[-1][0] == "finished"
    usage = events[-1][1]
    assert usage["completion_tokens"] > 0  # tokens the served model really generated
    assert usage["prompt_tokens"] > 0
    assert session.status in (SessionStatus.FINISHED, SessionStatus.FAILED)
    assert session.result["usage"]["completion_tokens"] == usage["completion_tokens"]


@pytest.mark.django_db
def test_endpoint_edits_are_admin_only_validated_and_keep_the_key(
    make_user: Callable[..., Any], bearer: Callable[..., dict[str, str]], client: Client
) -> None:
    admin, viewer = bearer(make_user("admin")), bearer(make_user("viewer"))
    entry = {"name": "a", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": "k1"}
    assert _post(client, "/api/live/endpoints", entry, viewer).status_code == 403
    assert client.get("/api/live/endpoints", headers=viewer).status_code == 403
    created = _post(client, "/api/live/endpoints", entry, admin)
    assert created.status_code == 201
    assert _post(client, "/api/live/endpoints", entry, admin).status_code == 409
    bad = _post(client, "/api/live/endpoints", {**entry, "name": "b", "base_url": "ftp://x"}, admin)
    assert bad.status_code == 422
    assert "ftp://x" in bad.json()["detail"]
    endpoint_id = created.json()["id"]
    edited = client.put(f"/api/live/endpoints/{endpoint_id}",
                        json.dumps({**entry, "api_key": "", "enabled": False}),
                        content_type="application/json", headers=admin)  # fmt: skip
    assert edited.status_code == 200
    assert edited.json()["enabled"] is False
    assert LLMEndpoint.objects.get().api_key == "k1"
    assert client.delete(f"/api/live/endpoints/{endpoint_id}", headers=admin).status_code == 204
    assert client.delete(f"/api/live/endpoints/{endpoint_id}", headers=admin).status_code == 404


async def _next_message(socket: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 120))
        if wanted(message):
            return message


def _start_llm_session(client: Client, headers: dict[str, str], url: str) -> str:
    LLMEndpoint.objects.create(name="slow", base_url=url, model="slow-model")
    body = {"question": "What is the capital of Australia?", "policy": "llm", "model": "slow-model"}
    response = _post(client, "/api/live/sessions", body, headers)
    assert response.status_code == 201, response.content
    return str(response.json()["id"])


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
async def test_viewers_see_a_generation_stream_and_stop_ends_it_in_the_middle(
    make_user: Callable[..., Any],
    bearer: Callable[..., dict[str, str]],
    corpus: Path,
    start_worker: Callable[..., Any],
    ws_connect: Callable[..., Any],
) -> None:
    """A real worker runs the session against a server whose reply never ends."""
    servers = _llm_servers()
    admin = await sync_to_async(make_user)("admin")
    headers = await sync_to_async(bearer)(admin)
    with servers.StreamingEndpoint(chunks=None, interval=0.05) as server:
        public_id = await sync_to_async(_start_llm_session)(Client(), headers, server.url)
        socket = await ws_connect(admin, f"/ws/live/{public_id}/")
        await sync_to_async(start_worker)("cpu", QUESTWEB_CORPUS_DIR=str(corpus))
        progress = await _next_message(
            socket, lambda m: m["type"] == "progress" and m["payload"]["tokens"] >= 5
        )
        assert progress["payload"]["phase"] == "generating"
        assert progress["payload"]["turn"] == 1
        assert "seq" not in progress, "progress is not a stored event"
        stop = await sync_to_async(Client().post)(
            f"/api/live/sessions/{public_id}/stop", headers=headers
        )
        assert stop.status_code == 200
        finished = await _next_message(socket, lambda m: m["type"] == "finished")
        await socket.close()
        assert await sync_to_async(server.hung_up.wait)(30)

    assert finished["payload"]["status"] == "stopped"
    session = await sync_to_async(Session.objects.get)(public_id=public_id)
    assert session.status == SessionStatus.FINISHED
    assert session.answer.startswith("_Partial report: the run was stopped")
    types = await sync_to_async(list)(
        Event.objects.filter(session=session).values_list("type", flat=True)
    )
    assert "error" not in types
    assert "progress" not in types
