"""Which LLMs a session may use, and the client for one.

Endpoints come from the LLMEndpoint table (admins edit them; read at each session start, so
no restart is needed) and from QUESTWEB_LLM_ENDPOINTS. `smollm2` is always offered: SmolLM2-135M
running inside the worker on CPU, weak but real. `vllm:<model>` runs in-process on a gpu worker.
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings

from apps.live.selectors import llm_endpoints

SMOLLM2 = "smollm2"
VLLM_PREFIX = "vllm:"


def _endpoints() -> list[Any]:
    from quest.llm.config import parse_endpoints
    from quest.llm.http import Endpoint

    table = [
        Endpoint(base_url=row.base_url, model=row.model, api_key=row.api_key or None, name=row.name)
        for row in llm_endpoints()
    ]
    configured = settings.LLM_ENDPOINTS
    return table + (list(parse_endpoints(configured)) if configured else [])


def model_choices() -> list[str]:
    models = [SMOLLM2]
    for endpoint in _endpoints():
        if endpoint.model not in models:
            models.append(endpoint.model)
    models.extend(model for model in settings.LLM_VLLM_MODELS if model not in models)
    return models


def needs_gpu(model: str) -> bool:
    return model.startswith(VLLM_PREFIX)


def client_for(model: str, *, watch: Any = None) -> Any:
    """A fresh client (sticky to one endpoint for the session, failing over to the others).
    With a `watch` (quest.llm.streaming.Watch) the watch hears the tokens as they come and can
    give a generation up: an HTTP endpoint's replies are streamed, SmolLM2 reports each token;
    a shared vLLM engine answers whole turns (its tokens are counted when each turn ends)."""
    if model == SMOLLM2:
        from quest.llm.local import TransformersChat

        return TransformersChat(SMOLLM2, watch=watch)
    if needs_gpu(model):
        return _vllm(model.removeprefix(VLLM_PREFIX))
    from quest.llm.http import HTTPChat

    endpoints = [endpoint for endpoint in _endpoints() if endpoint.model == model]
    return HTTPChat(endpoints, stream=watch is not None, watch=watch)


_engines: dict[str, Any] = {}
_engines_lock = threading.Lock()


def _vllm(name: str) -> Any:
    """One vLLM engine per model per gpu worker: loading one takes minutes and most of the GPU."""
    from quest.llm.vllm_backend import VLLMChat

    with _engines_lock:
        if name not in _engines:
            _engines[name] = VLLMChat(name)
        return _engines[name]
