"""LLM backends from configuration strings (environment variables, command-line options).

Endpoint lists come in two spellings:

- JSON: `[{"url": "http://gpu1:8000", "model": "qwen", "api_key_env": "GPU1_KEY"}, ...]`, with
  optional `api_key` (the key itself), `api_key_env` (the variable holding it), `name` and
  `window` (the model's context window in tokens, a number);
- compact: `http://gpu1:8000|qwen|GPU1_KEY,http://gpu2:8000|qwen|window=8192`, one
  `url|model[|KEY_ENV][|window=N]` per comma-separated entry. The key is named by its environment
  variable, never written inline.

Without a `window`, the client asks the server's `/v1/models` for it (quest.llm.http).

Errors name the entry (its position and URL) and never echo an API key.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import httpx

from quest.llm.http import Endpoint, HTTPChat
from quest.llm.local import TransformersChat
from quest.llm.types import LLMClient
from quest.llm.vllm_backend import VLLMChat

JSON_KEYS = frozenset({"url", "model", "api_key", "api_key_env", "name", "window"})
WINDOW_PREFIX = "window="
BACKENDS = (
    "'http', 'transformers:<model directory or smollm2>', a model directory or 'vllm:<model>'"
)


def parse_endpoints(text: str, *, environ: Mapping[str, str] | None = None) -> list[Endpoint]:
    """Endpoints from either spelling; API keys named by variable are read from `environ`
    (the process environment by default)."""
    environ = os.environ if environ is None else environ
    text = text.strip()
    if not text:
        raise ValueError("no LLM endpoints given")
    if text.startswith("["):
        return _from_json(text, environ)
    return [_from_compact(n, entry, environ) for n, entry in enumerate(text.split(","), 1)]


def client_from_config(
    spec: str, *, endpoints: str = "", environ: Mapping[str, str] | None = None
) -> LLMClient:
    """The backend a spec names: `http` (over `endpoints`), `transformers:<model directory or
    smollm2>`, a model directory alone (a training run's checkpoint, its `config.json` beside
    the weights) or `vllm:<model>`. Local models load on first use; vLLM loads at once."""
    if spec.strip() and os.path.isfile(os.path.join(spec.strip(), "config.json")):
        return TransformersChat(spec.strip())
    kind, _, argument = spec.strip().partition(":")
    if kind == "http" and not argument:
        return HTTPChat(parse_endpoints(endpoints, environ=environ))
    if kind == "transformers" and argument:
        return TransformersChat(argument)
    if kind == "vllm" and argument:
        return VLLMChat(argument)
    raise ValueError(f"unknown LLM backend {spec!r}: use {BACKENDS}")


def client_from_option(spec: str) -> LLMClient:
    """The client a command-line option names: OpenAI-compatible endpoints written out
    (`URL|MODEL[|KEY_ENV]`, comma-separated, or JSON), or a backend spec as in
    `client_from_config`. ValueError (or ImportError) when it cannot be built."""
    if spec.strip().startswith(("http://", "https://", "[")):
        return HTTPChat(parse_endpoints(spec))
    return client_from_config(spec)


def _from_json(text: str, environ: Mapping[str, str]) -> list[Endpoint]:
    try:
        entries = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"LLM endpoints: invalid JSON: {exc}") from None
    if not isinstance(entries, list) or not entries:
        raise ValueError("LLM endpoints: expected a non-empty JSON list of objects")
    return [_from_object(n, entry, environ) for n, entry in enumerate(entries, 1)]


def _from_object(number: int, entry: Any, environ: Mapping[str, str]) -> Endpoint:
    if not isinstance(entry, dict):
        raise ValueError(f"LLM endpoint {number}: expected an object, got {type(entry).__name__}")
    where = f"LLM endpoint {number}"
    unknown = sorted(set(entry) - JSON_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; allowed: {sorted(JSON_KEYS)}")
    for name in JSON_KEYS & set(entry) - {"window"}:
        if not isinstance(entry[name], str):
            raise ValueError(f"{where}: {name!r} must be a string")
    url = _url(where, entry.get("url", ""))
    where = f"{where} ({url})"
    if entry.get("api_key") and entry.get("api_key_env"):
        raise ValueError(f"{where}: give either 'api_key' or 'api_key_env', not both")
    key = entry.get("api_key") or _key(where, entry.get("api_key_env", ""), environ)
    model, name = _model(where, entry.get("model", "")), entry.get("name", "")
    return Endpoint(url, model, key, name, _window(where, entry.get("window")))


def _from_compact(number: int, entry: str, environ: Mapping[str, str]) -> Endpoint:
    where = f"LLM endpoint {number} {entry.strip()!r}"
    parts = [part.strip() for part in entry.split("|")]
    window = parts.pop() if len(parts) > 2 and parts[-1].startswith(WINDOW_PREFIX) else None
    if len(parts) not in (2, 3):
        raise ValueError(
            f"{where}: expected url|model or url|model|KEY_ENV_VAR, then optionally "
            f"|{WINDOW_PREFIX}TOKENS"
        )
    url = _url(where, parts[0])
    key = _key(where, parts[2], environ) if len(parts) == 3 else None
    size = None if window is None else _window(where, window.removeprefix(WINDOW_PREFIX))
    return Endpoint(url, _model(where, parts[1]), key, window=size)


def _url(where: str, url: str) -> str:
    url = url.strip()
    if not url:
        raise ValueError(f"{where}: the url is missing")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(f"{where}: invalid url {url!r}: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{where}: the url must be http:// or https:// with a host, got {url!r}")
    return url


def _window(where: str, value: object) -> int | None:
    """A context window: a positive whole number of tokens (a string of digits in the compact
    spelling), or None when not given."""
    if value is None:
        return None
    number = int(value) if isinstance(value, str) and value.isdigit() else value
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"{where}: the window must be a positive number of tokens, got {value!r}")
    return number


def _model(where: str, model: str) -> str:
    if not model.strip():
        raise ValueError(f"{where}: the model is missing")
    return model.strip()


def _key(where: str, variable: str, environ: Mapping[str, str]) -> str | None:
    if not variable:
        return None
    key = environ.get(variable, "")
    if not key:
        raise ValueError(f"{where}: environment variable {variable} (its API key) is not set")
    return key
