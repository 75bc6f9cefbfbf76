"""Training runs with TRL 1.16: SFT and mid-training (SFTTrainer) and GRPO with multi-turn agent
rollouts (GRPOTrainer with quest.training.agent_rollouts as its `rollout_func`).

SFT and mid rows are tokenised here with quest.training.tokens (the chat template, loss on the
messages flagged `loss`) and handed to SFTTrainer as `input_ids` + `labels` (-100 off the loss).
SmolLM2's chat template has no `{% generation %}` markers, which TRL's `assistant_only_loss`
needs, and the dataset marks invalid model turns as untrained, which no template knows; so the
masks are the dataset builder's, token for token. A row longer than `sft.max_length` is cut at
its end; a row left with no trained token is skipped.

GRPO: prompts are the RL set's rows (TRL layout: `prompt`, `ground_truth`, ...), each run by the
agent over the corpus tools `num_generations` times, rewarded by the rubric reward
(QUEST-SPEC §2) of the model's last turn, citations checked against the corpus. The reward's
components are logged as `reward/base`, `reward/citation`, `reward/dropped`.

Every run writes OUTPUT_DIR/metrics.jsonl, checkpoints OUTPUT_DIR/checkpoint-N and, unless
stopped, OUTPUT_DIR/final (model and tokenizer, bf16 weights). A checkpoint holds the bf16 weights
only, unless the run is `resumable`: then its newest checkpoint keeps the fp32 weights with the
optimiser and scheduler state (`resume_from` continues the step count) and each older one is cut
to bf16 weights (quest.training.callbacks.checkpoints_callback).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from quest.agent import Budgets
from quest.agent.prompts import split_user_prompt
from quest.rewards import corpus_store, score_with_tree
from quest.rubric.errors import RubricError
from quest.rubric.importers import loads_tree
from quest.rubric.reward import BASE_SHARE, Reward
from quest.rubric.score import CompiledTree, compile_tree
from quest.tools.offline import offline_toolbox
from quest.training.agent_rollouts import RolloutStats, make_rollout_func
from quest.training.callbacks import (
    checkpoints_callback,
    metrics_callback,
    progress,
    stop_callback,
    store_bf16,
)
from quest.training.config import ConfigError, TrainConfig, check_paths, render_yaml
from quest.training.dynamic import Curriculum
from quest.training.models import load_model
from quest.training.precision import Precision, choose
from quest.training.records import read_jsonl
from quest.training.sessions import session_trainer_class
from quest.training.tokens import tokenize_row

FINAL_DIR = "final"
CONFIG_FILE = "config.yaml"
ROLLOUTS = "rollouts.jsonl"  # one line per GRPO rollout: what the run's rollout table shows
EXCERPT_CHARS = 2_000
IGNORED = -100
NO_ANSWER = "no final answer"  # quest.rewards' reason for a rollout with no answer block


def run_training(config: TrainConfig) -> dict[str, Any]:
    """Train as `config` says; returns a summary: status (finished | stopped), steps, paths."""
    check_paths(config)
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG_FILE).write_text(render_yaml(config), encoding="utf-8")
    if config.stop_path.exists():  # left by an earlier cancel: this run was asked for since
        config.stop_path.unlink()
        progress(f"train: removed the stop file {config.stop_path} left by an earlier run")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from transformers.trainer_callback import PrinterCallback
    from transformers.utils import logging

    logging.disable_progress_bar()  # type: ignore[no-untyped-call]

    progress(f"train: loading {config.model}")
    model, tokenizer = load_model(config.model, seed=config.seed)
    precision = choose(config.precision, model, tokenizer)
    precision.write(out)
    progress(f"train: computing in {precision.use}: {precision.why}")
    stop = stop_callback(config.stop_path)
    if config.kind == "grpo":
        trainer = _grpo_trainer(config, model, tokenizer, stop, precision)
    else:
        trainer = _sft_trainer(config, model, tokenizer, stop, precision)
    # transformers prints each log to stdout when tqdm is off; the metrics callback logs instead.
    trainer.remove_callback(PrinterCallback)
    progress(f"train: {_first_step(config)}")
    with _sigterm(stop.request):
        trainer.train(resume_from_checkpoint=config.resume_from)
    return _finish(config, trainer, tokenizer, stop.stopped_at)


def _first_step(config: TrainConfig) -> str:
    if config.kind == "grpo":
        grpo = config.grpo
        return (
            f"step 1: rolling out {grpo.prompts_per_step} prompts x {grpo.num_generations} "
            "agent runs, then the update (logged when the step ends)"
        )
    return "step 1: forward and backward passes (logged when the step ends)"


def _finish(
    config: TrainConfig, trainer: Any, tokenizer: Any, stopped_at: int | None
) -> dict[str, Any]:
    out = Path(config.output_dir)
    summary: dict[str, Any] = {
        "status": "stopped" if stopped_at is not None else "finished",
        "steps": trainer.state.global_step,
        "output_dir": str(out),
        "metrics": str(out / "metrics.jsonl"),
        "checkpoints": sorted(str(p) for p in out.glob("checkpoint-*")),
    }
    if stopped_at is None:
        _save_final(trainer, out / FINAL_DIR)
        tokenizer.save_pretrained(str(out / FINAL_DIR))
        summary["final"] = str(out / FINAL_DIR)
    return summary


def _save_final(trainer: Any, directory: Path) -> None:
    """The trained model as a plain model directory, in bf16 (half the bytes; load_model
    trains from it in float32): LoRA adapters merged into the weights."""
    model = trainer.accelerator.unwrap_model(trainer.model)
    if hasattr(model, "merge_and_unload"):
        model.merge_and_unload().save_pretrained(str(directory))
    else:
        trainer.save_model(str(directory))
    if trainer.args.should_save:
        store_bf16(directory)


def _peft(config: TrainConfig) -> dict[str, Any]:
    """The trainers' peft_config when LoRA is on."""
    lora = config.lora
    if lora.r == 0:
        return {}
    from peft import LoraConfig

    names = lora.target_modules
    modules: str | list[str] = names
    if names != "all-linear":
        modules = [name.strip() for name in names.split(",") if name.strip()]
    return {
        "peft_config": LoraConfig(
            r=lora.r,
            lora_alpha=lora.alpha,
            lora_dropout=lora.dropout,
            target_modules=modules,
            task_type="CAUSAL_LM",
        )
    }


@contextmanager
def _sigterm(handler: Callable[..., None]) -> Iterator[None]:
    """SIGTERM asks for a stop while the block runs (only the main thread can take signals)."""
    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: the stop file still works
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _common(config: TrainConfig, precision: Precision) -> dict[str, Any]:
    return {
        "output_dir": config.output_dir,
        "max_steps": config.max_steps,
        "save_steps": config.save_steps,
        "logging_steps": config.logging_steps,
        "seed": config.seed,
        "report_to": "none",
        "disable_tqdm": True,
        "save_only_model": not config.resumable,
        # Mixed precision (bf16 autocast, float32 weights) only as quest.training.precision
        # chose; TRL would otherwise ask for bf16 on hardware that cannot.
        "bf16": precision.bf16,
        "use_cpu": precision.device == "cpu",
    }


def _sft_trainer(
    config: TrainConfig, model: Any, tokenizer: Any, stop: Any, precision: Precision
) -> Any:
    from datasets import Dataset
    from trl.trainer.sft_config import SFTConfig
    from trl.trainer.sft_trainer import SFTTrainer

    params = config.sft
    progress(f"train: tokenising the dataset (rows cut at {params.max_length} tokens)")
    rows = list(sft_examples(config.dataset, tokenizer, params.max_length))
    if not rows:
        raise ConfigError("dataset: no row has a token to train on")
    progress(f"train: {len(rows)} {config.kind} rows")
    args = SFTConfig(
        **_common(config, precision),
        learning_rate=params.learning_rate,
        per_device_train_batch_size=params.batch_size,
        gradient_accumulation_steps=params.gradient_accumulation_steps,
        lr_scheduler_type=params.lr_scheduler,
        warmup_steps=params.warmup_ratio,
        weight_decay=params.weight_decay,
        max_length=None,
        packing=False,
    )
    return SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        callbacks=[
            metrics_callback(Path(config.output_dir)),
            stop,
            checkpoints_callback(resumable=config.resumable),
        ],
        **_peft(config),
    )


def sft_examples(
    paths: Sequence[str], tokenizer: Any, max_length: int
) -> Iterator[dict[str, list[int]]]:
    """`input_ids` and `labels` of every SFT or mid row with a trained token."""
    for path in paths:
        for _, row in read_jsonl(path):
            tokenized = tokenize_row(tokenizer, row)
            ids = tokenized.input_ids[:max_length]
            mask = tokenized.loss_mask[:max_length]
            if any(mask):
                labels = [t if m else IGNORED for t, m in zip(ids, mask, strict=True)]
                yield {"input_ids": ids, "labels": labels}


def _grpo_trainer(
    config: TrainConfig, model: Any, tokenizer: Any, stop: Any, precision: Precision
) -> Any:
    from datasets import Dataset
    from trl.trainer.grpo_config import GRPOConfig

    params, budgets = config.grpo, _budgets(config)
    assert config.corpus is not None  # the config's validator requires it for grpo
    rows = [row for path in config.dataset for _, row in read_jsonl(path)]
    missing = [i for i, row in enumerate(rows) if "prompt" not in row or "ground_truth" not in row]
    if missing or not rows:
        raise ConfigError("dataset: grpo needs RL rows with `prompt` and `ground_truth`")
    progress(f"train: {len(rows)} prompts, {params.num_generations} rollouts each")
    stats = RolloutStats()
    args = GRPOConfig(
        **_common(config, precision),
        learning_rate=params.learning_rate,
        num_generations=params.num_generations,
        per_device_train_batch_size=params.num_generations,
        gradient_accumulation_steps=params.prompts_per_step,
        epsilon=params.epsilon,
        epsilon_high=params.epsilon_high,
        beta=params.beta,
        temperature=params.temperature,
        loss_type=params.loss_type,
        max_completion_length=budgets.max_session_response_tokens,
        **_vllm(params),
    )
    trainer = session_trainer_class()(
        model=model,
        reward_funcs=[
            rubric_reward_func(
                config.corpus,
                stats,
                rollouts=Path(config.output_dir) / ROLLOUTS,
                shuffle_seed=config.seed if params.reward == "shuffled" else None,
            )
        ],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        rollout_func=make_rollout_func(
            toolbox=offline_toolbox(config.corpus),
            budgets=budgets,
            temperature=params.temperature,
            stats=stats,
            autocast=precision.autocast,
        ),
        callbacks=[
            metrics_callback(Path(config.output_dir), stats=stats),
            stop,
            checkpoints_callback(resumable=config.resumable),
        ],
        **_peft(config),
    )
    trainer.train_earlier = params.sessions == "all"
    if params.curriculum:
        trainer.curriculum = _curriculum(rows, config.seed)
        trainer.dynamic_rounds = params.dynamic_rounds
    return trainer


def _curriculum(rows: Sequence[dict[str, Any]], seed: int) -> Curriculum:
    """The run's curriculum, with each row's `pass_rate` (the collection's estimate) as prior."""
    curriculum = Curriculum(len(rows), seed=seed)
    for index, row in enumerate(rows):
        rate = row.get("pass_rate")
        curriculum.prior(index, float(rate) if isinstance(rate, int | float) else None)
    return curriculum


def _vllm(params: Any) -> dict[str, Any]:
    """GRPOConfig's vLLM fields: colocated engines only (see agent_rollouts.vllm_sampler)."""
    if params.vllm == "off":
        return {}
    return {
        "use_vllm": True,
        "vllm_mode": "colocate",
        "vllm_gpu_memory_utilization": params.vllm_gpu_memory_utilization,
    }


def _budgets(config: TrainConfig) -> Budgets:
    return config.rollout.budgets()


def rubric_reward_func(
    corpus: str,
    stats: RolloutStats,
    *,
    rollouts: Path | None = None,
    shuffle_seed: int | None = None,
) -> Callable[..., list[float | None]]:
    """TRL's reward function: the rubric reward of each rollout's last model turn (None: the
    verifier could not run, which TRL leaves out of the group's baseline). With `rollouts`,
    each rollout's question, answer excerpt and reward components are appended there. With a
    `shuffle_seed`, the random-reward control: what trains is `shuffled_rewards` of the batch,
    while the metrics and the rollouts file keep the true rewards."""
    store = corpus_store(corpus)
    calls = 0

    def rubric(
        ground_truth: Sequence[str],
        final_output: Sequence[str],
        log_metric: Callable[[str, float], None] | None = None,
        **extra: Any,
    ) -> list[float | None]:
        started = time.monotonic()
        rewards = [
            _reward(_compiled(tree), text, store)
            for tree, text in zip(ground_truth, final_output, strict=True)
        ]
        stats.reward_seconds += time.monotonic() - started
        if log_metric is not None:
            for name, value in _components(rewards).items():
                log_metric(name, value)
        values = [reward.value for reward in rewards]
        trained = values
        if shuffle_seed is not None:
            nonlocal calls
            calls += 1
            trained = shuffled_rewards(values, seed=shuffle_seed * 1_000_003 + calls)
        if rollouts is not None:
            trees = [_compiled(tree) for tree in ground_truth]
            _append_rollouts(rollouts, rewards, final_output, trees, extra, trained)
        return trained

    return rubric


def shuffled_rewards(values: Sequence[float | None], *, seed: int) -> list[float | None]:
    """The batch's rewards permuted among its scored rollouts (a None, which TRL leaves out of
    the baseline, stays where it is): the mean and the spread are kept, the link to each answer
    is cut. Seeded, so a control run is reproducible."""
    scored = [i for i, value in enumerate(values) if value is not None]
    order = [values[i] for i in scored]
    random.Random(seed).shuffle(order)
    out = list(values)
    for index, value in zip(scored, order, strict=True):
        out[index] = value
    return out


def _append_rollouts(
    path: Path,
    rewards: Sequence[Reward],
    outputs: Sequence[str],
    trees: Sequence[CompiledTree | str],
    extra: dict[str, Any],
    trained: Sequence[float | None],
) -> None:
    state = extra.get("trainer_state")
    step = int(getattr(state, "global_step", 0)) + 1  # the step these rollouts train
    prompts = extra.get("prompts") or [None] * len(rewards)
    statuses = extra.get("status") or [""] * len(rewards)
    with path.open("a", encoding="utf-8") as handle:
        for index, (reward, text, tree, prompt, status, value) in enumerate(
            zip(rewards, outputs, trees, prompts, statuses, trained, strict=False)
        ):
            question = split_user_prompt(prompt[-1]["content"])[0] if prompt else ""
            record = {
                "step": step,
                "index": index,
                "question": question[:EXCERPT_CHARS],
                "completion": text[-EXCERPT_CHARS:],
                "status": status,
                "reward": reward.value,
                "trained_reward": value,  # differs from reward in the shuffled control
                "base": reward.base,
                "citation": _citation(reward) if reward.value is not None else None,
                "valid_rate": reward.valid_rate,
                "leaves": _leaves(reward, tree),
                "reason": reward.reason[:500],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _leaves(reward: Reward, tree: CompiledTree | str) -> list[int] | None:
    """[passed, total] leaves; an answer that never came passed none of them."""
    if reward.leaves is not None:
        return list(reward.leaves)
    return [0, len(tree.leaf_ids)] if isinstance(tree, CompiledTree) else None


def _reward(tree: CompiledTree | str, text: str, store: Any) -> Reward:
    if isinstance(tree, str):
        return Reward(None, None, 0.0, (), tree)
    return score_with_tree(tree, text, store)


@lru_cache(maxsize=4_096)
def _compiled(text: str) -> CompiledTree | str:
    try:
        return compile_tree(loads_tree(text).tree)
    except (RubricError, TypeError, ValueError) as error:
        return f"the ground truth is not a rubric tree: {error}"


def _components(rewards: Sequence[Reward]) -> dict[str, float]:
    scored = [r for r in rewards if r.value is not None]
    n = max(len(scored), 1)
    leaves = [r.leaves[0] / r.leaves[1] for r in scored if r.leaves and r.leaves[1]]
    citing = [r for r in scored if r.citations]
    return {
        "reward/base": sum(r.base or 0.0 for r in scored) / n,
        "reward/citation": sum(_citation(r) for r in scored) / n,
        "reward/dropped": (len(rewards) - len(scored)) / max(len(rewards), 1),
        # A closed, non-empty answer block (what the tree reads) was written.
        "reward/answered": sum(not r.reason.startswith(NO_ANSWER) for r in scored) / n,
        # Answers citing at least one page, and the share of their citations the pages support.
        "reward/cites": len(citing) / n,
        "reward/valid_citations": sum(r.valid_rate for r in citing) / max(len(citing), 1),
        # The share of the tree's leaves passed (identity and fact checks alike).
        "reward/leaves": sum(leaves) / len(leaves) if leaves else 0.0,
    }


def _citation(reward: Reward) -> float:
    """The citation term: R - 0.75·base."""
    return (reward.value or 0.0) - BASE_SHARE * (reward.base or 0.0)
