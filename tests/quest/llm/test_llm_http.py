"""HTTPChat against real `serve-llm` processes serving a tiny random model, and against
stand-ins for broken endpoints."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from llm_servers import (
    TINY,
    BrokenEndpoint,
    ServedModel,
    closed_port_url,
    openai_error,
    prompt_tokens,
)

from quest.llm.http import Endpoint, HTTPChat, Usage
from quest.llm.types import LLMError

pytestmark = pytest.mark.integration

QUESTION = [{"role": "user", "content": "Which river flows through Vienna?"}]


def test_it_answers_over_http_and_counts_the_servers_tokens(
    tiny_server: ServedModel, tiny_model_dir: Path
) -> None:
    with HTTPChat([Endpoint(tiny_server.url, TINY)]) as client:
        first = client.complete(QUESTION, max_tokens=6)
        second = client.complete(QUESTION, max_tokens=4)

    assert first.text.strip()
    assert first.backend == tiny_server.url
    assert first.model == TINY
    assert first.prompt_tokens == prompt_tokens(tiny_model_dir, QUESTION)
    assert (first.completion_tokens, first.finish_reason) == (6, "length")
    assert (second.completion_tokens, second.finish_reason) == (4, "length")
    assert client.usage == Usage(2 * first.prompt_tokens, 10, 2)
    assert client.usage.total_tokens == 2 * first.prompt_tokens + 10


def test_a_base_url_ending_in_v1_is_not_doubled(tiny_server: ServedModel) -> None:
    with HTTPChat([Endpoint(tiny_server.url + "/v1/", TINY)]) as client:
        assert client.chat(QUESTION)


def test_it_cuts_the_answer_at_the_first_stop_sequence(tiny_server: ServedModel) -> None:
    with HTTPChat([Endpoint(tiny_server.url, TINY)]) as client:
        full = client.complete(QUESTION, max_tokens=12)
        stop = full.text.split()[2]
        cut = client.complete(QUESTION, max_tokens=12, stop=["never-generated", stop])

    assert cut.text == full.text[: full.text.index(stop)]
    assert cut.finish_reason == "stop"
    assert cut.completion_tokens < full.completion_tokens


def test_it_fails_over_to_a_live_server_when_its_server_is_killed_and_stays_there(
    serve_llm: Callable[[Path], ServedModel],
    tiny_server: ServedModel,
    tiny_model_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    victim = serve_llm(tiny_model_dir)
    endpoints = [Endpoint(victim.url, TINY, name="victim"), Endpoint(tiny_server.url, TINY)]
    with HTTPChat(endpoints) as client:
        before = client.complete(QUESTION, max_tokens=5)
        victim.kill()
        after = client.complete(QUESTION, max_tokens=5)
        again = client.complete(QUESTION, max_tokens=3)

    assert before.backend == victim.url
    assert after.backend == again.backend == tiny_server.url
    assert client.endpoint.base_url == tiny_server.url
    # Two attempts at the dead server, then none: sticky.
    failures = [r.getMessage() for r in caplog.records if r.name == "quest.llm.http"]
    assert len(failures) == 1
    assert failures[0].startswith("LLM endpoint victim failed: cannot connect")
    assert failures[0].endswith("(2 attempts)")
    # Both servers run the same weights greedily: the session's answer does not change.
    assert after.text == before.text
    assert client.usage == Usage(3 * before.prompt_tokens, 5 + 5 + 3, 3)


def test_it_names_every_endpoint_and_why_when_all_are_down() -> None:
    first, second = closed_port_url(), closed_port_url()
    client = HTTPChat([Endpoint(first, "m"), Endpoint(second, "m")])
    with client, pytest.raises(LLMError) as caught:
        client.complete(QUESTION)

    message = str(caught.value)
    assert first in message
    assert second in message
    assert message.count("Connection refused") == 2
    assert message.count("(2 attempts)") == 2
    assert client.usage == Usage()


def test_server_errors_are_retried_on_the_same_endpoint_then_it_fails_over(
    tiny_server: ServedModel,
) -> None:
    with BrokenEndpoint(500, openai_error("CUDA out of memory")) as broken:
        endpoints = [Endpoint(broken.url, "m"), Endpoint(tiny_server.url, TINY)]
        with HTTPChat(endpoints, failover_after=3) as client:
            answer = client.complete(QUESTION, max_tokens=2)
            client.complete(QUESTION, max_tokens=2)

    assert answer.backend == tiny_server.url
    assert len(broken.requests) == 3


@pytest.mark.parametrize(
    ("status", "attempts"), [(500, 2), (503, 2), (429, 2), (408, 2), (400, 1), (401, 1), (404, 1)]
)
def test_only_timeouts_throttling_and_server_errors_are_retried_on_the_same_endpoint(
    tiny_server: ServedModel, status: int, attempts: int
) -> None:
    with BrokenEndpoint(status, openai_error(f"refused with {status}")) as broken:
        endpoints = [Endpoint(broken.url, "m"), Endpoint(tiny_server.url, TINY)]
        with HTTPChat(endpoints) as client:
            answer = client.complete(QUESTION, max_tokens=1)

    assert answer.backend == tiny_server.url
    assert len(broken.requests) == attempts


def test_the_error_says_which_http_status_and_message_each_endpoint_gave() -> None:
    with (
        BrokenEndpoint(503, openai_error("model is loading")) as loading,
        BrokenEndpoint(400, {"error": "max_tokens is too large"}) as refusing,
    ):
        endpoints = [Endpoint(loading.url, "m", name="gpu1"), Endpoint(refusing.url, "m")]
        client = HTTPChat(endpoints)
        with client, pytest.raises(LLMError) as caught:
            client.complete(QUESTION)

    assert str(caught.value) == (
        "no LLM endpoint answered (gpu1: HTTP 503: model is loading (2 attempts); "
        f"{refusing.url}: HTTP 400: max_tokens is too large)"
    )


def test_a_slow_endpoint_times_out_and_the_error_says_so() -> None:
    with BrokenEndpoint(200, {}, delay=2.0) as slow:
        client = HTTPChat([Endpoint(slow.url, "m")], failover_after=1, read_timeout=0.2)
        with client, pytest.raises(LLMError, match=r"no reply within the 0\.2s read timeout"):
            client.complete(QUESTION)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html>Bad gateway</html>", "malformed JSON reply"),
        ({"choices": []}, "malformed reply, no choices[0].message.content"),
        ({"choices": [{"text": "legacy"}]}, "malformed reply, no choices[0].message.content"),
    ],
)
def test_a_malformed_reply_is_an_error_naming_the_endpoint(body: object, reason: str) -> None:
    with BrokenEndpoint(200, body) as garbled:
        client = HTTPChat([Endpoint(garbled.url, "m")])
        with client, pytest.raises(LLMError) as caught:
            client.complete(QUESTION)

    assert f"{garbled.url}: {reason}" in str(caught.value)


def test_it_estimates_tokens_when_a_server_reports_no_usage() -> None:
    reply = {"choices": [{"message": {"content": "The Danube."}, "finish_reason": "stop"}]}
    with BrokenEndpoint(200, reply) as no_usage, HTTPChat([Endpoint(no_usage.url, "m")]) as client:
        answer = client.complete(QUESTION)

    assert answer.text == "The Danube."
    assert answer.completion_tokens == 3
    assert answer.prompt_tokens == 9 + 4
    assert client.usage == Usage(13, 3, 1)


def test_it_sends_the_api_key_but_never_shows_it(caplog: pytest.LogCaptureFixture) -> None:
    endpoint = Endpoint(closed_port_url(), "m", api_key="sk-secret-123")
    caplog.set_level(logging.DEBUG)
    with BrokenEndpoint(401, openai_error("bad key")) as guarded:
        keyed = Endpoint(guarded.url, "m", api_key="sk-secret-123")
        client = HTTPChat([endpoint, keyed])
        with client, pytest.raises(LLMError) as caught:
            client.complete(QUESTION)

    assert guarded.requests[0]["authorization"] == "Bearer sk-secret-123"
    assert "sk-secret" not in str(caught.value)
    assert "sk-secret" not in repr(endpoint)
    assert "sk-secret" not in caplog.text
    assert "bad key" in caplog.text


def test_a_keyless_endpoint_is_sent_no_key_and_no_openai_settings_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK reads these for api.openai.com; a self-hosted server must never see them.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-from-the-environment")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-from-the-environment")
    reply = {"choices": [{"message": {"content": "The Danube."}, "finish_reason": "stop"}]}
    with BrokenEndpoint(200, reply) as keyless, HTTPChat([Endpoint(keyless.url, "m")]) as client:
        client.complete(QUESTION)

    sent = keyless.requests[0].keys()
    assert not sent & {"authorization", "openai-organization", "openai-project"}
