"""Batched decoding of agent turns on the model's own forward pass, for a batch sampler whose
rows end at different times (quest.training.agent_rollouts.BatchSampler).

Transformers' `generate` keeps every row of a batch until the last one ends and stops a row
only at its end-of-sequence token. Here a row leaves the batch as soon as it is done, and its
cached keys and values go with it, so a batch where most turns are short costs what the short
turns cost; and a row is done at the end of its turn in QUEST's protocol: the first complete
`</tool_call>` or `</answer>` outside its thinking (what an agent server's stop sequences do),
its end-of-sequence token, or its room. Text after a closed tool call or answer is never run
or read (quest.protocol.turns), so cutting it changes no action and saves its tokens.

Greedy at temperature 0; otherwise sampling from the full distribution at the temperature,
with each sampled token's log-probability under that distribution (what a GRPO importance
ratio starts from). Left padding; positions count from each row's first real token.

**Prefix reuse.** An agent session's next turn is its last turn's ids plus what the loop added
(tool output, the next header). With a `Prefixes` store, a row that ends keeps the keys and
values of every token it fed, and a later row whose ids start with them feeds only the rest: its
cached part sits right-aligned in the batch's cache block and its new tokens left-padded after
it, the gap masked, so positions and attention are what a fresh prefill gives. The store is for
one set of weights: make a new one when the weights change (a BatchSampler lives for one
step's rollouts or one evaluation).

**Chunked prefill.** The first forward pass feeds at most `PREFILL_CHUNK` new tokens a row at a
time, the cache growing chunk by chunk. Attention on a CPU materialises a score block of rows by
heads by fed tokens by context: for twelve sessions prefilling 3,300 tokens at once that is
12 x 9 x 3,300 x 3,300 floats, 4.7 GB in one layer, where 256-token chunks need 0.4 GB. Each
chunk sees exactly the keys a whole prefill would, so the tokens are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quest.protocol.turns import split_think

CLOSERS = ("</tool_call>", "</answer>")
PREFILL_CHUNK = 256  # new tokens fed per forward pass of a prefill


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


@dataclass
class _Prefix:
    ids: list[int]  # the tokens whose keys and values are kept
    layers: list[tuple[Any, Any]]  # per layer (keys, values), each [heads, len(ids), dim]


@dataclass
class Prefixes:
    """The keys and values of the rows the last decode ended, for the turns that continue them.
    Only the last decode's rows are kept: every session still running asks again next round, so
    older entries could only be stale. `reused` and `fed` count tokens, for the metrics."""

    entries: list[_Prefix] = field(default_factory=list)
    reused: int = 0
    fed: int = 0
    enabled: bool = True  # False: nothing kept, every turn prefilled whole (a benchmark's baseline)

    def longest(self, ids: list[int]) -> _Prefix | None:
        """The longest kept prefix of `ids` that leaves at least one token to feed."""
        best = None
        for entry in self.entries:
            size = len(entry.ids)
            longer = best is None or size > len(best.ids)
            if size < len(ids) and longer and ids[:size] == entry.ids:
                best = entry
        return best


def decode_batch(
    model: Any,
    rows: Sequence[tuple[list[int], int]],
    *,
    eos: int,
    pad: int,
    temperature: float,
    logprobs: bool,
    text_of: Callable[[list[int]], str],
    prefixes: Prefixes | None = None,
    chunk: int = PREFILL_CHUNK,
) -> list[tuple[list[int], list[float]]]:
    """For each (prompt ids, room) row: the sampled ids (ending at the end of the turn, at most
    `room`) and their log-probs (zeros when `logprobs` is False). `text_of` decodes ids.
    With `prefixes`, rows continue from kept keys and values and leave theirs for the next.
    The prefill feeds at most `chunk` new tokens per forward pass."""
    import torch

    device = model.device
    found = [prefixes.longest(ids) if prefixes is not None else None for ids, _ in rows]
    inputs, mask, positions, cache = _first_feed(rows, found, pad, device)
    with torch.no_grad():
        inputs, positions, cache = _prefill(model, inputs, mask, positions, cache, max(1, chunk))
    if prefixes is not None:
        reused = sum(len(p.ids) for p in found if p is not None)
        prefixes.reused += reused
        prefixes.fed += sum(len(ids) for ids, _ in rows) - reused
    kept: list[_Prefix] = []
    out = [_Row(room) for _, room in rows]
    live = list(range(len(rows)))  # rows still decoding, in the batch's order
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
                elif (
                    prefixes is not None and prefixes.enabled
                ):  # all it fed: its prompt and its tokens but the last
                    kept.append(_keep(cache, mask, slot, rows[index][0] + row.ids[:-1]))
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
    if prefixes is not None:
        prefixes.entries = kept
    return [(row.ids, row.logprobs) for row in out]


def _prefill(
    model: Any, inputs: Any, mask: Any, positions: Any, cache: Any, chunk: int
) -> tuple[Any, Any, Any]:
    """Feeds all but the last `chunk` new tokens into the cache, `chunk` at a time; what is left
    is fed by the decoding loop's first pass, whose logits pick the first token."""
    from transformers import DynamicCache

    width = mask.shape[1] - inputs.shape[1]  # kept keys and values before the new tokens
    if cache is None:
        cache = DynamicCache()
    while inputs.shape[1] > chunk:
        model(
            input_ids=inputs[:, :chunk],
            attention_mask=mask[:, : width + chunk],
            position_ids=positions[:, :chunk],
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        inputs, positions, width = inputs[:, chunk:], positions[:, chunk:], width + chunk
    return inputs, positions, cache


def _first_feed(
    rows: Sequence[tuple[list[int], int]], found: list[_Prefix | None], pad: int, device: Any
) -> tuple[Any, Any, Any, Any]:
    """The first forward pass's input ids, attention mask, positions and cache: each row's kept
    prefix right-aligned in the cache block, the rest of its ids left-padded after it."""
    import torch
    from transformers import DynamicCache

    width = max((len(p.ids) for p in found if p is not None), default=0)
    new = [
        ids[len(p.ids) :] if p is not None else ids for (ids, _), p in zip(rows, found, strict=True)
    ]
    room = max(len(ids) for ids in new)
    inputs = torch.tensor([[pad] * (room - len(ids)) + ids for ids in new], device=device)
    mask = torch.tensor(
        [
            [0] * (width - (len(p.ids) if p else 0))
            + [1] * (len(p.ids) if p else 0)
            + [0] * (room - len(ids))
            + [1] * len(ids)
            for ids, p in zip(new, found, strict=True)
        ],
        device=device,
    )
    positions = (mask.cumsum(dim=1) - 1).clamp(min=0)[:, width:]
    if not width:
        return inputs, mask, positions, None
    some = next(p for p in found if p is not None)
    layers = []
    for layer, (keys, values) in enumerate(some.layers):
        heads, _, dim = keys.shape
        block_k = keys.new_zeros(len(rows), heads, width, dim)
        block_v = values.new_zeros(len(rows), values.shape[0], width, values.shape[2])
        for row, p in enumerate(found):
            if p is not None:
                size = len(p.ids)
                block_k[row, :, width - size :] = p.layers[layer][0]
                block_v[row, :, width - size :] = p.layers[layer][1]
        layers.append((block_k, block_v))
    return inputs, mask, positions, DynamicCache(layers)


def _keep(cache: Any, mask: Any, slot: int, ids: list[int]) -> _Prefix:
    """A row's keys and values without the batch's padding."""
    columns = mask[slot].bool()
    layers = [
        (layer.keys[slot][:, columns].clone(), layer.values[slot][:, columns].clone())
        for layer in cache.layers
    ]
    return _Prefix(ids, layers)


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
