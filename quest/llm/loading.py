"""Loading models in this process: safely in threads, and without spinning OpenMP threads.

`from_pretrained` is not thread-safe. While it builds a model it swaps
`PreTrainedModel.tie_weights` for a no-op (transformers.initialization.no_tie_weights) and puts
back what it found there when it is done. Two loads in two threads interleave: the second one
finds the no-op, keeps it as "the original" and, finishing last, leaves it in place for the rest
of the process. Every model loaded after that keeps the weights it ties untied: SmolLM2's
`lm_head.weight`, which its files leave to the input embeddings, stays at random (issue 36: the
loop's agents in threads loaded the search encoder all at once, and the evaluation that
followed refused the base model).

So every loader in questweb loads under MODEL_LOADING, and `complete_weights` ties what a
model declares tied even where transformers' own tying has been switched off that way (by a load
in a thread of some other library), then refuses a model that still lacks a weight.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

from quest.llm.types import LLMError

# Reentrant: a loader may call another loader while it holds it.
MODEL_LOADING = threading.RLock()


def prefer_passive_openmp() -> None:
    """Let idle OpenMP threads sleep instead of spinning, unless the user chose otherwise.

    torch and faiss each start OpenMP thread pools whose idle threads spin by default. On a
    busy 2-core machine (a web process and a worker side by side) the spinning threads fight
    the working ones: one query embedding measured 670 ms instead of 20 ms. Read once, when the
    OpenMP runtime loads, so this runs before the first import of torch or faiss.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def tie_declared(model: Any, missing: Iterable[str]) -> set[str]:
    """The weights of `missing` (loading info's missing_keys) still missing once every one that
    the model ties to another weight (its `all_tied_weights_keys`, which transformers fills
    from `_tied_weights_keys` only when the config's `tie_word_embeddings` is on) is made that
    very tensor, provided that one was loaded. A weight the config does not tie, or whose
    source is missing too, stays missing: loaded anyway, it would be random."""
    left = set(missing)
    tied: dict[str, str] = dict(getattr(model, "all_tied_weights_keys", None) or {})
    for target, source in tied.items():
        if target not in left or source in left:
            continue
        parent, _, name = target.rpartition(".")
        setattr(model.get_submodule(parent) if parent else model, name, model.get_parameter(source))
        if model.get_parameter(target) is model.get_parameter(source):
            left.discard(target)
    return left


def complete_weights(path: Any, model: Any, info: dict[str, Any]) -> None:
    """A checkpoint that lacks weights its config needs loads with them newly initialised
    (random): every answer or evaluation turn of the model would be noise. Refused instead,
    naming them; the weights the model ties to loaded ones are tied first."""
    missing = sorted(tie_declared(model, info.get("missing_keys") or ()))
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise LLMError(
            f"{path}: the weights of {shown} are missing; loading it would initialise them "
            "at random (a checkpoint saved with tied embeddings needs tie_word_embeddings "
            "in its config.json)"
        )
