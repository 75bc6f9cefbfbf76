"""A turn fits the model's context window (issue 40): the window is learned from the server's
/v1/models, a turn asks for no more than the window leaves after the prompt, a refused length is
asked again once within the limit the server states, and a full window ends the turn with a
clear reason. Against the real `quest serve-llm`: the tiny random model (a 512-token window) for
the client's behaviour, SmolLM2-135M for the agent's run."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from llm_servers import ROOT, TINY, ServedModel, start_serve_llm

from quest.agent.budgets import Budgets
from quest.agent.condenser import LLMCondenser
from quest.agent.prompts import message, tool_response
from quest.corpus import Document, corpus_write
from quest.llm.config import parse_endpoints
from quest.llm.http import Endpoint, HTTPChat
from quest.llm.local import TransformersChat
from quest.llm.window import MIN_REPLY_TOKENS, ContextFull, StatedLimit, stated_limit
from quest.search.indexing import bm25_build

QUESTION = [
    {"role": "system", "content": "You answer briefly."},
    {"role": "user", "content": "What is the capital of France?"},
]
# About 600 tokens: more than the tiny model's 512-token window holds.
TOO_LONG = [{"role": "user", "content": "capital " * 600}]
AUSTRALIA = "What is the capital of Australia and how many people live there?"


def client(served: ServedModel, *, window: int | None = None) -> HTTPChat:
    return HTTPChat([Endpoint(served.url, TINY, window=window)])


@pytest.mark.parametrize(
    ("message", "limit"),
    [
        (
            "This model's maximum context length is 8192 tokens. However, you requested 10663 "
            "tokens (423 in the messages, 10240 in the completion). Please reduce the length "
            "of the messages or completion.",
            StatedLimit(8192, 423),
        ),
        (
            "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum "
            "context length is 4096 tokens and your request has 2778 input tokens "
            "(8000 > 4096 - 2778). None",
            StatedLimit(4096, 2778),
        ),
        (
            "the prompt is 423 tokens and max_tokens is 10240, but SmolLM2-135M-Instruct reads "
            "at most 8192 tokens",
            StatedLimit(8192, 423),
        ),
        (
            "This model's maximum context length is 1536 tokens. However, your messages "
            "resulted in 4176 tokens. Please reduce the length of the messages.",
            StatedLimit(1536, 4176),
        ),
        ("'messages' must be a non-empty list of {role, content} objects", None),
    ],
)
def test_it_reads_the_limit_a_server_states_in_its_refusal(
    message: str, limit: StatedLimit | None
) -> None:
    assert stated_limit(message) == limit


def test_the_server_lists_its_models_window_and_the_client_learns_it(
    tiny_server: ServedModel,
) -> None:
    models = httpx.get(tiny_server.url + "/v1/models").json()["data"]

    assert [(m["id"], m["max_model_len"]) for m in models] == [(TINY, 512)]
    assert client(tiny_server).context_window() == 512


def test_a_turn_that_would_overflow_the_window_asks_for_what_is_left(
    tiny_server: ServedModel, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="quest.llm.http"):
        answer = client(tiny_server).complete(QUESTION, max_tokens=10_240)

    assert not [r for r in caplog.records if "refused" in r.getMessage()]
    # The random model never stops early: it fills what the window leaves, and no more.
    assert answer.finish_reason == "length"
    assert 512 - MIN_REPLY_TOKENS < answer.prompt_tokens + answer.completion_tokens <= 512


def test_a_refused_length_is_asked_again_once_within_the_stated_limit(
    tiny_server: ServedModel, caplog: pytest.LogCaptureFixture
) -> None:
    # Told a window the model does not have, the client asks for too much; the server refuses.
    chat = client(tiny_server, window=100_000)

    with caplog.at_level(logging.INFO, logger="quest.llm.http"):
        answer = chat.complete(QUESTION, max_tokens=10_240)

    refusals = [r.getMessage() for r in caplog.records if "refused the length" in r.getMessage()]
    assert len(refusals) == 1
    assert f"but {TINY} reads at most 512 tokens" in refusals[0]
    assert answer.prompt_tokens + answer.completion_tokens == 512
    assert chat.context_window() == 512  # remembered: the next turn fits at once


def test_a_full_window_ends_the_turn_with_a_clear_reason(tiny_server: ServedModel) -> None:
    with pytest.raises(ContextFull, match=rf"the context window of {TINY} \(512 tokens\) is full"):
        client(tiny_server).complete(TOO_LONG, max_tokens=256)


def test_a_full_window_that_the_server_states_ends_the_turn_with_the_exact_prompt_size(
    tiny_server: ServedModel,
) -> None:
    with pytest.raises(ContextFull, match=r"\(512 tokens\) is full: the prompt is \d+ tokens") as e:
        client(tiny_server, window=100_000).complete(TOO_LONG, max_tokens=256)

    assert e.value.prompt_tokens > 512


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("http://a:1|m", None),
        ("http://a:1|m|window=8192", 8192),
        ('[{"url": "http://a:1", "model": "m", "window": 16384}]', 16384),
    ],
)
def test_an_endpoint_may_name_its_window(text: str, window: int | None) -> None:
    assert parse_endpoints(text)[0].window == window


def test_an_endpoint_with_a_key_may_name_its_window_too() -> None:
    endpoint = parse_endpoints("http://a:1|m|GPU_KEY|window=4096", environ={"GPU_KEY": "k"})[0]

    assert (endpoint.api_key, endpoint.window) == ("k", 4096)


@pytest.mark.parametrize("window", ["window=0", "window=lots", "window="])
def test_a_window_that_is_no_positive_number_is_refused(window: str) -> None:
    with pytest.raises(ValueError, match="the window must be a positive number of tokens"):
        parse_endpoints(f"http://a:1|m|{window}")


@pytest.mark.parametrize(
    ("window", "threshold"), [(None, 80_000), (8192, 4096), (512, 256), (1_000_000, 80_000)]
)
def test_the_history_condenses_by_half_a_small_models_window(
    window: int | None, threshold: int
) -> None:
    assert Budgets.inference().within(window).condense_at_tokens == threshold


@pytest.fixture(scope="module")
def smollm2_server() -> Iterator[ServedModel]:
    served = start_serve_llm("smollm2")
    yield served
    served.stop()


@pytest.fixture(scope="module")
def canberra_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = tmp_path_factory.mktemp("corpus")
    text = "Canberra is the capital city of Australia. About 470,000 people live there."
    page = Document(
        url="https://en.wikipedia.org/wiki/Canberra", title="Canberra", text=text,
        source="wikipedia", licence="test", topic="", fetched_at="2026",
    )  # fmt: skip
    corpus_write(corpus, [page])
    bm25_build(corpus)
    return corpus


def agent_run(served: ServedModel, model: str, corpus: Path) -> str:
    """`quest agent run` with the LLM policy over HTTP and the default budgets: its output."""
    command = [sys.executable, "-m", "quest", "agent", "run", AUSTRALIA, "--policy", "llm"]
    endpoints = f"{served.url}/v1|{model}"
    run = subprocess.run(
        [*command, "--model", "http", "--endpoints", endpoints, "--corpus", str(corpus)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    return run.stdout + run.stderr


def test_the_agent_runs_smollm2_over_http_with_default_budgets_without_a_400(
    smollm2_server: ServedModel, canberra_corpus: Path
) -> None:
    out = agent_run(smollm2_server, "SmolLM2-135M-Instruct", canberra_corpus)

    assert "HTTP 400" not in out
    # The untrained model breaks the protocol (three invalid turns), or runs out of turns.
    assert "status invalid: 3 turns" in out or "status forced" in out, out


def test_an_agent_whose_prompt_fills_the_window_ends_saying_so(
    tiny_server: ServedModel, canberra_corpus: Path
) -> None:
    # The agent's instructions alone take most of the tiny model's 512 tokens.
    out = agent_run(tiny_server, TINY, canberra_corpus)

    assert "HTTP 400" not in out
    assert f"[1] error: ContextFull: the context window of {TINY} (512 tokens) is full" in out
    assert "status failed: 1 turns" in out
    # The partial report says why, not only that the policy failed.
    assert f"_Partial report: the context window of {TINY} (512 tokens) is full" in out
    assert "failed before it could answer" not in out


def test_the_condenser_shortens_its_prompt_to_fit_a_small_window(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    # The tiny model with a 1,024-token window: the condenser's instructions alone take 300.
    folder = shutil.copytree(tiny_model_dir, tmp_path / "tiny-1024")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "max_position_embeddings": 1024}))
    tiny = TransformersChat(folder, threads=1)
    page = "Canberra is the capital city of Australia. " * 140  # about 1,100 tokens
    events = [
        message("assistant", '<tool_call>{"name": "visit", "arguments": {}}</tool_call>'),
        message("user", tool_response(page)),
    ]

    state = LLMCondenser(tiny, max_tokens=32).condense("What is the capital?", events, None)

    # The random model writes no JSON, so the rule condenser recovers; but the model was asked.
    assert state.recovery.startswith("the reply is not a valid dr_state"), state.recovery
