"""OpenAI-compatible chat completions over HTTP, over a list of endpoints with failover.

One `HTTPChat` serves one session. It keeps using the endpoint that last answered (so a
conversation stays on one server and its prefix cache), retries an endpoint with capped
exponential backoff, and moves to the next one after `failover_after` consecutive failed
attempts. When every endpoint has failed, the LLMError names each one and why.

With `stream=True` it asks for a server-sent-event stream (falling back to a plain request on a
server that refuses one), and with a `watch` (quest.llm.streaming) a caller hears the tokens
generated so far and can give a request up within a fraction of a second.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx

from quest.llm.streaming import Progress, Streamed, StreamError, Watch, read_stream, watched
from quest.llm.types import Completion, LLMError, Message

logger = logging.getLogger(__name__)

# Request timeout and throttling: worth asking the same server again. Any other 4xx says the
# request itself is wrong for that server, so the client moves on at once.
RETRYABLE_4XX = frozenset({408, 429})
# Rough size of a token in English text, for endpoints that report no `usage`.
CHARS_PER_TOKEN = 4
# Chat templates add a few tokens of framing around each message.
TOKENS_PER_MESSAGE = 4
MAX_REASON_CHARS = 300


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    # Shown in logs and errors; the base URL when not given. Never the key.
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.base_url)

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        return f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, completion: Completion) -> Usage:
        return Usage(
            self.prompt_tokens + completion.prompt_tokens,
            self.completion_tokens + completion.completion_tokens,
            self.requests + 1,
        )


class _AttemptFailed(Exception):
    def __init__(self, reason: str, *, retry: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


class _StreamRefused(Exception):
    """The server answered a stream request with 400: it may not stream at all."""


class HTTPChat:
    """An LLMClient over OpenAI-compatible `/v1/chat/completions` endpoints.

    `usage` sums the tokens of every answered request (from the reply's `usage`, estimated from
    the text when a server sends none). Safe to share between the threads of one session.
    """

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        *,
        failover_after: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        connect_timeout: float = 5.0,
        read_timeout: float = 120.0,
        max_tokens: int | None = None,
        temperature: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        stream: bool = False,
        watch: Watch | None = None,
    ) -> None:
        if not endpoints:
            raise ValueError("HTTPChat needs at least one endpoint")
        if failover_after < 1:
            raise ValueError("failover_after must be at least 1")
        self.endpoints = tuple(endpoints)
        self.failover_after = failover_after
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._sleep = sleep
        self.stream = stream
        self.watch = watch
        # Endpoints that refused a stream and then answered plainly: asked plainly from then on.
        self._plain: set[str] = set()
        self._timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._http = httpx.Client(timeout=self._timeout)
        self._lock = threading.Lock()
        self._current = 0
        self._usage = Usage()

    @property
    def endpoint(self) -> Endpoint:
        """The endpoint the next request goes to first: the one that last answered."""
        with self._lock:
            return self.endpoints[self._current]

    @property
    def name(self) -> str:
        return self.endpoint.model

    @property
    def usage(self) -> Usage:
        with self._lock:
            return self._usage

    def chat(self, messages: Sequence[Message]) -> str:
        return self.complete(messages).text

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        temperature: float | None = None,
    ) -> Completion:
        with self._lock:
            first = self._current
        failures: list[str] = []
        for offset in range(len(self.endpoints)):
            index = (first + offset) % len(self.endpoints)
            endpoint = self.endpoints[index]
            body = self._body(endpoint, messages, max_tokens, stop, temperature)
            try:
                completion = self._ask(endpoint, body, messages)
            except _AttemptFailed as exc:
                failures.append(f"{endpoint.name}: {exc.reason}")
                logger.warning("LLM endpoint %s failed: %s", endpoint.name, exc.reason)
                continue
            with self._lock:
                self._current = index
                self._usage = self._usage.add(completion)
            return completion
        raise LLMError(f"no LLM endpoint answered ({'; '.join(failures)})")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> HTTPChat:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _body(
        self,
        endpoint: Endpoint,
        messages: Sequence[Message],
        max_tokens: int | None,
        stop: Sequence[str] | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": endpoint.model, "messages": [dict(m) for m in messages]}
        max_tokens = self.max_tokens if max_tokens is None else max_tokens
        temperature = self.temperature if temperature is None else temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if stop:
            body["stop"] = list(stop)
        if temperature is not None:
            body["temperature"] = temperature
        return body

    def _ask(
        self, endpoint: Endpoint, body: dict[str, Any], messages: Sequence[Message]
    ) -> Completion:
        """Up to `failover_after` attempts on one endpoint, with backoff between them."""
        reasons: list[str] = []
        for attempt in range(self.failover_after):
            if attempt:
                self._sleep(min(self.max_backoff, self.backoff * 2 ** (attempt - 1)))
            try:
                return self._post(endpoint, body, messages)
            except _AttemptFailed as exc:
                reasons.append(exc.reason)
                if not exc.retry:
                    break
        distinct = list(dict.fromkeys(reasons))
        attempts = f" ({len(reasons)} attempts)" if len(reasons) > 1 else ""
        raise _AttemptFailed(" / ".join(distinct) + attempts, retry=False)

    def _post(
        self, endpoint: Endpoint, body: dict[str, Any], messages: Sequence[Message]
    ) -> Completion:
        if self.watch is None:
            return self._send(endpoint, body, messages, Progress())
        return watched(self.watch, lambda progress: self._send(endpoint, body, messages, progress))

    def _send(
        self,
        endpoint: Endpoint,
        body: dict[str, Any],
        messages: Sequence[Message],
        progress: Progress,
    ) -> Completion:
        with self._lock:
            plain = not self.stream or endpoint.url in self._plain
        if plain:
            return self._plain_post(endpoint, body, messages)
        try:
            return self._stream_post(endpoint, body, messages, progress)
        except _StreamRefused:
            completion = self._plain_post(endpoint, body, messages)
            with self._lock:
                self._plain.add(endpoint.url)
            return completion

    def _stream_post(
        self,
        endpoint: Endpoint,
        body: dict[str, Any],
        messages: Sequence[Message],
        progress: Progress,
    ) -> Completion:
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        with (
            self._http_errors(),
            self._http.stream("POST", endpoint.url, json=body, headers=_headers(endpoint)) as reply,
        ):
            if reply.status_code == 400:
                raise _StreamRefused
            if reply.status_code != 200:
                reply.read()
                _refuse(reply)
            try:
                streamed = read_stream(reply.iter_lines(), progress)
            except (StreamError, AttributeError, TypeError) as exc:
                raise _AttemptFailed(f"malformed stream: {_clip(str(exc))}", retry=True) from None
        if streamed is None:
            raise LLMError("the stream was given up")
        return _streamed_completion(endpoint, streamed, messages)

    def _plain_post(
        self, endpoint: Endpoint, body: dict[str, Any], messages: Sequence[Message]
    ) -> Completion:
        with self._http_errors():
            response = self._http.post(endpoint.url, json=body, headers=_headers(endpoint))
        if response.status_code != 200:
            _refuse(response)
        return _completion(endpoint, response, messages)

    @contextmanager
    def _http_errors(self) -> Iterator[None]:
        """httpx's failures as attempts that failed, with a reason a person can read."""
        try:
            yield
        except httpx.ConnectTimeout:
            raise _AttemptFailed(
                f"connect timeout after {self._timeout.connect}s", retry=True
            ) from None
        except httpx.TimeoutException:
            raise _AttemptFailed(
                f"no reply within the {self._timeout.read}s read timeout", retry=True
            ) from None
        except httpx.ConnectError as exc:
            raise _AttemptFailed(f"cannot connect: {exc}", retry=True) from None
        except httpx.HTTPError as exc:
            raise _AttemptFailed(f"{type(exc).__name__}: {exc}", retry=True) from None


def _headers(endpoint: Endpoint) -> dict[str, str]:
    return {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}


def _refuse(response: httpx.Response) -> None:
    status = response.status_code
    retry = status >= 500 or status in RETRYABLE_4XX
    raise _AttemptFailed(f"HTTP {status}: {_error_message(response)}", retry=retry)


def _streamed_completion(
    endpoint: Endpoint, streamed: Streamed, messages: Sequence[Message]
) -> Completion:
    usage = streamed.usage
    return Completion(
        text=streamed.text,
        prompt_tokens=_count(usage.get("prompt_tokens"), _estimate_prompt_tokens(messages)),
        completion_tokens=_count(usage.get("completion_tokens"), estimate_tokens(streamed.text)),
        model=streamed.model or endpoint.model,
        finish_reason=streamed.finish_reason,
        backend=endpoint.base_url,
    )


def _completion(
    endpoint: Endpoint, response: httpx.Response, messages: Sequence[Message]
) -> Completion:
    try:
        data = response.json()
        choice = data["choices"][0]
        text = choice["message"]["content"] or ""
        if not isinstance(text, str):
            raise TypeError("message content is not a string")
    except ValueError as exc:
        raise _AttemptFailed(f"malformed JSON reply: {_clip(str(exc))}", retry=True) from None
    except (KeyError, IndexError, TypeError) as exc:
        raise _AttemptFailed(
            f"malformed reply, no choices[0].message.content ({type(exc).__name__}: {exc}): "
            f"{_clip(response.text)}",
            retry=True,
        ) from None
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    model = data.get("model")
    return Completion(
        text=text,
        prompt_tokens=_count(usage.get("prompt_tokens"), _estimate_prompt_tokens(messages)),
        completion_tokens=_count(usage.get("completion_tokens"), estimate_tokens(text)),
        model=model if isinstance(model, str) and model else endpoint.model,
        finish_reason=str(choice.get("finish_reason") or "stop"),
        backend=endpoint.base_url,
    )


def _count(reported: object, estimate: int) -> int:
    return reported if isinstance(reported, int) and reported >= 0 else estimate


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _estimate_prompt_tokens(messages: Sequence[Message]) -> int:
    return sum(estimate_tokens(m.get("content", "")) + TOKENS_PER_MESSAGE for m in messages)


def _error_message(response: httpx.Response) -> str:
    """The OpenAI-style `error.message` when there is one, else the start of the body."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return _clip(error["message"])
    if isinstance(error, str):
        return _clip(error)
    return _clip(response.text) or response.reason_phrase


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"
