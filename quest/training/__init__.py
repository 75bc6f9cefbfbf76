"""Training datasets (QUEST-SPEC §5.1, §6): the RL prompt set from gated tasks (TRL JSONL or
verl parquet, scored by quest.rewards), the SFT set from recorded rollouts (rejection sampling,
one row per session, loss on the model's turns) and the mid-training set (condenser pairs and
page -> goal-directed evidence pairs), with a chat-template tokenizer for their rows; the
collect job that records the rollouts the SFT set is built from (with the hint retry), and the
evaluation of a policy on held-out tasks with the same loop and reward.

Framework-free: TRL, verl and the tokenizers are the caller's; pyarrow is imported only to
write parquet.
"""

from __future__ import annotations

from quest.training.collect import CollectReport, collect
from quest.training.evaluate import (
    TaskScore,
    bootstrap_ci,
    evaluate,
    paired_difference,
    policy_for,
    summarize,
)
from quest.training.mid import MidBuilder, MidReport, condenser_rows, visits
from quest.training.records import DatasetError, read_jsonl, write_jsonl, write_parquet
from quest.training.rl import (
    CORPUS_TOOLS,
    RLSet,
    build_rl,
    prompt_messages,
    rl_row,
    verl_row,
    verl_schema,
    write_rl,
)
from quest.training.rollouts import Rollout, read_rollouts, rollout_records
from quest.training.sft import SFTBuilder, SFTReport, carries_loss, components, session_rows
from quest.training.tasks import TrainingTask, read_tasks, task_from_record
from quest.training.tokens import Tokenized, tokenize_messages, tokenize_row

__all__ = [
    "CORPUS_TOOLS",
    "CollectReport",
    "DatasetError",
    "MidBuilder",
    "MidReport",
    "RLSet",
    "Rollout",
    "SFTBuilder",
    "SFTReport",
    "TaskScore",
    "Tokenized",
    "TrainingTask",
    "bootstrap_ci",
    "build_rl",
    "carries_loss",
    "collect",
    "components",
    "condenser_rows",
    "evaluate",
    "paired_difference",
    "policy_for",
    "prompt_messages",
    "read_jsonl",
    "read_rollouts",
    "read_tasks",
    "rl_row",
    "rollout_records",
    "session_rows",
    "summarize",
    "task_from_record",
    "tokenize_messages",
    "tokenize_row",
    "verl_row",
    "verl_schema",
    "visits",
    "write_jsonl",
    "write_parquet",
    "write_rl",
]
