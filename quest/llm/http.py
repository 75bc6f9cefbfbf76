"""OpenAI-compatible chat completions over HTTP, over a list of endpoints with failover.

One `HTTPChat` serves one session. It keeps using the endpoint that last answered (so a
conversation stays on one server and its prefix cache) and moves to the next one once
`failover_after` attempts at one have failed. When every endpoint has failed, the LLMError names
each one and why.

Requests, retries and server-sent events are the `openai` SDK's: it retries a connection
failure, a timeout, 408, 409, 429 and 5xx with exponential backoff (0.5 s doubling up to 8 s,
with jitter; a Retry-After up to two minutes wins). Failover, token counts and errors are ours.

Each request asks for at most what the endpoint's context window leaves after the prompt
(quest.llm.window). The window is the endpoint's `window` setting, else what its `GET /v1/models`
reports for the model (`max_model_len`: vLLM and `quest serve-llm` report it), asked once. The
prompt's size is estimated on the safe side, a token every PROMPT_CHARS_PER_TOKEN characters plus
the framing of each message and of the reply: English runs nearer four characters a token under
BPE tokenizers, code, URLs and JSON nearer three. A server that refuses the length anyway and
states its limit (vLLM and serve-llm do) is asked once more, within that limit, which is then
remembered.

With `stream=True` it asks for a server-sent-event stream (falling back to a plain request on a
server that refuses one), and with a `watch` (quest.llm.streaming) a caller hears the tokens
generated so far and can give a request up within a fraction of a second.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from quest.llm.streaming import Progress, Watch, watched
from quest.llm.types import ChatBackend, Completion, LLMError, Message, Settings
from quest.llm.window import ContextFull, fit_reply, stated_limit

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionChunk
    from openai.types.completion_usage import CompletionUsage

logger = logging.getLogger(__name__)

# Rough size of a token in English text, for endpoints that report no `usage`.
CHARS_PER_TOKEN = 4
# The size taken for a prompt that must fit a context window: an overestimate for most text,
# plus the framing of each message and of the reply (a chat template's role markers).
PROMPT_CHARS_PER_TOKEN = 3
PROMPT_TOKENS_PER_MESSAGE = 8
# Chat templates add a few tokens of framing around each message.
TOKENS_PER_MESSAGE = 4
MAX_REASON_CHARS = 300
# Seconds to wait for an endpoint's list of models (and its context window).
LIST_TIMEOUT = 10.0
# The SDK will not start without a key; an endpoint that has none is sent no Authorization.
NO_KEY = "no-key"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    # Shown in logs and errors; the base URL when not given. Never the key.
    name: str = ""
    # The model's context window in tokens; None: ask the server's /v1/models.
    window: int | None = None

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.base_url)

    @property
    def api_base(self) -> str:
        """The base URL with its `/v1`, which the SDK puts `/chat/completions` after."""
        base = self.base_url.rstrip("/")
        return base if base.endswith("/v1") else f"{base}/v1"

    @property
    def url(self) -> str:
        return f"{self.api_base}/chat/completions"


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
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class HTTPChat(ChatBackend):
    """An LLMClient over OpenAI-compatible `/v1/chat/completions` endpoints.

    `usage` sums the tokens of every answered request (from the reply's `usage`, estimated from
    the text when a server sends none). Safe to share between the threads of one session.
    """

    def __init__(
        self,
        endpoints: Sequence[Endpoint],
        *,
        failover_after: int = 2,
        connect_timeout: float = 5.0,
        read_timeout: float = 120.0,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stream: bool = False,
        watch: Watch | None = None,
    ) -> None:
        if not endpoints:
            raise ValueError("HTTPChat needs at least one endpoint")
        if failover_after < 1:
            raise ValueError("failover_after must be at least 1")
        self.endpoints = tuple(endpoints)
        self.failover_after = failover_after
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.stream = stream
        self.watch = watch
        self._sdks = [self._sdk(endpoint) for endpoint in self.endpoints]
        # Endpoints (by index) that refused a stream and then answered plainly: asked plainly
        # from then on.
        self._plain: set[int] = set()
        self._lock = threading.Lock()
        self._current = 0
        self._usage = Usage()
        # Context windows by endpoint index, once learned (None: the server does not say).
        self._windows: dict[int, int | None] = {
            n: e.window for n, e in enumerate(self.endpoints) if e.window is not None
        }

    def _sdk(self, endpoint: Endpoint) -> openai.OpenAI:
        # The SDK takes about a second to import: only a process that makes a client pays it.
        import openai

        return openai.OpenAI(
            base_url=endpoint.api_base,
            api_key=endpoint.api_key or NO_KEY,
            max_retries=self.failover_after - 1,
            timeout=openai.Timeout(self.read_timeout, connect=self.connect_timeout),
        )

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

    def context_window(self) -> int | None:
        """The context window of the endpoint the next request goes to first."""
        with self._lock:
            index = self._current
        return self._window(index)

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """An estimate on the safe side (see the module's notes)."""
        chars = sum(len(m.get("content", "")) for m in messages)
        framing = PROMPT_TOKENS_PER_MESSAGE * (len(messages) + 1)
        return math.ceil(chars / PROMPT_CHARS_PER_TOKEN) + framing

    def _complete(self, messages: Sequence[Message], settings: Settings) -> Completion:
        with self._lock:
            first = self._current
        failures: list[str] = []
        full: list[ContextFull] = []
        for offset in range(len(self.endpoints)):
            index = (first + offset) % len(self.endpoints)
            endpoint = self.endpoints[index]
            try:
                completion = self._ask(index, messages, settings)
            except (_AttemptFailed, ContextFull) as exc:
                reason = exc.reason if isinstance(exc, _AttemptFailed) else str(exc)
                full += [exc] if isinstance(exc, ContextFull) else []
                failures.append(f"{endpoint.name}: {reason}")
                logger.warning("LLM endpoint %s failed: %s", endpoint.name, reason)
                continue
            with self._lock:
                self._current = index
                self._usage = self._usage.add(completion)
            return completion
        if len(full) == len(self.endpoints):
            raise full[0]
        raise LLMError(f"no LLM endpoint answered ({'; '.join(failures)})")

    def close(self) -> None:
        for sdk in self._sdks:
            sdk.close()

    def __enter__(self) -> HTTPChat:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _request(
        self,
        endpoint: Endpoint,
        messages: Sequence[Message],
        settings: Settings,
        window: int | None,
        prompt_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The SDK's `create` arguments for one request to `endpoint`, its reply fitted to
        `window` after a prompt of `prompt_tokens` (estimated when not given)."""
        from openai import omit

        request: dict[str, Any] = {
            "model": endpoint.model,
            "messages": [dict(m) for m in messages],
            # The SDK sends OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment, and these
            # servers are not OpenAI's; nor does a keyless one get the placeholder key.
            "extra_headers": {
                "OpenAI-Organization": omit,
                "OpenAI-Project": omit,
                **({} if endpoint.api_key else {"Authorization": omit}),
            },
        }
        max_tokens = fit_reply(
            settings.max_tokens,
            window=window,
            prompt_tokens=self.prompt_tokens(messages) if prompt_tokens is None else prompt_tokens,
            model=endpoint.model,
            estimated=prompt_tokens is None,
        )
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        if settings.stop:
            request["stop"] = list(settings.stop)
        if settings.temperature is not None:
            request["temperature"] = settings.temperature
        return request

    def _window(self, index: int) -> int | None:
        """Endpoint `index`'s context window: its setting, else what its `/v1/models` says
        of its model, asked once (a server that cannot say is not asked again)."""
        with self._lock:
            if index in self._windows:
                return self._windows[index]
        window = self._listed_window(index)
        with self._lock:
            return self._windows.setdefault(index, window)

    def _listed_window(self, index: int) -> int | None:
        import openai

        endpoint = self.endpoints[index]
        # Once, briefly: a server that cannot say soon gets its turns unfitted, and refuses
        # (and states) a length that does not fit.
        timeout = openai.Timeout(min(self.read_timeout, LIST_TIMEOUT), connect=self.connect_timeout)
        try:
            models = self._sdks[index].with_options(max_retries=0, timeout=timeout).models.list()
        except openai.APIError as exc:
            logger.info("LLM endpoint %s lists no models: %s", endpoint.name, self._reason(exc))
            return None
        for model in models.data:
            window = (model.model_extra or {}).get("max_model_len")
            if model.id == endpoint.model and isinstance(window, int) and window > 0:
                return window
        return None

    def _ask(self, index: int, messages: Sequence[Message], settings: Settings) -> Completion:
        """One request to endpoint `index`, with the SDK's retries, and once more within the
        limit the server states if it refuses the length; _AttemptFailed when it fails,
        ContextFull when the prompt leaves too little of the window."""
        import openai

        endpoint = self.endpoints[index]
        request = self._request(endpoint, messages, settings, self._window(index))

        def send(progress: Progress) -> Completion:
            try:
                return self._send(index, request, messages, progress)
            except openai.BadRequestError as exc:
                limit = stated_limit(_error_message(exc))
                if limit is None:
                    raise _AttemptFailed(self._reason(exc)) from None
                refused = self._reason(exc)
            except openai.APIError as exc:
                raise _AttemptFailed(self._reason(exc)) from None
            logger.info("LLM endpoint %s refused the length: %s", endpoint.name, refused)
            with self._lock:
                self._windows[index] = limit.window
            within = self._request(endpoint, messages, settings, limit.window, limit.prompt_tokens)
            try:
                return self._send(index, within, messages, progress)
            except openai.APIError as exc:
                raise _AttemptFailed(f"{refused}; within its limit: {self._reason(exc)}") from None

        return send(Progress()) if self.watch is None else watched(self.watch, send)

    def _send(
        self, index: int, request: dict[str, Any], messages: Sequence[Message], progress: Progress
    ) -> Completion:
        import openai

        with self._lock:
            plain = not self.stream or index in self._plain
        if plain:
            return self._plain_post(index, request, messages)
        try:
            return self._stream_post(index, request, messages, progress)
        except openai.BadRequestError:
            # 400 to a stream request: the server may not stream at all.
            completion = self._plain_post(index, request, messages)
            with self._lock:
                self._plain.add(index)
            return completion

    def _stream_post(
        self, index: int, request: dict[str, Any], messages: Sequence[Message], progress: Progress
    ) -> Completion:
        chunks = self._sdks[index].chat.completions.create(
            **request, stream=True, stream_options={"include_usage": True}
        )
        # Leaving the block hangs up, also on a stream given up half-way.
        with chunks:
            try:
                completion = _read_stream(self.endpoints[index], chunks, messages, progress)
            except (ValueError, AttributeError, TypeError) as exc:
                raise _AttemptFailed(f"malformed stream: {_clip(str(exc))}") from None
        if completion is None:
            raise LLMError("the stream was given up")
        return completion

    def _plain_post(
        self, index: int, request: dict[str, Any], messages: Sequence[Message]
    ) -> Completion:
        endpoint = self.endpoints[index]
        raw = self._sdks[index].chat.completions.with_raw_response.create(**request)
        try:
            reply = raw.parse()
        except ValueError as exc:
            raise _AttemptFailed(f"malformed JSON reply: {_clip(str(exc))}") from None
        try:
            choice = reply.choices[0]
            text = choice.message.content or ""
            if not isinstance(text, str):
                raise TypeError("message content is not a string")
        except (AttributeError, IndexError, TypeError) as exc:
            raise _AttemptFailed(
                f"malformed reply, no choices[0].message.content ({type(exc).__name__}: {exc}): "
                f"{_clip(raw.http_response.text)}"
            ) from None
        return _completion(
            endpoint, messages, text, reply.usage, reply.model, str(choice.finish_reason or "stop")
        )

    def _reason(self, exc: openai.APIError) -> str:
        """Why the SDK gave a request up, in words a person can read, with its attempts."""
        import httpx2
        import openai

        if isinstance(exc, openai.APIStatusError):
            reason = f"HTTP {exc.status_code}: {_error_message(exc)}"
        elif isinstance(exc.__cause__, httpx2.ConnectTimeout):
            reason = f"connect timeout after {self.connect_timeout}s"
        elif isinstance(exc, openai.APITimeoutError):
            reason = f"no reply within the {self.read_timeout}s read timeout"
        elif isinstance(exc.__cause__, httpx2.ConnectError):
            reason = f"cannot connect: {exc.__cause__}"
        elif exc.__cause__ is not None:
            reason = f"{type(exc.__cause__).__name__}: {exc.__cause__}"
        else:
            reason = _clip(exc.message)
        # The SDK numbers its retries in a header of the request it last sent.
        attempts = int(exc.request.headers.get("x-stainless-retry-count", "0")) + 1
        return reason + (f" ({attempts} attempts)" if attempts > 1 else "")


def _read_stream(
    endpoint: Endpoint,
    chunks: Iterable[ChatCompletionChunk],
    messages: Sequence[Message],
    progress: Progress,
) -> Completion | None:
    """The completion a stream of chunks carries; None when `progress.abort` cut it short. Each
    chunk with content counts as one token until the server's own `usage` says otherwise."""
    parts: list[str] = []
    finish, model = "stop", ""
    usage: CompletionUsage | None = None
    for chunk in chunks:
        if progress.abort.is_set():
            return None
        usage = chunk.usage or usage
        model = chunk.model or model
        for choice in chunk.choices or ():
            content = choice.delta.content
            if isinstance(content, str) and content:
                parts.append(content)
                progress.tokens += 1
            finish = choice.finish_reason or finish
    return _completion(endpoint, messages, "".join(parts), usage, model, str(finish))


def _completion(
    endpoint: Endpoint,
    messages: Sequence[Message],
    text: str,
    usage: CompletionUsage | None,
    model: object,
    finish_reason: str,
) -> Completion:
    return Completion(
        text=text,
        prompt_tokens=_count(usage and usage.prompt_tokens, _estimate_prompt_tokens(messages)),
        completion_tokens=_count(usage and usage.completion_tokens, estimate_tokens(text)),
        model=model if isinstance(model, str) and model else endpoint.model,
        finish_reason=finish_reason,
        backend=endpoint.base_url,
    )


def _count(reported: object, estimate: int) -> int:
    return reported if isinstance(reported, int) and reported >= 0 else estimate


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _estimate_prompt_tokens(messages: Sequence[Message]) -> int:
    return sum(estimate_tokens(m.get("content", "")) + TOKENS_PER_MESSAGE for m in messages)


def _error_message(exc: openai.APIStatusError) -> str:
    """The OpenAI-style `error.message` when there is one, else the start of the body."""
    error = exc.body
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return _clip(error["message"])
    if isinstance(error, str) and error.strip():
        return _clip(error)
    return _clip(exc.response.text) or exc.response.reason_phrase


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"
