"""Every session of a GRPO rollout trained with the rollout's advantage (QUEST-SPEC §5.1).

A rollout that condensed is several sessions: each starts from system + question + the research
state and holds the model's turns until the next condensation. TRL's `rollout_func` takes one
row per rollout, and GRPO's group advantages are computed over those rows, so the rollout func
hands TRL the last session (the one whose answer the reward scores) and keeps the earlier ones
aside; `SessionGRPOTrainer` then appends them to the scored batch as extra rows carrying the
advantage of their rollout. Rows are re-padded (prompts on the left, completions on the right),
the loss's token count (`num_items_in_batch`) is recomputed over every row, and rows with no
loss are added until the batch splits evenly into the trainer's generation steps. With the DAPO
or Dr. GRPO loss a long rollout keeps the weight of all its tokens.

Supported where TRL's scored batch holds only what is rebuilt here: no reference model (beta 0)
and no vLLM importance-sampling ratios; the config refuses `sessions: all` otherwise. The
trainer class is built by a function so this module imports without torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quest.training.dynamic import Curriculum, StepBooks, all_equal, groups_of, row_index

# The scored batch's keys this module rebuilds; any other key means a setup it does not cover.
KNOWN = frozenset(
    {"prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "advantages",
     "num_items_in_batch", "tool_mask", "old_per_token_logps", "sampling_per_token_logps"}
)  # fmt: skip


@dataclass(frozen=True)
class EarlierSession:
    """A session before the last one of a rollout: its prompt and the tokens after it, with the
    loss mask (1 on the model's sampled tokens)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    env_mask: list[int]
    logprobs: list[float]  # the sampling log-prob of each token (0 off the model's tokens)

    @property
    def trains(self) -> bool:
        return any(self.env_mask)


def session_trainer_class() -> type[Any]:
    from trl.trainer.grpo_trainer import GRPOTrainer

    class SessionGRPOTrainer(GRPOTrainer):
        """GRPOTrainer that trains the earlier sessions its rollout func set aside in
        `earlier_sessions` (one list per rollout, in the order of the prompts) when
        `train_earlier`, and keeps all-equal groups out of its batches
        (quest.training.dynamic) when given a `curriculum`."""

        earlier_sessions: list[list[EarlierSession]]
        train_earlier: bool = True
        curriculum: Curriculum | None = None
        dynamic_rounds: int = 0

        def _generate_and_score_completions(self, inputs: Any) -> dict[str, Any]:
            mode = "train" if self.model is not None and self.model.training else "eval"
            books = StepBooks()
            if self.curriculum is not None and mode == "train":
                self.curriculum.step = int(self.state.global_step)
                inputs = self._swap_uninformative(list(inputs), books)
            output, earlier = self._scored(inputs)
            groups = self._groups(output, earlier, inputs)
            books.groups = len(groups)
            if self.curriculum is not None and mode == "train" and _rebuildable(output):
                groups = self._resample(groups, books)
            books.trained_groups = len(groups)
            books.kept_equal = sum(group.equal for group in groups)
            added = self._assemble(output, groups)
            rows = added["advantages"].shape[0] - sum(len(g.rows) for g in groups)
            self._metrics[mode]["rollout/session_rows"].append(float(rows))
            if self.curriculum is not None and mode == "train":
                for name, value in books.metrics().items():
                    self._metrics[mode][name].append(value)
            return added

        def _scored(self, inputs: list[Any]) -> tuple[dict[str, Any], list[Any]]:
            self.earlier_sessions = []
            output = super()._generate_and_score_completions(inputs)
            earlier, self.earlier_sessions = self.earlier_sessions, []
            if not self.train_earlier:
                earlier = []
            return output, list(earlier)

        def _groups(
            self, output: dict[str, Any], earlier: list[Any], inputs: list[Any]
        ) -> list[_Group]:
            size = self._size()
            advantages = [float(a) for a in output["advantages"].tolist()]
            groups = []
            for start in range(0, len(advantages), size):
                group = _Group(
                    output,
                    list(range(start, start + size)),
                    earlier,
                    advantages[start : start + size],
                )
                group.task = self._index(inputs[start])
                if self.curriculum is not None and group.task is not None:
                    self.curriculum.record(group.task, group.advantages)
                groups.append(group)
            return groups

        def _size(self) -> int:
            return int(self.num_generations or 1)

        def _dataset(self) -> Any:
            return self.train_dataset

        def _index(self, row: dict[str, Any]) -> int | None:
            if not hasattr(self, "_task_index"):
                ids = (
                    list(self._dataset()["task_id"])
                    if "task_id" in self._dataset().column_names
                    else []
                )
                self._task_index = {str(task): i for i, task in enumerate(ids)}
            return row_index(row, self._task_index)

        def _swap_uninformative(self, inputs: list[Any], books: StepBooks) -> list[Any]:
            """Prompts whose task was all-equal last time, swapped for informative tasks."""
            assert self.curriculum is not None
            size = self._size()
            blocks = groups_of(inputs, size)
            indices = [self._index(block[0]) for block in blocks]
            taken = {i for i in indices if i is not None}
            for slot, index in enumerate(indices):
                if index is None or self.curriculum.informative(index):
                    continue
                picked = self.curriculum.pick(1, taken)
                if picked:
                    taken.add(picked[0])
                    blocks[slot] = [self._dataset()[picked[0]]] * size
                    books.swapped += 1
            return [row for block in blocks for row in block]

        def _resample(self, groups: list[_Group], books: StepBooks) -> list[_Group]:
            """All-equal groups replaced by fresh groups of informative tasks, for at most
            `dynamic_rounds` rounds of rollouts (DAPO's dynamic sampling)."""
            assert self.curriculum is not None
            size = self._size()
            for _ in range(self.dynamic_rounds):
                equal = [slot for slot, group in enumerate(groups) if group.equal]
                if not equal:
                    break
                taken = {g.task for g in groups if g.task is not None}
                picked = self.curriculum.pick(len(equal), taken)
                if not picked:
                    break
                inputs = [self._dataset()[i] for i in picked for _ in range(size)]
                output, earlier = self._scored(inputs)
                fresh = self._groups(output, earlier, inputs)
                books.groups += len(fresh)
                books.extra += len(fresh)
                useful = [group for group in fresh if not group.equal]
                for slot, group in zip(equal, useful, strict=False):
                    groups[slot] = group
                    books.dropped += 1
            return groups

        def _assemble(self, like: dict[str, Any], groups: list[_Group]) -> dict[str, Any]:
            """The trained batch: each group's rows from the batch it was scored in, then a
            row per earlier session with its rollout's advantage."""
            if all(group.output is like for group in groups) and [
                r for g in groups for r in g.rows
            ] == list(range(like["advantages"].shape[0])):
                earlier = groups[0].earlier if groups else []
                return with_sessions(self, like, earlier)
            batch = _Batch.empty()
            sources: dict[int, _Batch] = {}
            for group in groups:
                key = id(group.output)
                source = sources.setdefault(key, _Batch.of(group.output))
                for row in group.rows:
                    batch.take(source, row)
            for group in groups:
                for row in group.rows:
                    sessions = group.earlier[row] if row < len(group.earlier) else []
                    for session in sessions:
                        if session.trains:
                            batch.add(session, float(group.advantages[row - group.rows[0]]))
            return rebuilt(self, like, batch)

    return SessionGRPOTrainer


@dataclass
class _Group:
    """One prompt's rollouts in a scored batch: `rows` of `output`."""

    output: dict[str, Any]
    rows: list[int]
    earlier: list[Any]  # earlier sessions of every row of `output`
    advantages: list[float]
    task: int | None = None

    @property
    def equal(self) -> bool:
        return all_equal(self.advantages)


def _rebuildable(output: dict[str, Any]) -> bool:
    return not [key for key, value in output.items() if value is not None and key not in KNOWN]


def with_sessions(
    trainer: Any, output: dict[str, Any], earlier: Sequence[Sequence[EarlierSession]]
) -> dict[str, Any]:
    """`output` (TRL's scored batch, one row per rollout) with a row per earlier session that
    has tokens to train, each with its rollout's advantage."""
    extra = [(row, s) for row, sessions in enumerate(earlier) for s in sessions if s.trains]
    if not extra:
        return output
    if not _rebuildable(output):
        unknown = sorted(k for k, v in output.items() if v is not None and k not in KNOWN)
        raise ValueError(f"sessions: cannot extend a scored batch holding {', '.join(unknown)}")
    batch = _Batch.of(output)
    for row, session in extra:
        batch.add(session, float(output["advantages"][row]))
    return rebuilt(trainer, output, batch)


def rebuilt(trainer: Any, like: dict[str, Any], batch: _Batch) -> dict[str, Any]:
    """`batch` as a scored batch shaped like `like`: padded, its loss's token count and, when
    `like` holds them, the sampling policy's log-probs recomputed."""
    pad = int(trainer.processing_class.pad_token_id)
    batch.fill(trainer.args.steps_per_generation)
    tensors = batch.tensors(pad, like)
    mask = tensors["completion_mask"] * tensors["tool_mask"]
    tensors["num_items_in_batch"] = trainer.accelerator.gather(mask.sum()).sum()
    if like.get("old_per_token_logps") is not None:
        tensors["old_per_token_logps"] = _old_logps(trainer, tensors)
    return tensors


@dataclass
class _Batch:
    prompts: list[list[int]]
    completions: list[list[int]]
    masks: list[list[int]]  # loss masks (env masks)
    logprobs: list[list[float]]  # sampling log-probs
    advantages: list[float]
    trained: list[bool]  # False: a padding row

    @classmethod
    def empty(cls) -> _Batch:
        return cls([], [], [], [], [], [])

    def take(self, other: _Batch, row: int) -> None:
        """Row `row` of another batch."""
        self.prompts.append(other.prompts[row])
        self.completions.append(other.completions[row])
        self.masks.append(other.masks[row])
        self.logprobs.append(other.logprobs[row])
        self.advantages.append(other.advantages[row])
        self.trained.append(other.trained[row])

    @classmethod
    def of(cls, output: dict[str, Any]) -> _Batch:
        """The scored rows, padding removed."""
        pairs = zip(output["prompt_ids"], output["prompt_mask"], strict=True)
        prompts = [ids[mask.bool()].tolist() for ids, mask in pairs]
        lengths = [int(n) for n in output["completion_mask"].sum(dim=1).tolist()]
        ids = output["completion_ids"]
        completions = [ids[i][:n].tolist() for i, n in enumerate(lengths)]
        tool = output.get("tool_mask")
        masks = [
            tool[i][:n].tolist() if tool is not None else [1] * n for i, n in enumerate(lengths)
        ]
        sampled = output.get("sampling_per_token_logps")
        logprobs = [
            sampled[i][:n].tolist() if sampled is not None else [0.0] * n
            for i, n in enumerate(lengths)
        ]
        advantages = [float(a) for a in output["advantages"].tolist()]
        return cls(prompts, completions, masks, logprobs, advantages, [True] * len(prompts))

    def add(self, session: EarlierSession, advantage: float) -> None:
        self.prompts.append(list(session.prompt_ids))
        self.completions.append(list(session.completion_ids))
        self.masks.append(list(session.env_mask))
        self.logprobs.append(list(session.logprobs))
        self.advantages.append(advantage)
        self.trained.append(True)

    def fill(self, multiple: int) -> None:
        """Loss-free copies of the first row until the rows split evenly into `multiple`."""
        while len(self.prompts) % max(multiple, 1):
            self.prompts.append(self.prompts[0])
            self.completions.append(self.completions[0])
            self.masks.append([0] * len(self.completions[0]))
            self.logprobs.append([0.0] * len(self.completions[0]))
            self.advantages.append(0.0)
            self.trained.append(False)

    def tensors(self, pad: int, like: dict[str, Any]) -> dict[str, Any]:
        import torch

        device = like["completion_ids"].device
        width_p = max(len(p) for p in self.prompts)
        width_c = max(1, *(len(c) for c in self.completions))

        def left(rows: list[list[int]], value: int) -> Any:
            return torch.tensor([[value] * (width_p - len(r)) + r for r in rows], device=device)

        def right(rows: list[list[int]], value: int) -> Any:
            return torch.tensor([r + [value] * (width_c - len(r)) for r in rows], device=device)

        attended = [[1] * len(c) if keep else [0] * len(c)
                    for c, keep in zip(self.completions, self.trained, strict=True)]  # fmt: skip
        tensors = {
            "prompt_ids": left(self.prompts, pad),
            "prompt_mask": left([[1] * len(p) for p in self.prompts], 0),
            "completion_ids": right(self.completions, pad),
            "completion_mask": right(attended, 0),
            "tool_mask": right(self.masks, 0),
            "advantages": torch.tensor(
                self.advantages, device=device, dtype=like["advantages"].dtype
            ),
        }
        sampled = like.get("sampling_per_token_logps")
        if sampled is not None:
            rows = [r + [0.0] * (width_c - len(r)) for r in self.logprobs]
            tensors["sampling_per_token_logps"] = torch.tensor(
                rows, device=device, dtype=sampled.dtype
            )
        return tensors


def _old_logps(trainer: Any, batch: dict[str, Any]) -> Any:
    """The sampling policy's log-probs of every row (TRL computes them when generation and
    optimisation steps are misaligned), recomputed over the extended batch."""
    import torch
    from trl.models.utils import disable_gradient_checkpointing

    ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    attention = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    with (
        torch.no_grad(),
        disable_gradient_checkpointing(trainer.model, trainer.args.gradient_checkpointing_kwargs),
    ):
        logps, _ = trainer._get_per_token_logps_and_entropies(
            trainer.model,
            ids,
            attention,
            batch["completion_ids"].size(1),
            batch_size=trainer.args.per_device_train_batch_size,
        )[:2]
    return logps
