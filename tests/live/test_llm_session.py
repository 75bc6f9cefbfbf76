"""The llm policy through the web app: an admin adds an OpenAI-compatible endpoint at run time
(no restart), and the next session uses it: a real `python -m quest serve-llm` process serving a
tiny random-weights model (real generation, nonsense text; quality is not under test here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
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


@pytest.fixture(scope="module")
def tiny_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    servers = _llm_servers()
    model = servers.build_tiny_model(tmp_path_factory.mktemp("models") / servers.TINY)
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
