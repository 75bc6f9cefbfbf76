"""Evaluating a policy on held-out tasks with the same agent loop, tools and rubric reward as
training (QUEST-SPEC §2, §5), so an evaluation number and a training reward mean the same thing.

The policy only ever sees the question; the tree scores its last output afterwards, exactly as
the RL reward and the SFT builder score a rollout (the answer is the last output's closed
`<answer>` block: a run that ends on a report the loop wrote for a policy that never answered
earns 0). A task whose verifier cannot run (a judge leaf with no judge, an unreadable cited page
without a corpus) is dropped: left out of the mean and counted, never scored 0.

Uncertainty is a bootstrap percentile interval over tasks; two policies are compared on the
tasks both were scored on, with a paired bootstrap (the tasks' difficulty varies far more than
the policies do, so pairing removes most of the noise).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from quest.agent.budgets import Budgets
from quest.agent.condenser import Condenser, LLMCondenser, RuleCondenser
from quest.agent.loop import RunResult, run_agent
from quest.agent.policies import LLMPolicy, Policy
from quest.agent.scripted import ScriptedPolicy
from quest.agent.trajectory import Trajectory
from quest.llm.config import client_from_option
from quest.llm.http import HTTPChat
from quest.llm.local import TransformersChat
from quest.llm.streaming import Watch
from quest.llm.types import LLMError
from quest.protocol.turns import parse_turn
from quest.rewards import final_answer, score_with_tree
from quest.rubric.documents import DocumentStore
from quest.rubric.judge import ChatClient
from quest.rubric.reward import BASE_SHARE, Reward, answer_reward
from quest.tools.toolbox import Toolbox
from quest.training.tasks import TrainingTask

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

PolicyFactory = Callable[[], Policy]
# A policy built for one task: a teacher that reads the task's record (quest.training.guided).
TaskPolicyFactory = Callable[[TrainingTask], Policy]
CondenserFactory = Callable[[], Condenser]
ANSWER_EXCERPT = 2_000
RESAMPLES = 10_000
# Bootstrap means drawn per numpy batch: bounds memory at a few tens of MB for any task count.
BOOTSTRAP_CELLS = 4_000_000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskScore:
    task_id: str
    reward: float | None  # None: the verifier could not run (dropped)
    base: float | None
    citation: float | None  # the citation term, R - 0.75·base
    valid_rate: float
    status: str  # RunResult.status
    answered: bool
    turns: int  # outputs the policy wrote
    invalid_turns: int  # of those, the ones the protocol refused
    tool_calls: int
    elapsed_s: float
    answer: str  # the run's answer, cut to ANSWER_EXCERPT characters

    @property
    def dropped(self) -> bool:
        return self.reward is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Runner:
    """One policy setup run on many tasks. Each run gets a fresh policy and condenser, so
    nothing one task taught a stateful policy reaches the next."""

    policy_factory: PolicyFactory
    toolbox: Toolbox
    budgets: Budgets | None = None
    condenser_factory: CondenserFactory | None = None
    store: DocumentStore | None = None
    judge: ChatClient | None = None
    should_stop: Callable[[], bool] | None = None

    def stopped(self) -> bool:
        return self.should_stop is not None and self.should_stop()

    def run(
        self, question: str, rollout_id: str | None = None, *, policy: Policy | None = None
    ) -> RunResult | None:
        """The run, or None when a stop cut it short: half a run is not a result. `policy`:
        the caller built this run's policy itself (one per task); else a fresh one from the
        factory."""
        condenser = self.condenser_factory() if self.condenser_factory is not None else None
        result = run_agent(
            question,
            policy=policy if policy is not None else self.policy_factory(),
            toolbox=self.toolbox,
            condenser=condenser,
            budgets=self.budgets,
            should_stop=self.should_stop,
            rollout_id=rollout_id,
        )
        return None if result.status == "stopped" else result

    def reward(self, task: TrainingTask, result: RunResult) -> Reward:
        return output_reward(task, final_output(result.trajectory), self.store, self.judge)


def output_reward(
    task: TrainingTask, output: str, store: DocumentStore | None, judge: ChatClient | None
) -> Reward:
    """The rubric reward of a policy output, as training computes it; with a judge, judge
    leaves are decided instead of leaving the task dropped."""
    answer = final_answer(output)
    if judge is None or not answer:
        return score_with_tree(task.compiled, output, store)
    try:
        return answer_reward(task.compiled, answer, store, judge)
    except Exception as error:  # one broken verifier must not end an evaluation; it is logged
        log.exception("the verifier failed on task %s", task.task_id)
        return Reward(None, None, 0.0, (), f"verifier failed: {type(error).__name__}: {error}")


def final_output(trajectory: Trajectory) -> str:
    """The policy's last output, in whichever session it wrote it."""
    outputs = model_outputs(trajectory)
    return outputs[-1] if outputs else ""


def model_outputs(trajectory: Trajectory) -> list[str]:
    return [output for segment in trajectory.segments for output in segment.model_outputs()]


def invalid_turns(trajectory: Trajectory) -> int:
    """Outputs the protocol refuses, read the way the loop read them (quest.protocol.turns)."""
    return sum(parse_turn(output).kind == "invalid" for output in model_outputs(trajectory))


def task_score(task_id: str, result: RunResult, reward: Reward) -> TaskScore:
    citation = None
    if reward.value is not None and reward.base is not None:
        citation = reward.value - BASE_SHARE * reward.base
    return TaskScore(
        task_id=task_id,
        reward=reward.value,
        base=reward.base,
        citation=citation,
        valid_rate=reward.valid_rate,
        status=result.status,
        answered=result.status == "answered",
        turns=len(model_outputs(result.trajectory)),
        invalid_turns=invalid_turns(result.trajectory),
        tool_calls=result.usage.tool_calls,
        elapsed_s=result.elapsed_s,
        answer=result.answer[:ANSWER_EXCERPT],
    )


def evaluate(
    tasks: Iterable[TrainingTask],
    *,
    policy_factory: PolicyFactory,
    toolbox: Toolbox,
    budgets: Budgets | None = None,
    condenser_factory: CondenserFactory | None = None,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
    on_task: Callable[[int, TaskScore], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[TaskScore]:
    """Run the policy on each task's question and score its answer against the task's tree.
    A stop returns the tasks finished so far (the one it interrupted is left out)."""
    runner = Runner(policy_factory, toolbox, budgets, condenser_factory, store, judge, should_stop)
    scores: list[TaskScore] = []
    for index, task in enumerate(tasks):
        result = None if runner.stopped() else runner.run(task.question)
        if result is None:
            break
        score = task_score(task.task_id, result, runner.reward(task, result))
        scores.append(score)
        if on_task is not None:
            on_task(index, score)
    return scores


def summarize(scores: Sequence[TaskScore], *, seed: int = 0) -> dict[str, Any]:
    """Mean reward with its bootstrap interval over the scored tasks, and how the policy
    behaved on all of them (answer rate, protocol-valid turns, citation validity)."""
    rewards = [s.reward for s in scores if s.reward is not None]
    cited = [s.valid_rate for s in scores if s.answered and s.reward is not None]
    turns = sum(s.turns for s in scores)
    return {
        "n": len(rewards),
        "mean": _mean(rewards),
        "ci95": list(bootstrap_ci(rewards, seed=seed)) if rewards else None,
        "std": _std(rewards),
        "answer_rate": sum(s.answered for s in scores) / len(scores) if scores else None,
        # Pooled over every turn of every task: a long run's turns count as much as a short's.
        "valid_turn_rate": 1 - sum(s.invalid_turns for s in scores) / turns if turns else None,
        "citation_validity": _mean(cited),  # answered and scored tasks only
        "dropped": len(scores) - len(rewards),
    }


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _std(values: Sequence[float]) -> float | None:
    """The sample standard deviation; 0 for one value, None for none."""
    if len(values) < 2:
        return 0.0 if values else None
    import numpy as np

    return float(np.std(values, ddof=1))


def bootstrap_ci(
    values: Sequence[float], *, resamples: int = RESAMPLES, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean: resample the values with replacement
    `resamples` times and take the middle `level` of the resampled means."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("bootstrap_ci needs at least one value")
    if resamples < 1 or not 0 < level < 1:
        raise ValueError("resamples must be at least 1 and level between 0 and 1")
    means = _resampled_means(data, resamples, np.random.default_rng(seed))
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def _resampled_means(
    data: npt.NDArray[np.float64], resamples: int, rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """The means of `resamples` resamples of `data`, drawn a batch of rows at a time."""
    import numpy as np

    batch = max(1, BOOTSTRAP_CELLS // data.size)
    means: list[npt.NDArray[np.float64]] = []
    for done in range(0, resamples, batch):
        rows = rng.integers(0, data.size, size=(min(batch, resamples - done), data.size))
        means.append(data[rows].mean(axis=1))
    return np.concatenate(means)


def paired_difference(
    a: Sequence[TaskScore], b: Sequence[TaskScore], *, seed: int = 0
) -> dict[str, Any]:
    """a - b on the tasks both scored (dropped by neither): the mean difference, its paired
    bootstrap interval (resampling tasks, each with both of its scores) and the per-task
    wins, losses and ties of a."""
    theirs = {s.task_id: s.reward for s in b if s.reward is not None}
    diffs = [
        s.reward - theirs[s.task_id] for s in a if s.reward is not None and s.task_id in theirs
    ]
    return {
        "n": len(diffs),
        "mean": _mean(diffs),
        "ci95": list(bootstrap_ci(diffs, seed=seed)) if diffs else None,
        "wins": sum(d > 0 for d in diffs),
        "losses": sum(d < 0 for d in diffs),
        "ties": sum(d == 0 for d in diffs),
    }


def policy_for(
    spec: str, *, budgets: Budgets, temperature: float | None = None, watch: Watch | None = None
) -> tuple[PolicyFactory, CondenserFactory]:
    """Factories of the policy and condenser a spec names: "scripted" (the rule condenser) or
    an LLM backend as quest.llm.config.client_from_option reads it (the LLM condenser on the
    same model, as `python -m quest agent run --policy llm` uses). The client is built once and
    shared by every run, so a local model loads once. With a `watch`, every generation reports
    its tokens and is given up within a fraction of a second once `watch.cancelled()` says so
    (a turn of a local model on a CPU can take minutes). ValueError names a bad spec."""
    if spec.strip() == "scripted":
        return ScriptedPolicy, RuleCondenser
    try:
        client = client_from_option(spec)
    except ImportError as error:
        raise ValueError(f"policy {spec!r}: its backend is not installed: {error}") from None
    except (ValueError, LLMError) as error:  # LLMError: a model path that holds no model
        raise ValueError(f"policy {spec!r}: {error}") from None
    if watch is not None and isinstance(client, HTTPChat | TransformersChat):
        client.watch = watch
    turn_tokens, chosen = budgets.max_turn_tokens, temperature

    def policy() -> Policy:
        return LLMPolicy(client, max_turn_tokens=turn_tokens, temperature=chosen)

    return policy, lambda: LLMCondenser(client)
