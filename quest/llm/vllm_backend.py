"""In-process generation with vLLM on a GPU worker (the `gpu` extra).

vLLM is imported when a `VLLMChat` is built, never at module import, so the web process and the
CPU workers can import this module without it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

from quest.llm.types import Completion, LLMError, Message

DEFAULT_MAX_TOKENS = 512


class VLLMChat:
    """An LLMClient over `vllm.LLM(model=...).chat(...)`; greedy unless a temperature is given.

    `engine_args` go to `vllm.LLM` unchanged (gpu_memory_utilization, tensor_parallel_size, ...).
    """

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
        **engine_args: Any,
    ) -> None:
        try:
            # import_module rather than `import vllm`: vLLM is absent from CPU machines, where
            # mypy runs too.
            self._vllm: Any = importlib.import_module("vllm")
        except ImportError as exc:
            raise LLMError(
                f"vllm:{model} needs vLLM, which is not installed: install the gpu extra "
                f"(pip install -e '.[gpu]') on a CUDA machine ({exc})"
            ) from exc
        self.model = model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._llm = self._vllm.LLM(model=model, **engine_args)
        # One vllm.LLM engine runs one batch at a time; callers on other threads wait their turn.
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.model

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
        temperature = self.temperature if temperature is None else temperature
        params = self._vllm.SamplingParams(
            max_tokens=self.max_tokens if max_tokens is None else max_tokens,
            stop=list(stop) if stop else None,
            # vLLM samples greedily at temperature 0.
            temperature=temperature or 0.0,
        )
        with self._lock:
            outputs = self._llm.chat([dict(m) for m in messages], params, use_tqdm=False)
        request = outputs[0]
        choice = request.outputs[0]
        return Completion(
            text=choice.text,
            prompt_tokens=len(request.prompt_token_ids or ()),
            completion_tokens=len(choice.token_ids),
            model=self.model,
            finish_reason=choice.finish_reason or "stop",
            backend=f"vllm:{self.model}",
        )
