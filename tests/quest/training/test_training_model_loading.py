"""Models loaded in a process whose threads load models too (issue 36). transformers'
`from_pretrained` swaps `PreTrainedModel.tie_weights` for a no-op while it builds a model, so two
loads at once in two threads could leave the no-op in place for good: every model loaded after
that lost the weights it ties, and the loop's evaluation refused SmolLM2 (its `lm_head.weight` is
its input embeddings). A checkpoint that really lacks a weight is still refused."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from training_helpers import TASKS, build_corpus, write_jsonl

from quest.llm.local import ModelSource, _load
from quest.llm.types import LLMError
from quest.loop.config import parse_loop_config
from quest.loop.data_stages import paths
from quest.loop.runs import evaluate_stage
from quest.search.indexing import dense_build
from quest.tools.offline import offline_toolbox
from quest.training.models import load_model, smollm2_tokenizer

# The agents of a GRPO step (num_generations) or of an evaluation wave, searching at once.
SEARCHERS = 4


@pytest.fixture
def tying() -> Iterator[Any]:
    """transformers' own tie_weights, put back after the test should the code under test lose
    it: every test after it would load untied models."""
    from transformers import PreTrainedModel

    original = PreTrainedModel.tie_weights
    yield original
    PreTrainedModel.tie_weights = original  # type: ignore[method-assign]


def test_the_loops_evaluation_loads_smollm2_after_agents_in_threads_searched_at_once(
    tmp_path: Path, tying: Any
) -> None:
    """As in the loop: GRPO's rollouts search a corpus with a dense index from their threads
    (the first searches load the encoder), then the evaluation loads SmolLM2 from its GGUF file
    and runs a held-out task."""
    from transformers import PreTrainedModel

    corpus = build_corpus(tmp_path / "corpus")
    dense_build(corpus)
    toolbox = offline_toolbox(corpus)
    start = threading.Barrier(SEARCHERS)

    def search(_: int) -> str:
        start.wait()
        result = toolbox.call("search", {"query": ["capital of Australia"]})
        assert result.ok, result.error
        return result.text

    with ThreadPoolExecutor(SEARCHERS) as pool:
        found = list(pool.map(search, range(SEARCHERS)))
    assert all("Canberra" in text for text in found)

    directory = tmp_path / "loop"
    heldout = paths(directory)["heldout"]
    heldout.parent.mkdir(parents=True)
    write_jsonl(heldout, TASKS[:1])
    config = parse_loop_config(
        {
            "model": "smollm2",
            "eval": {"tasks": 1, "family_tasks": 0, "batch": 1},
            "rollout": {"max_turns": 1, "max_turn_tokens": 8, "max_session_tokens": 16},
        }
    )
    lines: list[str] = []
    outputs = evaluate_stage(
        directory, config, corpus, {"base": "smollm2"}, {}, lambda _: None, lines.append
    )

    assert outputs["models"]["base"]["n"] == 1, lines
    report = json.loads((directory / "eval" / "base.json").read_text(encoding="utf-8"))
    assert report["model"] == "smollm2" and len(report["scores"]) == 1
    assert PreTrainedModel.tie_weights is tying


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """SmolLM2's tokenizer, converted from its GGUF file once for the module (15 s a time)."""
    return smollm2_tokenizer()


def tiny(folder: Path, tokenizer: Any, *, tied: bool, drop: tuple[str, ...] = ()) -> Path:
    """A one-layer Llama, its lm_head its input embeddings when `tied` (as SmolLM2's), saved
    in `folder` with the weights of `drop` left out of its file."""
    import torch
    from safetensors.torch import load_file, save_file
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        tie_word_embeddings=tied,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    assert (model.lm_head.weight is model.model.embed_tokens.weight) == tied
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    weights = load_file(str(folder / "model.safetensors"))
    # A tied weight is saved once, as the input embeddings.
    assert ("lm_head.weight" in weights) != tied
    for name in drop:
        del weights[name]
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


def test_tied_embeddings_are_tied_even_where_transformers_ties_nothing(
    tmp_path: Path, tokenizer: Any, tying: Any
) -> None:
    """What a load in another thread can leave behind: transformers' tying is a no-op. Both
    loaders (training and evaluation's, the chat's) tie the checkpoint's declared weights."""
    import torch
    from safetensors.torch import load_file
    from transformers.initialization import no_tie_weights

    folder = tiny(tmp_path / "tied", tokenizer, tied=True)
    embeddings = load_file(str(folder / "model.safetensors"))["model.embed_tokens.weight"]
    with no_tie_weights():
        model, _ = load_model(str(folder))
        chat = _load(ModelSource(folder)).model
    for loaded in (model, chat):
        assert loaded.lm_head.weight is loaded.model.embed_tokens.weight
        assert torch.equal(loaded.lm_head.weight, embeddings)


def test_a_tied_weight_whose_source_is_missing_too_is_refused(
    tmp_path: Path, tokenizer: Any
) -> None:
    folder = tiny(tmp_path / "tied", tokenizer, tied=True, drop=("model.embed_tokens.weight",))
    with pytest.raises(LLMError, match=r"lm_head\.weight, model\.embed_tokens\.weight"):
        load_model(str(folder))
    with pytest.raises(LLMError, match=r"model\.embed_tokens\.weight"):
        _load(ModelSource(folder))


def test_an_untied_checkpoint_without_its_lm_head_is_refused_by_both_loaders(
    tmp_path: Path, tokenizer: Any
) -> None:
    """The config does not tie lm_head: its weights cannot come from anywhere else, so the
    model is refused rather than given a random head."""
    folder = tiny(tmp_path / "untied", tokenizer, tied=False, drop=("lm_head.weight",))
    with pytest.raises(LLMError, match=r"the weights of lm_head\.weight are missing"):
        load_model(str(folder))
    with pytest.raises(LLMError, match=r"lm_head\.weight"):
        _load(ModelSource(folder))
