"""Multi-turn agent rollouts for GRPO (QUEST-SPEC §5, §5.1): the real agent loop
(quest.agent.run_agent: QUEST's text protocol, the corpus tools, reminders, budgets, the rule
condenser, the forced final answer) driven by the model being trained, recorded token by token.

`TokenPolicy` is the loop's policy. It keeps, for the current session, the exact token ids the
model saw and sampled: the session prompt (system + question [+ research state]) rendered by the
chat template, then per turn the sampled ids (loss mask 1, with their sampling log-probs) and
the ids of what the loop added after them (end of turn, tool response or reminder, next
generation header: mask 0, so tool output is never trained but still attended to). Generation
always continues from these ids, never from re-tokenised text, so the trainer's forward pass
scores exactly what was sampled.

`rollout_func` is TRL 1.16's experimental hook: it gets `prompts` with the `num_generations`
copies already made and returns one row per entry: prompt_ids, completion_ids, logprobs and
`env_mask` (the loss mask), plus the extras the reward reads (`final_output`: the model's last
turn, where its answer is) and rollout counts for the metrics.

**Sessions.** QUEST trains every session of a rollout (the stretch between two condensations)
as its own row with the rollout's advantage. TRL's hook takes exactly one row per prompt entry,
and its group advantages are computed over those rows, so each rollout's row is its **last
session** (the one that wrote the answer the reward scores) and its earlier sessions are left on
the trainer as `earlier_sessions`, which quest.training.sessions.SessionGRPOTrainer appends as
extra rows with the same advantage (config `grpo.sessions: all`, the default). With
`sessions: last` the earlier sessions still run (their tools, their condensation) but add no
loss. With budgets under the condensation threshold a rollout is one session and the row is
all of it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from quest.agent import Budgets, PolicyTurn, RunResult, run_agent
from quest.agent.prompts import split_user_prompt
from quest.llm.types import LLMError, Message
from quest.tools import Toolbox
from quest.training.decoding import Prefixes, decode_batch
from quest.training.heap import bound
from quest.training.sessions import EarlierSession

EARLIER = "earlier_sessions"
_STATS_LOCK = threading.Lock()


@dataclass
class Session:
    prompt_ids: list[int]
    text: str  # the chat-template text of everything in the session so far
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)

    def extend(self, ids: Sequence[int], *, model: bool, logprobs: Sequence[float] = ()) -> None:
        self.completion_ids += ids
        self.env_mask += [int(model)] * len(ids)
        self.logprobs += list(logprobs) if model else [0.0] * len(ids)

    @property
    def ids(self) -> list[int]:
        return self.prompt_ids + self.completion_ids


class TokenCounter:
    """The loop's token counter, by the trained model's tokenizer."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


# (session ids so far, tokens allowed) -> (sampled ids, their log-probs)
Sampler = Callable[[list[int], int], tuple[list[int], list[float]]]


class TokenPolicy:
    name = "trained-model"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_tokens: int,
        temperature: float = 1.0,
        sampler: Sampler | None = None,
    ) -> None:
        self.tokenizer, self.max_tokens = tokenizer, max_tokens
        # None: the model's own generate, one turn at a time.
        self.sampler = sampler or BatchSampler(model, tokenizer, temperature).sample
        config = getattr(model, "config", None)
        self.context_limit = int(getattr(config, "max_position_embeddings", 0) or 0)
        self.sessions: list[Session] = []

    def next_turn(self, messages: Sequence[Message]) -> PolicyTurn:
        rendered = self._render(messages)
        if len(messages) == 2:  # the loop (re)starts a session with [system, user]
            ids = self._encode(rendered)
            self.sessions.append(Session(prompt_ids=ids, text=rendered))
        else:
            self._add_environment(rendered)
        session = self.sessions[-1]
        sampled, logprobs = self._sample(session.ids)
        session.extend(sampled, model=True, logprobs=logprobs)
        text = self.tokenizer.decode(sampled, skip_special_tokens=True)
        session.text = rendered + text
        return PolicyTurn(text, prompt_tokens=len(session.ids), completion_tokens=len(sampled))

    def _add_environment(self, rendered: str) -> None:
        """The ids of what the loop appended since the model's last turn (mask 0)."""
        session = self.sessions[-1]
        if not rendered.startswith(session.text):
            raise LLMError("the chat template does not extend the conversation it rendered before")
        ids = self._encode(rendered[len(session.text) :])
        if ids and session.completion_ids and ids[0] == session.completion_ids[-1] in self._eos():
            ids = ids[1:]  # the end-of-turn token the model sampled itself
        session.extend(ids, model=False)

    def _sample(self, ids: list[int]) -> tuple[list[int], list[float]]:
        room = self.max_tokens
        if self.context_limit:
            room = min(room, self.context_limit - len(ids))
        if room < 1:
            raise LLMError(f"the session fills the model's {self.context_limit}-token context")
        return self.sampler(ids, room)

    def _eos(self) -> set[int]:
        return {int(self.tokenizer.eos_token_id)}

    def _render(self, messages: Sequence[Message]) -> str:
        plain = [{"role": m["role"], "content": m["content"]} for m in messages]
        text = self.tokenizer.apply_chat_template(plain, tokenize=False, add_generation_prompt=True)
        return str(text)

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])


class BatchSampler:
    """Samples the turns of concurrent rollouts together: each rollout's thread hands its
    session ids to `sample` and waits; once every rollout still running has asked, one batched
    decode (quest.training.decoding: left-padded, sampling from the full distribution at the
    temperature, or greedy at temperature 0) answers them all. A rollout that ends `leave`s, so
    the others do not wait for it. On its own (no `expect`) every call is a batch of one.

    Each row keeps its tokens up to the end of its turn (a closed tool call or answer, or its
    end-of-turn token), at most its `room`, with the log-probs of the distribution it was
    sampled from (what TRL's importance ratio starts from). A session's next turn feeds only what
    was added since its last one: the keys and values of the rest are kept (`prefixes`).
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        temperature: float,
        *,
        logprobs: bool = True,
        autocast: Callable[[], AbstractContextManager[Any]] = nullcontext,
    ) -> None:
        self.model, self.tokenizer, self.temperature = model, tokenizer, temperature
        self.logprobs = logprobs  # False (an evaluation): no scores kept, log-probs given as 0
        self.autocast = autocast  # the training run's precision (quest.training.precision)
        self.eos = int(tokenizer.eos_token_id)
        self.pad = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.eos)
        self.ready = threading.Condition()
        self.active = 1
        self.pending: dict[int, tuple[list[int], int]] = {}
        self.answers: dict[int, tuple[list[int], list[float]] | BaseException] = {}
        self.tickets = 0
        # The keys and values each session's last turn computed, for its next turn: valid for
        # this sampler's life, which is one set of weights (one step's rollouts, one evaluation).
        self.prefixes = Prefixes()

    def expect(self, rollouts: int) -> None:
        with self.ready:
            self.active = rollouts

    def leave(self) -> None:
        with self.ready:
            self.active -= 1
            self._run_when_all_asked()

    def sample(self, ids: list[int], room: int) -> tuple[list[int], list[float]]:
        with self.ready:
            ticket = self.tickets = self.tickets + 1
            self.pending[ticket] = (ids, room)
            self._run_when_all_asked()
            while ticket not in self.answers:
                self.ready.wait()
            answer = self.answers.pop(ticket)
        if isinstance(answer, BaseException):
            raise LLMError(f"sampling failed: {answer}") from answer
        return answer

    def _run_when_all_asked(self) -> None:
        if not self.pending or len(self.pending) < self.active:
            return
        batch, self.pending = self.pending, {}
        try:
            self.answers.update(zip(batch, self._generate(list(batch.values())), strict=True))
        except Exception as error:  # every waiting rollout learns of it
            self.answers.update({ticket: error for ticket in batch})
        self.ready.notify_all()

    def _generate(self, rows: list[tuple[list[int], int]]) -> list[tuple[list[int], list[float]]]:
        with self.autocast():  # thread-local: entered in the thread that decodes
            return decode_batch(
                self.model,
                rows,
                eos=self.eos,
                pad=self.pad,
                temperature=self.temperature,
                logprobs=self.logprobs,
                text_of=lambda ids: str(self.tokenizer.decode(ids, skip_special_tokens=True)),
                prefixes=self.prefixes,
            )


@dataclass
class RolloutStats:
    """What the rollouts of the steps since the last log did, and how long they took."""

    seconds: float = 0.0
    reward_seconds: float = 0.0
    rollouts: int = 0
    turns: int = 0
    tool_calls: int = 0
    sessions: int = 0
    answered: int = 0
    reused_tokens: int = 0  # prompt tokens continued from kept keys and values
    fed_tokens: int = 0  # prompt tokens prefilled

    def add(self, result: RunResult, sessions: int) -> None:
        with _STATS_LOCK:
            self._add(result, sessions)

    def _add(self, result: RunResult, sessions: int) -> None:
        self.rollouts += 1
        self.turns += result.turns
        self.tool_calls += result.usage.tool_calls
        self.sessions += sessions
        self.answered += result.status == "answered"

    def drain(self) -> dict[str, float]:
        """The means per rollout, then zeroed."""
        n = max(self.rollouts, 1)
        out = {
            "rollout_s": self.seconds,
            "reward_s": self.reward_seconds,
            "rollout/turns": self.turns / n,
            "rollout/tool_calls": self.tool_calls / n,
            "rollout/sessions": self.sessions / n,
            "rollout/answered": self.answered / n,
            "rollout/prefix_reused": self.reused_tokens
            / max(self.reused_tokens + self.fed_tokens, 1),
        }
        self.__init__()  # type: ignore[misc]
        return out


def make_rollout_func(
    *,
    toolbox: Toolbox,
    budgets: Budgets,
    temperature: float,
    stats: RolloutStats,
    sampler: Sampler | None = None,
    autocast: Callable[[], AbstractContextManager[Any]] = nullcontext,
) -> Callable[[list[Any], Any], dict[str, list[Any]]]:
    """TRL's rollout_func; turns are sampled by the trainer's vLLM engine when it has one,
    else by `sampler` when given, else by the model's own generate."""

    def rollout_func(prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        from trl.models.utils import unwrap_model_for_generation

        def run(prompt: Any, model: Any, chosen: Sampler) -> dict[str, Any]:
            return rollout_row(model, tokenizer, prompt, toolbox, budgets, stats, chosen)

        def one_by_one(model: Any, chosen: Sampler) -> list[dict[str, Any]]:
            return [run(p, model, chosen) for p in prompts]

        def batched(model: Any) -> list[dict[str, Any]]:
            """The rollouts in threads, their turns sampled together: one batched generate
            per round of turns instead of one per rollout (the tools run in parallel)."""
            bound()  # quest.training.heap: decodes in many threads, memory that stays flat
            batch = BatchSampler(model, tokenizer, temperature, autocast=autocast)

            def one(prompt: Any) -> dict[str, Any]:
                try:
                    return run(prompt, model, batch.sample)
                finally:
                    batch.leave()

            batch.expect(len(prompts))
            with ThreadPoolExecutor(max_workers=len(prompts)) as pool:
                rows = list(pool.map(one, prompts))
            with _STATS_LOCK:
                stats.reused_tokens += batch.prefixes.reused
                stats.fed_tokens += batch.prefixes.fed
            batch.prefixes.entries.clear()
            return rows

        started = time.monotonic()
        tokenizer = trainer.processing_class
        # As TRL's own generation does: gradient checkpointing off (with it on, transformers
        # turns the KV cache off and every sampled token recomputes the whole sequence) and,
        # under DeepSpeed ZeRO-3, the sharded weights gathered for the rollouts.
        with (
            unwrap_model_for_generation(
                trainer.model_wrapped,
                trainer.accelerator,
                gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
                gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs,
            ) as model,
            _evaluation_mode(model),
        ):
            if getattr(trainer, "use_vllm", False):
                rows = one_by_one(model, vllm_sampler(trainer))
            elif sampler is not None:
                rows = one_by_one(model, sampler)
            else:
                rows = batched(model)
        stats.seconds += time.monotonic() - started
        # Read by SessionGRPOTrainer, which trains them with their rollout's advantage.
        trainer.earlier_sessions = [row.pop(EARLIER) for row in rows]
        return {key: [row[key] for row in rows] for key in rows[0]}

    return rollout_func


@contextmanager
def _evaluation_mode(model: Any) -> Iterator[None]:
    """Dropout off while sampling, restored after (once for all of a batch's rollouts)."""
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


def rollout_row(
    model: Any,
    tokenizer: Any,
    prompt: Sequence[Message],
    toolbox: Toolbox,
    budgets: Budgets,
    stats: RolloutStats,
    sampler: Sampler,
) -> dict[str, Any]:
    """One agent run from an RL row's prompt, as the training row of its last session;
    `model` only gives the context length (None: unbounded), `sampler` samples the turns."""
    question = split_user_prompt(prompt[-1]["content"])[0]
    policy = TokenPolicy(
        model, tokenizer, max_tokens=budgets.max_turn_tokens, sampler=sampler,
    )  # fmt: skip
    result = run_agent(
        question,
        policy=policy,
        toolbox=toolbox,
        budgets=budgets,
        token_counter=TokenCounter(tokenizer),
    )
    stats.add(result, len(policy.sessions))
    last = policy.sessions[-1]
    if not last.completion_ids:  # the run failed before the model wrote anything
        last.extend([int(tokenizer.eos_token_id)], model=False)
    earlier = [
        EarlierSession(s.prompt_ids, s.completion_ids, s.env_mask, s.logprobs)
        for s in policy.sessions[:-1]
    ]
    return {
        EARLIER: earlier,
        "prompt_ids": last.prompt_ids,
        "completion_ids": last.completion_ids,
        "logprobs": last.logprobs,
        "env_mask": last.env_mask,
        "final_output": _last_output(result),
        "status": result.status,
    }


def vllm_sampler(trainer: Any) -> Sampler:
    """Turns sampled by the trainer's colocated vLLM engine (GRPOConfig use_vllm, vllm_mode
    "colocate"), its weights synced first when the step moved on, as TRL's own generation does.
    The engine samples at most max_completion_length tokens (the session budget) a call; the turn
    keeps at most the turn budget of them. Colocate only: in server mode TRL gathers every
    rank's prompts per call, which needs every rank to make the same number of calls, and agent
    rollouts take as many turns as they take."""
    generation = trainer.vllm_generation
    if trainer.state.global_step != getattr(trainer, "_last_loaded_step", None):
        generation.sync_weights()
        trainer._last_loaded_step = trainer.state.global_step

    def sample(ids: list[int], room: int) -> tuple[list[int], list[float]]:
        _, completions, logprobs, _ = generation.generate(
            prompts=[ids], images=None, num_generations=1
        )
        tokens = list(completions[0])[:room]
        return tokens, [float(top[0]) for top in logprobs[0][: len(tokens)]]

    return sample


def _last_output(result: RunResult) -> str:
    """The model's last turn: where the reward looks for its answer (as the SFT builder does)."""
    outputs = [o for segment in result.trajectory.segments for o in segment.model_outputs()]
    return outputs[-1] if outputs else ""
