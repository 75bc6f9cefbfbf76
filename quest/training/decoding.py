"""Batched decoding of agent turns on the model's own forward pass, for a batch sampler whose
rows end at different times (quest.training.agent_rollouts.BatchSampler).

Transformers' `generate` keeps every row of a batch until the last one ends and stops a row
only at its end-of-sequence token. Here a row leaves the batch as soon as it is done, and its
cached keys and values go with it, so a batch where most turns are short costs what the short
turns cost; and a row is done at the end of its turn in QUEST's protocol: the first complete
`</tool_call>` or `</answer>` outside its thinking (what an agent server's stop sequences do),
its end-of-sequence token, or its room. Text after a closed tool call or answer is never run
or read (quest.agent.protocol), so cutting it changes no action and saves its tokens.

Greedy at temperature 0; otherwise sampling from the full distribution at the temperature,
with each sampled token's log-probability under that distribution (what a GRPO importance
ratio starts from). Left padding; positions count from each row's first real token.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.agent.protocol import split_think

CLOSERS = ("</tool_call>", "</answer>")


def turn_complete(text: str) -> bool:
    """Whether a turn's text already holds a closed tool call or answer outside its thinking."""
    if not any(closer in text for closer in CLOSERS):
        return False
    _, body, problem = split_think(text)
    return not problem and any(closer in body for closer in CLOSERS)


@dataclass
class _Row:
    room: int
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)


def decode_batch(
    model: Any,
    rows: Sequence[tuple[list[int], int]],
    *,
    eos: int,
    pad: int,
    temperature: float,
    logprobs: bool,
    text_of: Callable[[list[int]], str],
) -> list[tuple[list[int], list[float]]]:
    """For each (prompt ids, room) row: the sampled ids (ending at the end of the turn, at most
    `room`) and their log-probs (zeros when `logprobs` is False). `text_of` decodes ids."""
    import torch

    device = model.device
    width = max(len(ids) for ids, _ in rows)
    inputs = torch.tensor([[pad] * (width - len(ids)) + ids for ids, _ in rows], device=device)
    mask = torch.tensor(
        [[0] * (width - len(ids)) + [1] * len(ids) for ids, _ in rows], device=device
    )
    positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
    out = [_Row(room) for _, room in rows]
    live = list(range(len(rows)))  # rows still decoding, in the batch's order
    cache = None
    with torch.no_grad():
        while live:
            step = model(
                input_ids=inputs,
                attention_mask=mask,
                position_ids=positions,
                past_key_values=cache,
                use_cache=True,
                logits_to_keep=1,
            )
            cache = step.past_key_values
            chosen, chosen_logprobs = _pick(step.logits[:, -1, :].float(), temperature, logprobs)
            keep: list[int] = []
            for slot, index in enumerate(live):
                row, token = out[index], int(chosen[slot])
                row.ids.append(token)
                row.logprobs.append(float(chosen_logprobs[slot]) if logprobs else 0.0)
                if not _done(row, token, eos, text_of):
                    keep.append(slot)
            if not keep:
                break
            if len(keep) < len(live):
                selected = torch.tensor(keep, device=device)
                cache.batch_select_indices(selected)
                mask, positions, chosen = mask[selected], positions[selected], chosen[selected]
                live = [live[slot] for slot in keep]
            inputs = chosen.unsqueeze(1)
            mask = torch.cat([mask, mask.new_ones(len(live), 1)], dim=1)
            positions = positions[:, -1:] + 1
    return [(row.ids, row.logprobs) for row in out]


def _pick(logits: Any, temperature: float, logprobs: bool) -> tuple[Any, Any]:
    import torch

    if temperature <= 0:
        chosen = logits.argmax(dim=-1)
        if not logprobs:
            return chosen, None
        return chosen, logits.log_softmax(dim=-1).gather(1, chosen.unsqueeze(1)).squeeze(1)
    scaled = (logits / temperature).log_softmax(dim=-1)
    chosen = torch.multinomial(scaled.exp(), num_samples=1).squeeze(1)
    return chosen, scaled.gather(1, chosen.unsqueeze(1)).squeeze(1)


def _done(row: _Row, token: int, eos: int, text_of: Callable[[list[int]], str]) -> bool:
    if token == eos or len(row.ids) >= row.room:
        return True
    return ">" in text_of(row.ids[-1:]) and turn_complete(text_of(row.ids))
