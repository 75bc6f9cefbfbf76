"""In-process generation with vLLM on a GPU worker (the `gpu` extra).

vLLM is imported when a `VLLMChat` is built, never at module import, so the web process and the
CPU workers can import this module without it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import Any

from quest.llm.types import ChatBackend, Completion, LLMError, Message, Settings
from quest.llm.window import fit_reply

DEFAULT_MAX_TOKENS = 512


class VLLMChat(ChatBackend):
    """An LLMClient over `vllm.LLM(model=...).chat(...)`; greedy unless a temperature is given.
    A turn asks for at most what the engine's window leaves after the prompt.

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

    def context_window(self) -> int:
        """The engine's `max_model_len` (the model's, or what `engine_args` cut it to)."""
        return int(self._llm.llm_engine.model_config.max_model_len)

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        chat = [dict(m) for m in messages]
        template = self._llm.get_tokenizer().apply_chat_template
        return len(template(chat, add_generation_prompt=True, return_dict=False))

    def _complete(self, messages: Sequence[Message], settings: Settings) -> Completion:
        params = self._vllm.SamplingParams(
            max_tokens=fit_reply(
                settings.max_tokens,
                window=self.context_window(),
                prompt_tokens=self.prompt_tokens(messages),
                model=self.model,
            ),
            stop=list(settings.stop) or None,
            # vLLM samples greedily at temperature 0.
            temperature=settings.temperature or 0.0,
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
