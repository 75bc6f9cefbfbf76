"""The rubric reward as an RL framework's reward function (QUEST-SPEC §2), for verl and TRL.

verl: point `custom_reward_function.path` at this file and `custom_reward_function.name` at
`compute_score`; the RL parquet of `python -m quest dataset rl` carries the rubric tree in
`reward_model.ground_truth`. TRL: pass `rubric_reward` in `reward_funcs`; the RL JSONL's
`ground_truth` column reaches it as a keyword argument.

The response is scored with quest.rubric.reward.answer_reward: R = 0.75·base +
0.25·valid_rate·clip(base, 0, 1), base the tree's root score. The answer is the response's last
closed `<answer>…</answer>` block outside `<think>` (quest.protocol.turns): a response without
one (tool calls only, an answer cut off before `</answer>`, plain text) has no answer and earns
0. Tags are read in lower case only, as the protocol reads them: an `<ANSWER>` inside the answer
is text of it, and answer_reward scores exactly the answer the protocol shows.

Cited pages are read from the corpus directory named by $QUESTWEB_CORPUS_DIR; without it,
citations cannot be checked (each is *unknown*, so valid_rate is 0 and R is at most 0.75) and a
leaf that reads the cited pages cannot run, which drops the task. There is no LLM judge here:
a tree with `judge` leaves that could change the score is dropped too (`python -m quest dataset
rl` leaves such tasks out of the RL set).

**Dropped responses.** QUEST-SPEC §2 drops a task whose verifier cannot run instead of scoring
it 0. Neither framework can drop one sample through a reward function, so:
- `compute_score` always returns a dict with the same keys (verl collects every key into
  `reward_extra_info`, so a key missing from one sample would misalign the lists):
  `score` (float), `dropped` (bool), `base`, `valid_rate`, `citation` (floats) and `reason`
  (str). verl writes `score` into the reward tensor and needs a finite number there: a dropped
  sample has `score` 0.0 and `dropped` True. A NaN would make the whole group's advantage NaN.
  A group in which every sample is dropped gets zero advantages, so it teaches nothing, as a
  dropped task should; mask `reward_extra_info["dropped"]` where a group is mixed.
- `rubric_reward` returns None for a dropped sample, TRL's value for "no reward": TRL logs the
  reward means without it (nanmean) but sums a row's rewards with nansum, so a row with only
  this reward function counts 0 in the advantage unless the trainer masks it.

Parsed trees (by ground-truth text) and the corpus store (by directory) are cached per process.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from quest.corpus.model import CorpusError
from quest.corpus.store import CorpusStore
from quest.protocol.turns import parse_turn
from quest.rubric.documents import DocumentStore
from quest.rubric.errors import RubricError
from quest.rubric.importers import loads_tree
from quest.rubric.reward import BASE_SHARE, Reward, answer_reward
from quest.rubric.score import CompiledTree, compile_tree

CORPUS_ENV = "QUESTWEB_CORPUS_DIR"
TREE_CACHE = 4_096

log = logging.getLogger(__name__)

__all__ = [
    "CORPUS_ENV",
    "compute_score",
    "corpus_store",
    "final_answer",
    "reward_components",
    "rubric_reward",
    "score_response",
    "score_with_tree",
]


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str | Mapping[str, Any],
    extra_info: Mapping[str, Any] | None = None,
    **_: object,
) -> dict[str, Any]:
    """verl's reward function: the rubric reward of `solution_str` against the tree in
    `ground_truth` (rubric JSON text, any shape quest.rubric imports). `data_source` and
    `extra_info` are not needed to score; further keyword arguments of newer verl versions are
    accepted and ignored. See the module docstring for dropped samples."""
    return reward_components(score_response(solution_str, ground_truth))


def rubric_reward(
    prompts: Sequence[Any],
    completions: Sequence[Any],
    ground_truth: Sequence[str | Mapping[str, Any]],
    **_: object,
) -> list[float | None]:
    """TRL's reward-function signature: one reward per completion, None where the sample is
    dropped. A completion is text or a list of chat messages (the last assistant message is the
    one that answers)."""
    pairs = zip(completions, ground_truth, strict=True)
    return [score_response(_completion_text(c), tree).value for c, tree in pairs]


def score_response(response: str, ground_truth: str | Mapping[str, Any]) -> Reward:
    """The Reward of a response against the tree in `ground_truth`, citations checked against
    the corpus of $QUESTWEB_CORPUS_DIR."""
    tree = _tree(_tree_key(ground_truth))
    if isinstance(tree, str):
        return Reward(None, None, 0.0, (), tree)
    return score_with_tree(tree, response, corpus_store(os.environ.get(CORPUS_ENV) or None))


def score_with_tree(tree: CompiledTree, response: str, store: DocumentStore | None) -> Reward:
    """The Reward of a response against a compiled tree; `store` None: no corpus."""
    answer = final_answer(response)
    if not answer:
        return Reward(0.0, 0.0, 0.0, (), "no final answer (a closed, non-empty <answer> block)")
    try:
        return answer_reward(tree, answer, store)
    except Exception as error:  # one broken verifier must not end an RL run; it is logged
        log.exception("the verifier failed")
        return Reward(None, None, 0.0, (), f"verifier failed: {type(error).__name__}: {error}")


def final_answer(response: str) -> str:
    """The text of the response's final answer, or "" when it has none."""
    turn = parse_turn(response)
    return turn.answer if turn.kind == "answer" else ""


def reward_components(reward: Reward) -> dict[str, Any]:
    """The reward as verl's dict: same keys and types for every sample."""
    base = reward.base or 0.0
    score = reward.value if reward.value is not None else 0.0
    return {
        "score": score,
        "dropped": reward.dropped,
        "base": base,
        "valid_rate": reward.valid_rate,
        "citation": 0.0 if reward.dropped else score - BASE_SHARE * base,
        "reason": reward.reason,
    }


@lru_cache(maxsize=8)
def corpus_store(directory: str | None) -> CorpusStore | None:
    """The store of a corpus directory, opened once per process; None without a directory.
    A directory that is not a corpus raises CorpusError: a misconfigured reward must fail
    loudly, not score every citation as unreadable."""
    if directory is None:
        return None
    try:
        return CorpusStore(directory)
    except CorpusError as error:
        raise CorpusError(f"${CORPUS_ENV}: {error}") from None


def _tree_key(ground_truth: str | Mapping[str, Any]) -> str:
    if isinstance(ground_truth, str):
        return ground_truth
    return json.dumps(ground_truth, ensure_ascii=False, sort_keys=True)


@lru_cache(maxsize=TREE_CACHE)
def _tree(text: str) -> CompiledTree | str:
    """The compiled tree, or why the ground truth is not one (logged once per process)."""
    try:
        return compile_tree(loads_tree(text).tree)
    except RubricError as error:
        reason = f"the ground truth is not a rubric tree: {error.summary()}"
    except (TypeError, ValueError) as error:
        reason = f"the ground truth is not a rubric tree: {error}"
    log.warning("%s", reason)
    return reason


def _completion_text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    spoken = [
        m.get("content")
        for m in completion or ()
        if isinstance(m, Mapping) and m.get("role") == "assistant"
    ]
    return spoken[-1] if spoken and isinstance(spoken[-1], str) else ""
