"""A dataset row through a tokenizer's chat template: token ids and a per-token loss mask.

The mask is 1 on the tokens of the messages flagged `loss` (the model's turns): each such
message's content and the template's end-of-turn text after it (for ChatML, `<|im_end|>\\n`),
so the model learns to stop; the role header before it is prompt. Spans are found by rendering
the conversation a message at a time, which works for any template that renders a longer
conversation as an extension of a shorter one, with or without `{% generation %}` markers; a
template that does not is refused. Needs a fast tokenizer (character offsets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quest.training.records import DatasetError


@dataclass(frozen=True)
class Tokenized:
    input_ids: list[int]
    loss_mask: list[int]

    @property
    def trained(self) -> int:
        return sum(self.loss_mask)


def tokenize_row(tokenizer: Any, row: Mapping[str, Any]) -> Tokenized:
    """Tokenize a row of the SFT or mid-training set (its `messages`)."""
    return tokenize_messages(tokenizer, row["messages"])


def tokenize_messages(tokenizer: Any, messages: Sequence[Mapping[str, Any]]) -> Tokenized:
    plain = [{"role": m["role"], "content": m["content"]} for m in messages]
    text = _render(tokenizer, plain)
    spans = [_span(tokenizer, plain, i, text) for i, m in enumerate(messages) if m.get("loss")]
    try:
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    except NotImplementedError:
        raise DatasetError("the tokenizer gives no character offsets (use a fast one)") from None
    mask = [int(any(a <= start < b for a, b in spans)) for start, _ in encoded["offset_mapping"]]
    return Tokenized(list(encoded["input_ids"]), mask)


def _span(tokenizer: Any, plain: list[dict[str, str]], index: int, text: str) -> tuple[int, int]:
    """Where message `index`'s trained text lies in `text`: after the role header the template
    writes when asked for a generation, up to the end of the message."""
    before = _render(tokenizer, plain[:index], generation=True)
    through = _render(tokenizer, plain[: index + 1])
    if not (through.startswith(before) and text.startswith(through)):
        raise DatasetError(
            "the chat template does not render a conversation as an extension of its beginning"
        )
    return len(before), len(through)


def _render(tokenizer: Any, messages: list[dict[str, str]], *, generation: bool = False) -> str:
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation)
    return str(text)
