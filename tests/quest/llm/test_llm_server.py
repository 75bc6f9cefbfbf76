"""`python -m quest serve-llm` as an HTTP client sees it: routes, replies and refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from llm_servers import ROOT, TINY, ServedModel

from quest.llm.server import MAX_BODY_BYTES

pytestmark = pytest.mark.integration

HELLO = [{"role": "user", "content": "hello"}]


def post(server: ServedModel, body: Any, path: str = "/v1/chat/completions") -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(server.url + path, content=content, timeout=60)


def test_it_answers_in_the_openai_shape(tiny_server: ServedModel) -> None:
    reply = post(tiny_server, {"model": TINY, "messages": HELLO, "max_tokens": 3})

    assert reply.status_code == 200
    body = reply.json()
    assert body["id"].startswith("chatcmpl-")
    assert body["object"] == "chat.completion"
    assert isinstance(body["created"], int)
    assert body["model"] == TINY
    [choice] = body["choices"]
    assert choice["message"]["role"] == "assistant"
    assert choice["message"]["content"]
    assert choice["finish_reason"] == "length"
    usage = body["usage"]
    assert usage["completion_tokens"] == 3
    assert usage["total_tokens"] == usage["prompt_tokens"] + 3


def test_a_single_stop_string_is_accepted(tiny_server: ServedModel) -> None:
    full = post(tiny_server, {"messages": HELLO, "max_tokens": 8}).json()
    text = full["choices"][0]["message"]["content"]
    stop = text.split()[1]

    cut = post(tiny_server, {"messages": HELLO, "max_tokens": 8, "stop": stop}).json()

    assert cut["choices"][0]["message"]["content"] == text[: text.index(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"


def test_it_lists_its_model_and_reports_health(tiny_server: ServedModel) -> None:
    models = httpx.get(tiny_server.url + "/v1/models").json()
    health = httpx.get(tiny_server.url + "/health")

    assert [model["id"] for model in models["data"]] == [TINY]
    assert health.status_code == 200


OK = {"messages": HELLO}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "the body is not valid JSON"),
        (b"[1, 2]", "the body must be a JSON object"),
        ({}, "'messages' must be a non-empty list"),
        ({"messages": []}, "'messages' must be a non-empty list"),
        ({"messages": "hello"}, "'messages' must be a non-empty list"),
        ({"messages": ["hello"]}, "messages[0] must be an object"),
        ({"messages": [{"role": "user"}]}, "messages[0].content must be a string"),
        ({"messages": [{"role": "user", "content": ["hi"]}]}, "messages[0].content must be"),
        ({"messages": [{"role": "robot", "content": "hi"}]}, "messages[0].role must be one of"),
        ({**OK, "max_tokens": "ten"}, "'max_tokens' must be a positive integer, got 'ten'"),
        ({**OK, "max_tokens": 0}, "'max_tokens' must be a positive integer, got 0"),
        ({**OK, "max_tokens": True}, "'max_tokens' must be a positive integer"),
        ({**OK, "stop": [1]}, "'stop' must be a non-empty string or a list"),
        ({**OK, "stop": ""}, "'stop' must be a non-empty string or a list"),
        ({**OK, "temperature": "hot"}, "'temperature' must be a number, got 'hot'"),
        ({**OK, "temperature": 7}, "'temperature' must be between 0 and 2.0, got 7"),
        ({**OK, "stream": True}, "stream=true is not supported"),
        ({**OK, "n": 3}, "only n=1 is supported"),
        ({**OK, "max_tokens": 100_000}, f"but {TINY} reads at most 512 tokens"),
    ],
)
def test_a_malformed_request_gets_a_400_that_says_what_is_wrong(
    tiny_server: ServedModel, body: Any, message: str
) -> None:
    reply = post(tiny_server, body)

    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert message in error["message"]


def test_an_oversized_body_is_refused_and_the_server_keeps_serving(
    tiny_server: ServedModel,
) -> None:
    reply = post(tiny_server, b" " * (MAX_BODY_BYTES + 1))

    assert reply.status_code == 400
    assert f"the limit is {MAX_BODY_BYTES}" in reply.json()["error"]["message"]
    assert post(tiny_server, {**OK, "max_tokens": 1}).status_code == 200


def test_a_body_without_a_length_is_refused(tiny_server: ServedModel) -> None:
    def chunks() -> Iterator[bytes]:
        yield json.dumps(OK).encode()

    reply = httpx.post(tiny_server.url + "/v1/chat/completions", content=chunks())

    assert reply.status_code == 400
    assert "Content-Length" in reply.json()["error"]["message"]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_an_unknown_route_is_a_404(tiny_server: ServedModel, method: str) -> None:
    reply = httpx.request(method, tiny_server.url + "/v1/completions", json=OK)

    assert reply.status_code == 404
    assert reply.json()["error"]["message"] == f"no route {method} /v1/completions"


def test_a_model_that_cannot_load_exits_1_with_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "quest", "serve-llm", "--model", str(tmp_path), "--port", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 1
    assert result.stderr == (
        f"error: {tmp_path}: not a model directory with a config.json, a .gguf file, or 'smollm2'\n"
    )
