"""An llm session whose in-process model is not loaded in the worker yet says it is loading it,
rather than "waiting for the model" for as long as loading takes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from apps.live.models import Policy
from tests.live.test_llm_session import _llm_servers

pytestmark = pytest.mark.django_db


def test_a_model_not_loaded_yet_is_announced_loading_then_loaded_once(
    make_user: Callable[..., Any],
    make_session: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from apps.live import progress
    from apps.live.progress import TurnWatch
    from apps.live.runner import _load
    from quest.llm.local import TransformersChat

    servers = _llm_servers()
    folder = servers.build_tiny_model(tmp_path / servers.TINY)
    session = make_session(make_user("viewer"), policy=Policy.LLM, model=str(folder))
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(progress, "progress_send", lambda **kw: sent.append(kw["payload"]))
    watch = TurnWatch(session, pace_s=0.0, announce=True)
    client = TransformersChat(folder)
    assert not client.loaded
    _load(client, str(folder), watch)
    assert [p["phase"] for p in sent] == ["loading", "loaded"]
    assert sent[0]["model"] == str(folder) and client.loaded
    sent.clear()
    _load(TransformersChat(folder), str(folder), watch)  # the worker holds it: nothing to say
    assert sent == []
