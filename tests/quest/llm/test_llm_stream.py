"""Streamed completions and giving a request up: HTTPChat against a local server that streams
its reply slowly (or never ends it), and the agent loop ending a stopped run mid-generation."""

from __future__ import annotations

import threading

import pytest
from llm_servers import BrokenEndpoint, StreamingEndpoint

from quest.agent import LLMPolicy, run_agent
from quest.agent.events import ListSink
from quest.llm.http import Endpoint, HTTPChat
from quest.llm.streaming import Cancelled, Watch
from quest.tools.toolbox import Toolbox

QUESTION = [{"role": "user", "content": "Which river flows through Vienna?"}]


def _stop_after(tokens: int) -> tuple[Watch, list[int], threading.Event]:
    """A watch that records the counts it hears and asks to stop once `tokens` were written."""
    heard: list[int] = []
    stop = threading.Event()

    def on_tokens(count: int) -> None:
        heard.append(count)
        if count >= tokens:
            stop.set()

    return Watch(on_tokens=on_tokens, cancelled=stop.is_set, poll_s=0.05), heard, stop


def test_a_streamed_reply_is_whole_and_its_tokens_are_heard_as_they_come() -> None:
    heard: list[int] = []
    watch = Watch(on_tokens=heard.append, poll_s=0.01)
    with StreamingEndpoint(chunks=12, interval=0.02, word="flow ") as server:
        client = HTTPChat([Endpoint(server.url, "slow")], stream=True, watch=watch)
        completion = client.complete(QUESTION, max_tokens=50)
        client.close()

    assert completion.text == "flow " * 12
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 12)
    assert completion.finish_reason == "stop"
    assert server.bodies[0]["stream"] is True
    assert heard and heard == sorted(heard) and heard[-1] <= 12


def test_a_stop_gives_up_a_stream_that_never_ends_and_hangs_up() -> None:
    watch, heard, _ = _stop_after(3)
    with StreamingEndpoint(chunks=None, interval=0.02) as server:
        client = HTTPChat([Endpoint(server.url, "slow")], stream=True, watch=watch)
        with pytest.raises(Cancelled):
            client.complete(QUESTION)
        assert server.hung_up.wait(10), "the client should close the connection"
        client.close()
    assert heard[-1] >= 3
    assert len(server.bodies) == 1, "a cancelled request is not retried or failed over"


def test_a_stop_gives_up_a_request_whose_server_says_nothing() -> None:
    stop = threading.Event()
    stop.set()
    watch = Watch(cancelled=stop.is_set, poll_s=0.05)
    with BrokenEndpoint(200, {"choices": []}, delay=30) as server:
        client = HTTPChat([Endpoint(server.url, "silent")], watch=watch)
        with pytest.raises(Cancelled):
            client.complete(QUESTION)
    assert len(server.requests) <= 1


def test_a_server_that_refuses_to_stream_is_asked_plainly_from_then_on() -> None:
    with StreamingEndpoint(chunks=3, refuse_stream=True, word="Danube ") as server:
        client = HTTPChat([Endpoint(server.url, "plain")], stream=True)
        first = client.complete(QUESTION)
        second = client.complete(QUESTION)
        client.close()

    assert first.text == second.text == "Danube " * 3
    assert [bool(body.get("stream")) for body in server.bodies] == [True, False, False]


def test_a_run_stopped_in_the_middle_of_a_generation_ends_stopped_with_a_partial_report() -> None:
    watch, _, stop = _stop_after(5)
    sink = ListSink()
    with StreamingEndpoint(chunks=None, interval=0.02) as server:
        client = HTTPChat([Endpoint(server.url, "slow")], stream=True, watch=watch)
        result = run_agent(
            "Which river flows through Vienna?",
            policy=LLMPolicy(client),
            toolbox=Toolbox({}),
            sink=sink,
            should_stop=stop.is_set,
        )
        client.close()

    assert result.status == "stopped"
    assert result.partial is True
    assert result.answer.startswith("_Partial report: the run was stopped")
    assert sink.types()[-2:] == ["answer", "finished"]
    assert "error" not in sink.types(), "a stop is not a failure"
