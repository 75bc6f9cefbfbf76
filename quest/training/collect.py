"""Collecting trajectories for the SFT set (QUEST-SPEC §5.1, §6): run a policy on gated tasks,
score every rollout with the rubric reward and record all of them, each marked `kept` when it
passes the threshold (rejection sampling). The SFT builder then reads the file and uses the
recorded rewards as they are.

Every rollout is recorded, kept or not: the failures cost as much to produce as the successes
and are what a later GRPO or preference set needs. A task's attempts share a group id (one
prompt, one group). Each header is rollout_records' plus `kept` and `hinted`.

**Hint retry** (§6: failed tasks retried with rubric feedback as a hint). When no attempt of a
task is kept, one more rollout gets the question followed by the descriptions of the leaves the
best attempt failed: the policy gets a second chance with what it missed, which turns tasks it
almost solves into training data. The recorded rollout must teach answering the question, not
reading a hint, so its records carry the original question wherever the prompt had the hinted
one (every session's prompt, the condenser pairs, the header) and the header says `hinted`.
The policy's own turns are kept as written: they may still show what the hint made it look for.
Its reward is the original tree's, as for any attempt.

**Per-task policies and a fallback.** A teacher that reads each task's record (quest.training.
guided) comes as `task_policy_factory`, called with the task, in place of `policy_factory`.
`fallback_factory`: when no attempt of a task is kept, one rollout of this other policy (before
the hint retry), recorded with `fallback` in its header; a teacher that solves some families
and another that solves others then both give demonstrations. Each header names its `policy`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from quest.agent.budgets import Budgets
from quest.agent.loop import RunResult
from quest.agent.policies import Policy
from quest.rewards import final_answer
from quest.rubric.documents import DocumentStore
from quest.rubric.errors import RubricError
from quest.rubric.evaluate import check_context, leaf_verdicts
from quest.rubric.judge import ChatClient
from quest.rubric.model import attributes
from quest.rubric.reward import Reward
from quest.tools.toolbox import Toolbox
from quest.training.evaluate import (
    CondenserFactory,
    PolicyFactory,
    Runner,
    TaskPolicyFactory,
    final_output,
)
from quest.training.rollouts import rollout_records
from quest.training.sft import DEFAULT_MIN_REWARD
from quest.training.tasks import TrainingTask

HINT_HEAD = "Hint: a correct answer also has to satisfy:"
RolloutSink = Callable[[list[dict[str, Any]], bool], None]


@dataclass
class CollectReport:
    tasks: int = 0
    rollouts: int = 0
    kept: int = 0
    below_threshold: int = 0
    dropped: int = 0  # the verifier could not run
    hinted: int = 0
    hinted_kept: int = 0
    fallback: int = 0
    fallback_kept: int = 0
    tasks_with_a_kept_rollout: int = 0
    reward_total: float = field(default=0.0, repr=False)  # over the scored rollouts

    @property
    def mean_reward(self) -> float | None:
        scored = self.rollouts - self.dropped
        return self.reward_total / scored if scored else None

    def to_json(self) -> dict[str, Any]:
        return attributes(
            self,
            "tasks rollouts kept below_threshold dropped hinted hinted_kept fallback fallback_kept"
            " tasks_with_a_kept_rollout mean_reward",
        )


@dataclass(frozen=True)
class Attempt:
    result: RunResult
    reward: Reward
    kept: bool


def collect(
    tasks: Iterable[TrainingTask],
    *,
    policy_factory: PolicyFactory | None = None,
    task_policy_factory: TaskPolicyFactory | None = None,
    fallback_factory: PolicyFactory | None = None,
    toolbox: Toolbox,
    attempts: int = 1,
    min_reward: float = DEFAULT_MIN_REWARD,
    hint_retry: bool = True,
    budgets: Budgets | None = None,
    condenser_factory: CondenserFactory | None = None,
    store: DocumentStore | None = None,
    judge: ChatClient | None = None,
    group_prefix: str = "",
    on_rollout: RolloutSink | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> CollectReport:
    """Run `attempts` rollouts of each task (plus the hint retry), handing each rollout's
    records to `on_rollout` as it finishes. A stop returns the report of the rollouts
    finished so far; the rollout it interrupted is not recorded. Exactly one of
    `policy_factory` and `task_policy_factory` builds the attempts' policies."""
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    policy_of = _policy_of(policy_factory, task_policy_factory)
    runner = Runner(
        _built_by_collect, toolbox, budgets, condenser_factory, store, judge, should_stop
    )
    sink = on_rollout or (lambda r, k: None)
    collector = _Collector(runner, min_reward, group_prefix, sink, policy_of, fallback_factory)
    for task in tasks:
        if runner.stopped() or not collector.task(task, attempts, hint_retry=hint_retry):
            break
    return collector.report


class _Collector:
    def __init__(
        self,
        runner: Runner,
        min_reward: float,
        group_prefix: str,
        sink: RolloutSink,
        policy_of: TaskPolicyFactory,
        fallback: PolicyFactory | None,
    ) -> None:
        self.runner, self.min_reward = runner, min_reward
        self.group_prefix, self.sink = group_prefix, sink
        self.policy_of, self.fallback = policy_of, fallback
        self.report = CollectReport()

    def task(self, task: TrainingTask, attempts: int, *, hint_retry: bool) -> bool:
        """Every rollout of one task; False when a stop interrupted it."""
        done: list[Attempt] = []
        for number in range(1, attempts + 1):
            attempt = self.attempt(task, task.question, f"{task.task_id}-a{number}")
            if attempt is None:
                return False
            done.append(attempt)
        if self.fallback is not None and not any(a.kept for a in done):
            policy = self.fallback()
            fallback = self.attempt(task, task.question, f"{task.task_id}-fallback", policy=policy)
            if fallback is None:
                return False
            done.append(fallback)
        question = self.hint_retry_question(task, done) if hint_retry else None
        if question is not None:
            retry = self.attempt(task, question, f"{task.task_id}-hint", hinted=True)
            if retry is None:
                return False
            done.append(retry)
        self.report.tasks += 1
        self.report.tasks_with_a_kept_rollout += any(a.kept for a in done)
        return True

    def hint_retry_question(self, task: TrainingTask, done: list[Attempt]) -> str | None:
        """The question with the leaves the best attempt failed; None when an attempt was
        kept or the best failed no leaf a hint could name (a hint without content would be
        one more plain attempt)."""
        if any(a.kept for a in done):
            return None
        answer = final_answer(final_output(best_attempt(done).result.trajectory))
        missed = failed_leaves(task, answer, store=self.runner.store, judge=self.runner.judge)
        return hinted_question(task.question, missed) if missed else None

    def attempt(
        self,
        task: TrainingTask,
        question: str,
        rollout_id: str,
        *,
        hinted: bool = False,
        policy: Policy | None = None,
    ) -> Attempt | None:
        """One rollout of the task's policy (or of `policy`, the fallback's)."""
        fallback = policy is not None
        policy = policy if policy is not None else self.policy_of(task)
        result = self.runner.run(question, rollout_id, policy=policy)
        if result is None:
            return None
        reward = self.runner.reward(task, result)
        kept = reward.value is not None and reward.value >= self.min_reward
        records = rollout_records(
            result,
            task_id=task.task_id,
            group_id=self.group_prefix + task.task_id,
            reward=reward,
        )
        name = getattr(policy, "name", type(policy).__name__)
        header = {"kept": kept, "hinted": hinted, "fallback": fallback, "policy": name}
        records[0] = {**records[0], **header}
        if hinted:
            records = with_question(records, result.question, task.question)
        self.count(reward, kept=kept, hinted=hinted)
        self.report.fallback += fallback
        self.report.fallback_kept += fallback and kept
        self.sink(records, kept)
        return Attempt(result, reward, kept)

    def count(self, reward: Reward, *, kept: bool, hinted: bool) -> None:
        report = self.report
        report.rollouts += 1
        report.kept += kept
        report.hinted += hinted
        report.hinted_kept += hinted and kept
        if reward.value is None:
            report.dropped += 1
            return
        report.reward_total += reward.value
        report.below_threshold += not kept


def _policy_of(
    shared: PolicyFactory | None, per_task: TaskPolicyFactory | None
) -> TaskPolicyFactory:
    """Each task's policy: a fresh one of the shared factory, or the one built for the task."""
    if per_task is not None and shared is None:
        return per_task
    if shared is not None and per_task is None:
        return lambda task: shared()
    raise ValueError("give exactly one of policy_factory and task_policy_factory")


def _built_by_collect() -> Policy:
    """The runner's own factory in collect, never called: collect builds every rollout's
    policy (a task's, or the fallback's) and hands it to the run."""
    raise TypeError("collect builds each rollout's policy and hands it to the runner")


def best_attempt(attempts: list[Attempt]) -> Attempt:
    """The attempt with the highest reward (a dropped one counts lowest; the first of equals)."""
    return max(attempts, key=lambda a: -1.0 if a.reward.value is None else a.reward.value)


def failed_leaves(
    task: TrainingTask, answer: str, *, store: DocumentStore | None, judge: ChatClient | None
) -> list[str]:
    """The descriptions of the leaves `answer` fails, in the tree's order. Leaves a check could
    not decide (no judge) or skipped by a precondition are not failures and are not named."""
    compiled = task.compiled
    context = check_context(compiled, answer, store, judge)
    try:
        verdicts = leaf_verdicts(compiled, context)
    except RubricError:  # the verifier cannot run: there is nothing to say about the answer
        return []
    return [
        leaf.description
        for leaf in compiled.tree.leaves()
        if leaf.id in verdicts and verdicts[leaf.id].status == "fail"
    ]


def hinted_question(question: str, missed: list[str]) -> str:
    items = "\n".join(f"- {description}" for description in missed)
    return f"{question}\n\n{HINT_HEAD}\n{items}"


def with_question(
    records: list[dict[str, Any]], hinted: str, original: str
) -> list[dict[str, Any]]:
    """New records with `original` wherever the prompt side held the `hinted` question: the
    header, every session's prompt messages and every condenser pair's question."""
    return [_with_question(record, hinted, original) for record in records]


def _with_question(record: dict[str, Any], hinted: str, original: str) -> dict[str, Any]:
    if record["kind"] == "segment":
        messages = [_replaced(m, hinted, original) for m in record["prompt_messages"]]
        return {**record, "prompt_messages": messages}
    if record["kind"] in ("rollout", "condensation"):
        return {**record, "question": record["question"].replace(hinted, original)}
    return record


def _replaced(message: Mapping[str, Any], hinted: str, original: str) -> dict[str, Any]:
    return {**message, "content": message["content"].replace(hinted, original)}
