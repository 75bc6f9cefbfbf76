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
        """GRPOTrainer that also trains the earlier sessions its rollout func set aside in
        `earlier_sessions` (one list per rollout, in the order of the prompts)."""

        earlier_sessions: list[list[EarlierSession]]

        def _generate_and_score_completions(self, inputs: Any) -> dict[str, Any]:
            self.earlier_sessions = []
            output = super()._generate_and_score_completions(inputs)
            earlier, self.earlier_sessions = self.earlier_sessions, []
            added = with_sessions(self, output, earlier)
            mode = "train" if self.model is not None and self.model.training else "eval"
            rows = added["advantages"].shape[0] - output["advantages"].shape[0]
            self._metrics[mode]["rollout/session_rows"].append(float(rows))
            return added

    return SessionGRPOTrainer


def with_sessions(
    trainer: Any, output: dict[str, Any], earlier: Sequence[Sequence[EarlierSession]]
) -> dict[str, Any]:
    """`output` (TRL's scored batch, one row per rollout) with a row per earlier session that
    has tokens to train, each with its rollout's advantage."""
    unknown = sorted(key for key, value in output.items() if value is not None and key not in KNOWN)
    if unknown:
        raise ValueError(f"sessions: cannot extend a scored batch holding {', '.join(unknown)}")
    extra = [(row, s) for row, sessions in enumerate(earlier) for s in sessions if s.trains]
    if not extra:
        return output
    pad = int(trainer.processing_class.pad_token_id)
    batch = _Batch.of(output)
    for row, session in extra:
        batch.add(session, float(output["advantages"][row]))
    batch.fill(trainer.args.steps_per_generation)
    rebuilt = batch.tensors(pad, output)
    mask = rebuilt["completion_mask"] * rebuilt["tool_mask"]
    rebuilt["num_items_in_batch"] = trainer.accelerator.gather(mask.sum()).sum()
    if output.get("old_per_token_logps") is not None:
        rebuilt["old_per_token_logps"] = _old_logps(trainer, rebuilt)
    return rebuilt


@dataclass
class _Batch:
    prompts: list[list[int]]
    completions: list[list[int]]
    masks: list[list[int]]  # loss masks (env masks)
    logprobs: list[list[float]]  # sampling log-probs
    advantages: list[float]
    trained: list[bool]  # False: a padding row

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
