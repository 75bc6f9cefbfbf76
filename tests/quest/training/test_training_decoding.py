"""Batched turn decoding (quest.training.decoding): rows leave the batch when their turn ends,
and what each row gets is what it would get decoded alone, by transformers' own generate."""

from __future__ import annotations

from typing import Any

import pytest

from quest.training.decoding import decode_batch, turn_complete
from quest.training.models import tiny_model


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ('<tool_call>{"name": "search", "arguments": {}}</tool_call>', True),
        ("<think>plan</think><answer>Paris [1]</answer>", True),
        ("<think>I will write </tool_call> later", False),  # inside an unclosed think
        ("<think>a </answer> b</think> now", False),  # a closer only inside thinking
        ("plan</think><tool_call>{}</tool_call>", True),  # think opened by the template
        ("<tool_call>{", False),
        ("", False),
    ],
)
def test_a_turn_is_complete_at_a_closed_call_or_answer_outside_its_thinking(
    text: str, complete: bool
) -> None:
    assert turn_complete(text) is complete


def _alone(model: Any, tokenizer: Any, ids: list[int], room: int) -> list[int]:
    import torch

    out = model.generate(
        torch.tensor([ids]),
        attention_mask=torch.ones(1, len(ids), dtype=torch.long),
        max_new_tokens=room,
        do_sample=False,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
    )
    return [int(t) for t in out[0, len(ids) :]]


def test_greedy_rows_get_what_generate_gives_each_alone_while_rows_leave_at_their_room(
    smollm2_tokenizer: Any,
) -> None:
    model = tiny_model(smollm2_tokenizer, seed=3).eval()
    rows = [([5, 9, 200, 31, 7, 1000], 2), ([44, 45], 9), ([300, 301, 302, 12], 5)]
    decoded = decode_batch(
        model,
        rows,
        eos=int(smollm2_tokenizer.eos_token_id),
        pad=0,
        temperature=0.0,
        logprobs=True,
        text_of=lambda ids: str(smollm2_tokenizer.decode(ids)),
    )
    for (ids, room), (sampled, logprobs) in zip(rows, decoded, strict=True):
        assert sampled == _alone(model, smollm2_tokenizer, ids, room)[: len(sampled)]
        assert len(sampled) == room or sampled[-1] == smollm2_tokenizer.eos_token_id
        assert len(logprobs) == len(sampled) and all(lp <= 0 for lp in logprobs)


def test_a_row_stops_at_the_end_of_its_turn_and_the_others_go_on(smollm2_tokenizer: Any) -> None:
    model = tiny_model(smollm2_tokenizer, seed=4).eval()
    rows = [([11, 12, 13], 8), ([21, 22, 23], 8)]
    first_row = {"ids": None}

    def text_of(ids: list[int]) -> str:
        # The first row's third token closes its answer; the second row never closes a turn.
        if first_row["ids"] is None and len(ids) == 1:
            first_row["ids"] = ids
        if len(ids) == 3 and ids[0] == first_row["ids"][0]:
            return "<answer>x</answer>"
        return "<answer>x>" if len(ids) == 1 else "still thinking >"

    decoded = decode_batch(
        model, rows, eos=-1, pad=0, temperature=0.0, logprobs=False, text_of=text_of
    )
    assert len(decoded[0][0]) == 3, "the first row ends at its closed answer"
    assert len(decoded[1][0]) == 8, "the second goes on to its room"
    assert decoded[1][0] == _alone(model, smollm2_tokenizer, [21, 22, 23], 8)
    assert decoded[0][1] == [0.0, 0.0, 0.0], "no log-probs asked for"


def test_sampling_gives_each_token_its_log_prob_under_the_tempered_distribution(
    smollm2_tokenizer: Any,
) -> None:
    import torch

    torch.manual_seed(0)
    model = tiny_model(smollm2_tokenizer, seed=5).eval()
    ids = [7, 8, 9, 10]
    ((sampled, logprobs),) = decode_batch(
        model,
        [(ids, 6)],
        eos=-1,
        pad=0,
        temperature=0.7,
        logprobs=True,
        text_of=lambda ids: str(smollm2_tokenizer.decode(ids)),
    )
    with torch.no_grad():
        logits = model(torch.tensor([ids + sampled])).logits[0, len(ids) - 1 : -1] / 0.7
    expected = torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(sampled)[:, None])
    assert logprobs == pytest.approx(expected[:, 0].tolist(), abs=1e-4)


def _decode(model: Any, tokenizer: Any, rows: Any, prefixes: Any = None, chunk: int = 256) -> Any:
    return decode_batch(
        model,
        rows,
        eos=int(tokenizer.eos_token_id),
        pad=0,
        temperature=0.0,
        logprobs=True,
        text_of=lambda ids: str(tokenizer.decode(ids)),
        prefixes=prefixes,
        chunk=chunk,
    )


def test_a_next_turn_fed_from_kept_keys_and_values_decodes_as_a_fresh_prefill(
    smollm2_tokenizer: Any,
) -> None:
    """Three sessions' second turn (their first turn's ids plus a tool response of a different
    length each) and a new session in the same batch: with the kept prefixes only the added
    tokens are fed, and the greedy tokens and their log-probs are a fresh prefill's."""
    from quest.training.decoding import Prefixes

    model = tiny_model(smollm2_tokenizer, seed=6).eval()
    prefixes = Prefixes()
    first = [([5, 9, 200, 31, 7, 1000], 4), ([44, 45], 7), ([300, 301, 302, 12], 5)]
    turns = _decode(model, smollm2_tokenizer, first, prefixes)
    assert len(prefixes.entries) == 3 and prefixes.reused == 0
    before = prefixes.fed
    added = [[17, 18, 19], [250], [60, 61, 62, 63, 64, 65, 66]]
    second = [
        (ids + sampled + extra, 6)
        for (ids, _), (sampled, _), extra in zip(first, turns, added, strict=True)
    ] + [([900, 901, 902], 6)]
    cached = _decode(model, smollm2_tokenizer, second, prefixes)
    fresh = _decode(model, smollm2_tokenizer, second)
    assert [ids for ids, _ in cached] == [ids for ids, _ in fresh]
    for (_, kept), (_, plain) in zip(cached, fresh, strict=True):
        assert kept == pytest.approx(plain, abs=1e-4)
    # Each continued row fed only its last sampled token and the tool response.
    assert prefixes.reused == sum(
        len(ids) + len(sampled) - 1 for (ids, _), (sampled, _) in zip(first, turns, strict=True)
    )
    assert prefixes.fed - before == sum(len(extra) + 1 for extra in added) + 3


def test_a_kept_prefix_is_used_only_for_the_ids_it_starts() -> None:
    from quest.training.decoding import Prefixes, _Prefix

    prefixes = Prefixes([_Prefix([1, 2, 3], []), _Prefix([1, 2], []), _Prefix([7, 8], [])])
    assert prefixes.longest([1, 2, 3, 4]).ids == [1, 2, 3]
    assert prefixes.longest([1, 2, 9]).ids == [1, 2]
    assert prefixes.longest([1, 2, 3]).ids == [1, 2], "at least one token is left to feed"
    assert prefixes.longest([7, 9]) is None


def test_a_prefill_fed_in_chunks_decodes_as_one_fed_whole(smollm2_tokenizer: Any) -> None:
    """Chunks of 3 new tokens (rows of 2 to 11, left-padded, one continuing a kept prefix):
    the greedy tokens and their log-probs are those of the whole prefill."""
    from quest.training.decoding import Prefixes

    model = tiny_model(smollm2_tokenizer, seed=7).eval()
    prefixes = Prefixes()
    first = [([5, 9, 200, 31, 7, 1000, 4, 4, 81, 90, 91], 4), ([44, 45], 5)]
    turns = _decode(model, smollm2_tokenizer, first, prefixes)
    second = [
        (first[0][0] + turns[0][0] + [17, 18, 19, 20, 21, 22, 23], 5),
        ([300, 301, 302, 12, 13, 14, 15, 16], 5),
    ]
    whole = _decode(model, smollm2_tokenizer, second)
    for chunk in (1, 3, 4):
        kept = Prefixes(list(prefixes.entries))
        chunked = _decode(model, smollm2_tokenizer, second, kept, chunk)
        assert kept.reused > 0, "the first row continued its kept prefix"
        assert [ids for ids, _ in chunked] == [ids for ids, _ in whole]
        for (_, got), (_, want) in zip(chunked, whole, strict=True):
            assert got == pytest.approx(want, abs=1e-4)


def test_the_heap_is_bounded_and_trimmed_on_glibc() -> None:
    import platform

    from quest.training.heap import bound, trim

    trim()  # never fails, wherever it runs
    if platform.libc_ver()[0] == "glibc":
        assert bound() is True
