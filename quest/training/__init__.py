"""Training datasets (QUEST-SPEC §5.1, §6): the RL prompt set from gated tasks (TRL JSONL or
verl parquet, scored by quest.rewards), the SFT set from recorded rollouts (rejection sampling,
one row per session, loss on the model's turns) and the mid-training set (condenser pairs and
page -> goal-directed evidence pairs), with a chat-template tokenizer for their rows.

Framework-free: TRL, verl and the tokenizers are the caller's; pyarrow is imported only to
write parquet.
"""

from __future__ import annotations

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
    "DatasetError",
    "MidBuilder",
    "MidReport",
    "RLSet",
    "Rollout",
    "SFTBuilder",
    "SFTReport",
    "Tokenized",
    "TrainingTask",
    "build_rl",
    "carries_loss",
    "components",
    "condenser_rows",
    "prompt_messages",
    "read_jsonl",
    "read_rollouts",
    "read_tasks",
    "rl_row",
    "rollout_records",
    "session_rows",
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
