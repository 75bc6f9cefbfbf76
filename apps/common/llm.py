"""Which LLMs the apps may use, and the client for one.

Endpoints come from QUESTWEB_LLM_ENDPOINTS and from the tables that apps register with
`endpoint_source_add` (live's LLMEndpoint rows, which admins edit: read at each call, so no
restart is needed). This module sits below every app that asks for a model (rubrics' judge,
audit, live, synthesis, training): the table's app hands its rows up instead of being imported.
`smollm2` is always offered: SmolLM2-135M running inside the worker on CPU, weak but real.
`vllm:<model>` runs in-process on a gpu worker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings

from quest.llm.config import parse_endpoints
from quest.llm.http import Endpoint, HTTPChat
from quest.llm.local import TransformersChat
from quest.llm.vllm_backend import VLLMChat

SMOLLM2 = "smollm2"
VLLM_PREFIX = "vllm:"

# name -> a callable that returns rows with base_url, model, api_key and name, in the order a
# client tries them.
_sources: dict[str, Callable[[], Iterable[Any]]] = {}


def endpoint_source_add(name: str, source: Callable[[], Iterable[Any]]) -> None:
    """Offer the endpoints that `source` returns (called at each read) under `name`."""
    _sources[name] = source


def _endpoints() -> list[Endpoint]:
    table = [
        Endpoint(base_url=row.base_url, model=row.model, api_key=row.api_key or None, name=row.name)
        for source in _sources.values()
        for row in source()
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
        return TransformersChat(SMOLLM2, watch=watch)
    if needs_gpu(model):
        return _vllm(model.removeprefix(VLLM_PREFIX))
    endpoints = [endpoint for endpoint in _endpoints() if endpoint.model == model]
    return HTTPChat(endpoints, stream=watch is not None, watch=watch)


_engines: dict[str, Any] = {}
_engines_lock = threading.Lock()


def _vllm(name: str) -> Any:
    """One vLLM engine per model per gpu worker: loading one takes minutes and most of the GPU."""
    with _engines_lock:
        if name not in _engines:
            _engines[name] = VLLMChat(name)
        return _engines[name]
