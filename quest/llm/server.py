"""An OpenAI-compatible HTTP server in front of any in-process LLMClient.

Routes: `POST /v1/chat/completions` (messages, max_tokens, stop, temperature), `GET /v1/models`
and `GET /health`. Requests are checked before they reach the model; a bad one gets a 400 with an
OpenAI-style `{"error": {"message", "type": "invalid_request_error"}}` body. As vLLM does, the
server lists its model's context window as `max_model_len` and refuses a request whose prompt and
max_tokens together exceed it, stating the window and the prompt's size.

The stdlib server keeps this dependency-free. It accepts connections on many threads but runs
one generation at a time: an in-process model on a small machine gains nothing from more.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from quest.llm.types import Completion, LLMClient, LLMError, Windowed, context_window
from quest.llm.window import refusal

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_000_000
MAX_DISCARD_BYTES = 16_000_000
ROLES = ("system", "user", "assistant", "tool")
MAX_TEMPERATURE = 2.0


class RequestError(Exception):
    """A request the server refuses, with the HTTP status to refuse it with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class ChatRequest:
    messages: list[dict[str, str]]
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    temperature: float | None = None


def parse_chat_request(body: bytes) -> ChatRequest:
    """A `/v1/chat/completions` body, checked; raises RequestError naming what is wrong."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise RequestError(f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RequestError("the body must be a JSON object")
    if data.get("stream"):
        raise RequestError("stream=true is not supported; ask without streaming")
    if data.get("n", 1) != 1:
        raise RequestError("only n=1 is supported")
    return ChatRequest(
        messages=_messages(data.get("messages")),
        max_tokens=_max_tokens(data.get("max_tokens")),
        stop=_stop(data.get("stop")),
        temperature=_temperature(data.get("temperature")),
    )


def _messages(value: object) -> list[dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise RequestError("'messages' must be a non-empty list of {role, content} objects")
    messages = []
    for n, message in enumerate(value):
        where = f"messages[{n}]"
        if not isinstance(message, dict):
            raise RequestError(f"{where} must be an object with 'role' and 'content'")
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            raise RequestError(f"{where}.role must be one of {', '.join(ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise RequestError(f"{where}.content must be a string")
        messages.append({"role": role, "content": content})
    return messages


def _max_tokens(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestError(f"'max_tokens' must be a positive integer, got {value!r}")
    return value


def _stop(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    stops = [value] if isinstance(value, str) else value
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
        raise RequestError("'stop' must be a non-empty string or a list of non-empty strings")
    return tuple(stops)


def _temperature(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RequestError(f"'temperature' must be a number, got {value!r}")
    if not 0 <= value <= MAX_TEMPERATURE:
        raise RequestError(f"'temperature' must be between 0 and {MAX_TEMPERATURE}, got {value}")
    return float(value)


def completion_body(completion: Completion, *, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": completion.text},
                "finish_reason": completion.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "total_tokens": completion.prompt_tokens + completion.completion_tokens,
        },
    }


class LLMServer(ThreadingHTTPServer):
    """Serves `client` as `model_name`; port 0 picks a free port (see `url`)."""

    daemon_threads = True

    def __init__(self, client: LLMClient, *, model_name: str, host: str, port: int) -> None:
        super().__init__((host, port), _Handler)
        self.client = client
        self.model_name = model_name
        self.generation_lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def model_card(self) -> dict[str, Any]:
        """The model as `/v1/models` lists it, with its context window where the client knows it."""
        card: dict[str, Any] = {"id": self.model_name, "object": "model", "owned_by": "questweb"}
        window = context_window(self.client)
        return card if window is None else {**card, "max_model_len": window}

    def answer(self, request: ChatRequest) -> dict[str, Any]:
        # Under the lock: a fast tokenizer used by two threads at once may refuse ("Already
        # borrowed"), and the generation uses it too.
        with self.generation_lock:
            self._check_length(request)
            completion = self.client.complete(
                request.messages,
                max_tokens=request.max_tokens,
                stop=request.stop,
                temperature=request.temperature,
            )
        return completion_body(completion, model=self.model_name)

    def _check_length(self, request: ChatRequest) -> None:
        """Refuse, as vLLM does, a max_tokens that the window cannot hold after the prompt."""
        client, asked = self.client, request.max_tokens
        if asked is None or not isinstance(client, Windowed):
            return
        window = client.context_window()
        if window is None:
            return
        prompt = client.prompt_tokens(request.messages)
        if prompt + asked > window:
            raise LLMError(
                refusal(self.model_name, window=window, prompt_tokens=prompt, max_tokens=asked)
            )


class _Handler(BaseHTTPRequestHandler):
    server: LLMServer
    # Keep-alive, so a client's connection pool is reused between requests.
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path == "/health":
            self._reply(200, {"status": "ok"})
        elif self.path == "/v1/models":
            self._reply(200, {"object": "list", "data": [self.server.model_card()]})
        else:
            self._error(RequestError(f"no route GET {self.path}", status=404))

    def do_POST(self) -> None:
        try:
            if self.path != "/v1/chat/completions":
                raise RequestError(f"no route POST {self.path}", status=404)
            request = parse_chat_request(self._body())
        except RequestError as exc:
            self._error(exc)
            return
        try:
            reply = self.server.answer(request)
        except LLMError as exc:
            self._error(RequestError(str(exc)))
        except Exception as exc:  # the client gets an answer and the server keeps serving
            logger.exception("generation failed")
            self._error(RequestError(f"generation failed: {type(exc).__name__}", status=500))
        else:
            self._reply(200, reply)

    def _body(self) -> bytes:
        length_header = self.headers.get("Content-Length")
        try:
            length = int(length_header) if length_header is not None else -1
        except ValueError:
            length = -1
        if length < 0:
            # Without a length the rest of the stream cannot be told from the next request.
            self.close_connection = True
            raise RequestError("a Content-Length header is required")
        if length > MAX_BODY_BYTES:
            self._discard(length)
            raise RequestError(f"the body is {length} bytes; the limit is {MAX_BODY_BYTES}")
        return self.rfile.read(length)

    def _discard(self, length: int) -> None:
        """Read a refused body before answering, then close the connection.

        Closing a socket with unread input makes the kernel reset the connection, and the
        client, still sending, would see the reset instead of the 400. Beyond
        MAX_DISCARD_BYTES the client gets the reset: reading more is not worth it.
        """
        self.close_connection = True
        left = min(length, MAX_DISCARD_BYTES)
        while left > 0:
            chunk = self.rfile.read(min(left, 65536))
            if not chunk:
                break
            left -= len(chunk)

    def _error(self, error: RequestError) -> None:
        kind = "invalid_request_error" if error.status < 500 else "server_error"
        self._reply(error.status, {"error": {"message": error.message, "type": kind}})

    def _reply(self, status: int, body: Mapping[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        # The stdlib writes one stderr line per request; a log record can be silenced.
        logger.info("%s " + format, self.address_string(), *args)
