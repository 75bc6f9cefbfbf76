"""The RL set: one prompt per gated task, as the agent loop starts a rollout (the system prompt
for the corpus tools, then the question), with the task id and the rubric tree as ground truth.

Two layouts of the same rows:
- TRL (JSONL): `prompt` (chat messages), `task_id`, `question`, `type`, `category`,
  `data_source`, `ability`, `ground_truth` (the tree's canonical JSON text). TRL hands the
  columns besides `prompt` to reward functions as keyword arguments, so
  quest.rewards.rubric_reward reads `ground_truth`.
- verl (parquet): `data_source`, `prompt`, `ability`, `reward_model` {style: "rule",
  ground_truth}, `extra_info` {task_id, index, question, type, category}; scored by
  quest.rewards.compute_score.

quest.rewards has no LLM judge, so a task whose tree has `judge` leaves would be dropped on
every rollout: such tasks are left out and reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.agent.prompts import system_prompt, user_prompt
from quest.training.records import write_jsonl, write_parquet
from quest.training.tasks import TrainingTask

# The tools of quest.tools.offline.offline_toolbox, in its order: the prompt a rollout over
# the corpus starts from.
CORPUS_TOOLS = ("search", "visit", "google_scholar", "PythonInterpreter")
DATA_SOURCE = "questweb"
ABILITY = "deep-research"
JUDGE_SKIP = "its tree has judge leaves, which quest.rewards cannot decide without a judge"


@dataclass
class RLSet:
    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (task id, why)


def prompt_messages(question: str, tools: Sequence[str] = CORPUS_TOOLS) -> list[dict[str, str]]:
    """The messages the agent loop starts a rollout with."""
    return [
        {"role": "system", "content": system_prompt(tools)},
        {"role": "user", "content": user_prompt(question)},
    ]


def rl_row(
    task: TrainingTask, *, tools: Sequence[str] = CORPUS_TOOLS, data_source: str = DATA_SOURCE
) -> dict[str, Any]:
    """One task's row in the TRL layout."""
    return {
        "prompt": prompt_messages(task.question, tools),
        "task_id": task.task_id,
        "question": task.question,
        "type": task.type,
        "category": task.category,
        "data_source": data_source,
        "ability": ABILITY,
        "ground_truth": task.ground_truth(),
    }


def build_rl(
    tasks: Iterable[TrainingTask],
    *,
    tools: Sequence[str] = CORPUS_TOOLS,
    data_source: str = DATA_SOURCE,
) -> RLSet:
    built = RLSet()
    for task in tasks:
        if task.needs_judge():
            built.skipped.append((task.task_id, JUDGE_SKIP))
        else:
            built.rows.append(rl_row(task, tools=tools, data_source=data_source))
    return built


def verl_row(row: dict[str, Any], index: int) -> dict[str, Any]:
    """A TRL-layout row in verl's RL dataset layout."""
    return {
        "data_source": row["data_source"],
        "prompt": row["prompt"],
        "ability": row["ability"],
        "reward_model": {"style": "rule", "ground_truth": row["ground_truth"]},
        "extra_info": {
            "task_id": row["task_id"],
            "index": index,
            "question": row["question"],
            "type": row["type"],
            "category": row["category"],
        },
    }


def verl_schema() -> Any:
    import pyarrow as pa

    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    return pa.schema(
        [
            ("data_source", pa.string()),
            ("prompt", pa.list_(message)),
            ("ability", pa.string()),
            ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
            (
                "extra_info",
                pa.struct(
                    [
                        ("task_id", pa.string()),
                        ("index", pa.int64()),
                        ("question", pa.string()),
                        ("type", pa.string()),
                        ("category", pa.string()),
                    ]
                ),
            ),
        ]
    )


def write_rl(path: str | Path, rows: Sequence[dict[str, Any]]) -> int:
    """`.parquet`: verl's layout; anything else: TRL's layout as JSON lines."""
    if Path(path).suffix == ".parquet":
        verl = (verl_row(row, index) for index, row in enumerate(rows))
        return write_parquet(path, verl, verl_schema())
    return write_jsonl(path, rows)
