from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from quest.corpus.store import CorpusStore
from quest.training import (
    DatasetError,
    MidBuilder,
    SFTBuilder,
    read_jsonl,
    read_rollouts,
    read_tasks,
    tokenize_messages,
    tokenize_row,
)

END = "<|im_end|>\n"  # SmolLM2's ChatML end of turn


@pytest.fixture(scope="module")
def sft_row(rollouts_file: Path, tasks_file: Path, corpus: Path) -> dict[str, Any]:
    builder = SFTBuilder(tasks=read_tasks(tasks_file), store=CorpusStore(corpus))
    rows = list(builder.rows(read_rollouts(read_jsonl(rollouts_file))))
    return next(row for row in rows if row["session"] == 1)


def test_the_loss_mask_covers_the_model_turns_and_their_end_of_turn_only(
    smollm2_tokenizer: Any, sft_row: dict[str, Any]
) -> None:
    tokens = tokenize_row(smollm2_tokenizer, sft_row)
    plain = [{"role": m["role"], "content": m["content"]} for m in sft_row["messages"]]
    expected = smollm2_tokenizer.apply_chat_template(plain, tokenize=True, return_dict=True)
    assert tokens.input_ids == list(expected["input_ids"])
    assert len(tokens.loss_mask) == len(tokens.input_ids)
    trained = [t for t, m in zip(tokens.input_ids, tokens.loss_mask, strict=True) if m]
    turns = [m["content"] + END for m in sft_row["messages"] if m["loss"]]
    assert smollm2_tokenizer.decode(trained) == "".join(turns)
    untrained = [t for t, m in zip(tokens.input_ids, tokens.loss_mask, strict=True) if not m]
    text = smollm2_tokenizer.decode(untrained)
    assert "<tool_response>" in text and "<|im_start|>assistant\n" in text
    assert not any(m["content"] in text for m in sft_row["messages"] if m["loss"])


def test_a_mid_training_row_trains_on_its_target_alone(
    smollm2_tokenizer: Any, rollouts_file: Path, corpus: Path
) -> None:
    builder = MidBuilder(store=CorpusStore(corpus))
    row = next(builder.rows(read_rollouts(read_jsonl(rollouts_file))))
    tokens = tokenize_row(smollm2_tokenizer, row)
    trained = [t for t, m in zip(tokens.input_ids, tokens.loss_mask, strict=True) if m]
    assert smollm2_tokenizer.decode(trained) == row["messages"][-1]["content"] + END
    assert tokens.trained == len(trained)


def test_a_template_that_rewrites_earlier_turns_is_refused(smollm2_tokenizer: Any) -> None:
    rewriting = copy.deepcopy(smollm2_tokenizer)
    # Like templates that drop the thinking of earlier turns: the last assistant turn is
    # rendered differently from the same turn followed by more messages.
    rewriting.chat_template = (
        "{% for m in messages %}{% if loop.last %}<last>{% endif %}"
        "{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant: {% endif %}"
    )
    messages = [
        {"role": "user", "content": "Q", "loss": False},
        {"role": "assistant", "content": "A", "loss": True},
        {"role": "user", "content": "more", "loss": False},
    ]
    with pytest.raises(DatasetError, match="extension"):
        tokenize_messages(rewriting, messages)
