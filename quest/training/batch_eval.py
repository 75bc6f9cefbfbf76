"""Evaluating a trained model on held-out tasks with its turns sampled together: the same agent
loop, tools, budgets and rubric reward as `quest.training.evaluate.evaluate` (and as a GRPO
rollout: quest.training.agent_rollouts' TokenPolicy and rule condenser), but every task runs
in its own thread and each round of their turns is one batched `generate`. On a CPU a batch of
forty rows costs little more than a few single rows, so an evaluation of 40 tasks takes a few
times one task's time, not forty times.

Greedy decoding by default (temperature 0): an evaluation number should not depend on the
sampling seed. The model is loaded once, from `tiny`, `smollm2` or a model directory (a run's
`final` or `checkpoint-N`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from quest.agent import Budgets, run_agent
from quest.rubric.documents import DocumentStore
from quest.tools import Toolbox
from quest.training.agent_rollouts import BatchSampler, TokenCounter, TokenPolicy
from quest.training.evaluate import TaskScore, final_output, output_reward, task_score
from quest.training.heap import bound, trim
from quest.training.models import load_model
from quest.training.precision import choose
from quest.training.tasks import TrainingTask

MAX_BATCH = 64  # rows sampled together; more tasks run in waves of this many


def evaluate_model(
    tasks: Sequence[TrainingTask],
    model_name: str,
    *,
    toolbox: Toolbox,
    budgets: Budgets,
    store: DocumentStore | None = None,
    temperature: float = 0.0,
    batch: int = MAX_BATCH,
    on_task: Callable[[int, TaskScore], None] | None = None,
    seed: int = 0,
    precision: str = "fp32",
) -> list[TaskScore]:
    """Every task's score, in the tasks' order; `on_task(index, score)` as each one ends.
    `precision` auto samples under bf16 autocast where training would (quest.training
    .precision); models compared with each other should be evaluated in the same one."""
    import torch

    bound()
    torch.manual_seed(seed)
    model, tokenizer = load_model(model_name, seed=seed)
    model.eval()
    autocast = choose(precision, model, tokenizer).autocast
    scores: list[TaskScore | None] = [None] * len(tasks)
    lock = threading.Lock()
    for start in range(0, len(tasks), max(1, batch)):
        wave = list(enumerate(tasks))[start : start + max(1, batch)]
        sampler = BatchSampler(model, tokenizer, temperature, logprobs=False, autocast=autocast)
        sampler.expect(len(wave))

        def one(item: tuple[int, TrainingTask], sampler: BatchSampler = sampler) -> None:
            index, task = item
            try:
                score = _run_one(task, model, tokenizer, sampler, toolbox, budgets, store)
            finally:
                sampler.leave()
            with lock:
                scores[index] = score
                if on_task is not None:
                    on_task(index, score)

        with ThreadPoolExecutor(max_workers=len(wave)) as pool:
            list(pool.map(one, wave))
        del sampler, one  # its kept keys and values, before the next wave allocates its own
        trim()
    return [score for score in scores if score is not None]


def _run_one(
    task: TrainingTask,
    model: Any,
    tokenizer: Any,
    sampler: BatchSampler,
    toolbox: Toolbox,
    budgets: Budgets,
    store: DocumentStore | None,
) -> TaskScore:
    policy = TokenPolicy(
        model, tokenizer, max_tokens=budgets.max_turn_tokens, sampler=sampler.sample
    )
    result = run_agent(
        task.question,
        policy=policy,
        toolbox=toolbox,
        budgets=budgets,
        token_counter=TokenCounter(tokenizer),
        rollout_id=f"eval-{task.task_id}",
    )
    reward = output_reward(task, final_output(result.trajectory), store, None)
    return task_score(task.task_id, result, reward)
