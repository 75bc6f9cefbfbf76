from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.llm.config import client_from_config, parse_endpoints
from quest.llm.http import Endpoint, HTTPChat
from quest.llm.local import TransformersChat
from quest.llm.types import LLMError

ENV = {"GPU1_KEY": "sk-one", "EMPTY_KEY": ""}


def test_it_reads_the_compact_spelling_with_keys_from_the_environment() -> None:
    endpoints = parse_endpoints(
        " http://gpu1:8000|qwen|GPU1_KEY , https://gpu2.example/v1|qwen-7b ", environ=ENV
    )

    assert endpoints == [
        Endpoint("http://gpu1:8000", "qwen", "sk-one"),
        Endpoint("https://gpu2.example/v1", "qwen-7b"),
    ]
    assert endpoints[1].url == "https://gpu2.example/v1/chat/completions"


def test_it_reads_the_json_spelling() -> None:
    text = json.dumps(
        [
            {"url": "http://gpu1:8000", "model": "qwen", "api_key_env": "GPU1_KEY", "name": "a"},
            {"url": "http://gpu2:8000", "model": "qwen", "api_key": "sk-two"},
        ]
    )

    assert parse_endpoints(text, environ=ENV) == [
        Endpoint("http://gpu1:8000", "qwen", "sk-one", "a"),
        Endpoint("http://gpu2:8000", "qwen", "sk-two"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("  ", "no LLM endpoints given"),
        ("http://gpu1:8000", "LLM endpoint 1 'http://gpu1:8000': expected url|model or"),
        ("http://a:1|m,,http://b:1|m", "LLM endpoint 2 '': expected url|model"),
        ("http://a:1|m|K|x", "LLM endpoint 1 'http://a:1|m|K|x': expected url|model"),
        ("gpu1:8000|qwen", "LLM endpoint 1 'gpu1:8000|qwen': the url must be http:// or https://"),
        ("ftp://gpu1|qwen", "the url must be http:// or https:// with a host, got 'ftp://gpu1'"),
        ("|qwen", "LLM endpoint 1 '|qwen': the url is missing"),
        ("http://a:1|m,http://b:1| ", "LLM endpoint 2 'http://b:1|': the model is missing"),
        ("http://a:1|m|NOPE", "environment variable NOPE (its API key) is not set"),
        ("http://a:1|m|EMPTY_KEY", "environment variable EMPTY_KEY (its API key) is not set"),
        ("[{", "LLM endpoints: invalid JSON"),
        ("[]", "expected a non-empty JSON list of objects"),
        ('["http://a:1"]', "LLM endpoint 1: expected an object, got str"),
        ('[{"url": "http://a:1"}]', "LLM endpoint 1 (http://a:1): the model is missing"),
        ('[{"model": "m"}]', "LLM endpoint 1: the url is missing"),
        ('[{"url": "http://a:1", "modle": "m"}]', "LLM endpoint 1: unknown keys ['modle']"),
        ('[{"url": "http://a:1", "model": 7}]', "LLM endpoint 1: 'model' must be a string"),
        (
            '[{"url": "http://a:1", "model": "m", "api_key": "k", "api_key_env": "GPU1_KEY"}]',
            "give either 'api_key' or 'api_key_env', not both",
        ),
    ],
)
def test_a_bad_endpoint_list_is_refused_naming_the_entry(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_endpoints(text, environ=ENV)

    assert message in str(caught.value)


def test_an_error_in_a_json_entry_never_shows_its_key() -> None:
    text = '[{"url": "http://a:1", "api_key": "sk-secret"}]'

    with pytest.raises(ValueError) as caught:
        parse_endpoints(text, environ=ENV)

    assert "sk-secret" not in str(caught.value)


def test_it_builds_the_backend_a_spec_names() -> None:
    http = client_from_config("http", endpoints="http://a:1|m,http://b:1|m", environ=ENV)
    local = client_from_config("transformers:smollm2")

    assert isinstance(http, HTTPChat)
    assert [e.base_url for e in http.endpoints] == ["http://a:1", "http://b:1"]
    assert isinstance(local, TransformersChat)
    assert local.name == "SmolLM2-135M-Instruct"


def test_a_checkpoint_directory_alone_is_a_local_model(tiny_model_dir: Path) -> None:
    # A training run's checkpoint is a model directory: `--model DIR` needs no prefix.
    local = client_from_config(str(tiny_model_dir))

    assert isinstance(local, TransformersChat)
    assert local.context_window() == 512  # read from the checkpoint's own config


@pytest.mark.parametrize("spec", ["", "openai", "transformers", "transformers:", "vllm", "http:x"])
def test_an_unknown_backend_spec_lists_the_known_ones(spec: str) -> None:
    with pytest.raises(
        ValueError, match=r"use 'http', 'transformers:<model directory or smollm2>'"
    ):
        client_from_config(spec)


def test_vllm_without_the_gpu_extra_says_how_to_install_it() -> None:
    with pytest.raises(LLMError, match=r"install the gpu extra \(pip install -e '\.\[gpu\]'\)"):
        client_from_config("vllm:Qwen/Qwen3-0.6B")
