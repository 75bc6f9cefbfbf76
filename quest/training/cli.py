"""`python -m quest dataset …`: training datasets from gated tasks and recorded rollouts.

    python -m quest dataset rl TASKS.jsonl --out rl.parquet|rl.jsonl [--data-source NAME]
    python -m quest dataset sft TRAJECTORIES.jsonl --out sft.jsonl [--tasks TASKS.jsonl]
        [--corpus DIR] [--min-reward 0.5]
    python -m quest dataset mid TRAJECTORIES.jsonl --out mid.jsonl [--corpus DIR]
    python -m quest train CONFIG.yaml [--print-config]

`train` runs the SFT, mid-training or GRPO run a YAML config describes (quest.training.config);
`--print-config` prints the config with every default resolved and exits. The run's summary goes
to stdout as JSON, a line per logged step to stderr.

TASKS.jsonl holds gated tasks (quest.training.tasks); TRAJECTORIES.jsonl recorded rollouts
(quest.training.rollouts). The corpus is --corpus, else $QUESTWEB_CORPUS_DIR. A summary goes to
stdout as JSON, progress to stderr. The output is replaced only once it is complete. Bad input
exits 1 with one `error: …` line on stderr.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from quest.corpus.cli import UsageError, emit, guarded
from quest.corpus.store import CorpusStore
from quest.training.config import ConfigError, load_config, render_yaml
from quest.training.records import DatasetError, read_jsonl, write_jsonl
from quest.training.rollouts import Rollout, read_rollouts
from quest.training.sft import DEFAULT_MIN_REWARD

Handler = Callable[[argparse.Namespace], int]
T = TypeVar("T")
PROGRESS_SECONDS = 2.0
SKIPPED_SHOWN = 20


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("dataset", help="training datasets: RL prompts, SFT, mid")
    actions = parser.add_subparsers(dest="dataset_action", metavar="KIND", required=True)

    rl = actions.add_parser("rl", help="RL prompts from gated tasks (verl parquet or TRL JSONL)")
    rl.add_argument("tasks", metavar="TASKS.jsonl")
    rl.add_argument("--out", required=True, help="*.parquet: verl's layout; *.jsonl: TRL's")
    rl.add_argument("--data-source", default="questweb", help="the rows' data_source")
    rl.set_defaults(func=_guarded(_rl))

    sft = actions.add_parser("sft", help="sessions of rollouts whose reward passes a threshold")
    sft.add_argument("trajectories", metavar="TRAJECTORIES.jsonl")
    sft.add_argument("--out", required=True, help="the SFT rows (JSONL)")
    sft.add_argument("--tasks", metavar="TASKS.jsonl", help="the gated tasks and their trees")
    sft.add_argument("--corpus", metavar="DIR", help="corpus directory (or $QUESTWEB_CORPUS_DIR)")
    sft.add_argument(
        "--min-reward",
        type=float,
        default=DEFAULT_MIN_REWARD,
        help=f"keep rollouts whose reward is at least this (default {DEFAULT_MIN_REWARD})",
    )
    sft.set_defaults(func=_guarded(_sft))

    mid = actions.add_parser("mid", help="condenser pairs and page -> evidence pairs")
    mid.add_argument("trajectories", metavar="TRAJECTORIES.jsonl")
    mid.add_argument("--out", required=True, help="the mid-training rows (JSONL)")
    mid.add_argument("--corpus", metavar="DIR", help="corpus directory (or $QUESTWEB_CORPUS_DIR)")
    mid.set_defaults(func=_guarded(_mid))

    train = subparsers.add_parser("train", help="run an SFT, mid-training or GRPO config")
    train.add_argument("config", metavar="CONFIG.yaml")
    train.add_argument(
        "--print-config", action="store_true", help="print the resolved config and exit"
    )
    train.set_defaults(func=_guarded(_train))


def _guarded(handler: Handler) -> Handler:
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (DatasetError, ConfigError) as error:
            raise UsageError(str(error)) from None

    return guarded(run)


def _rl(args: argparse.Namespace) -> int:
    from quest.training.rl import build_rl, write_rl
    from quest.training.tasks import read_tasks

    suffix = Path(args.out).suffix
    if suffix not in (".parquet", ".jsonl"):
        raise UsageError(f"--out must end in .parquet (verl) or .jsonl (TRL), not {suffix!r}")
    tasks = read_tasks(args.tasks)
    built = build_rl(tasks, data_source=args.data_source)
    rows = write_rl(args.out, built.rows)
    for task_id, why in built.skipped[:SKIPPED_SHOWN]:
        _progress(f"rl: task {task_id} left out: {why}")
    emit(
        {
            "out": args.out,
            "layout": "verl" if suffix == ".parquet" else "trl",
            "tasks": len(tasks),
            "rows": rows,
            "skipped": [{"task_id": t, "reason": why} for t, why in built.skipped],
        }
    )
    return 0


def _sft(args: argparse.Namespace) -> int:
    from quest.training.sft import SFTBuilder
    from quest.training.tasks import read_tasks

    if math.isnan(args.min_reward):
        raise UsageError("--min-reward must be a number")
    tasks = read_tasks(args.tasks) if args.tasks else None
    store = _store(args.corpus)
    builder = SFTBuilder(tasks=tasks, store=store, min_reward=args.min_reward)
    rows = write_jsonl(args.out, builder.rows(_rollouts(args.trajectories, "sft")))
    if store is None:
        _progress(
            "sft: no corpus: citations were not checked (valid rate 0) and leaves that read the "
            "cited pages could not run (their rollouts were dropped)"
        )
    emit({"out": args.out, "rows": rows, **builder.report.to_json()})
    return 0


def _mid(args: argparse.Namespace) -> int:
    from quest.training.mid import MidBuilder

    store = _store(args.corpus)
    builder = MidBuilder(store=store)
    rows = write_jsonl(args.out, builder.rows(_rollouts(args.trajectories, "mid")))
    if store is None:
        _progress("mid: no corpus: the pages could not be read, so there are no page rows")
    emit({"out": args.out, "rows": rows, **builder.report.to_json()})
    return 0


def _train(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if args.print_config:
        sys.stdout.write(render_yaml(config))
        return 0
    from quest.training.trainers import run_training

    emit(run_training(config))
    return 0


def _store(corpus: str | None) -> CorpusStore | None:
    directory = corpus or os.environ.get("QUESTWEB_CORPUS_DIR")
    return CorpusStore(directory) if directory else None


def _rollouts(path: str, label: str) -> Iterator[Rollout]:
    return _counted(read_rollouts(read_jsonl(path), source=path), label, "rollouts")


def _counted(items: Iterable[T], label: str, unit: str) -> Iterator[T]:
    """`items`, printing how many were read at most every PROGRESS_SECONDS, and the total."""
    count, shown = 0, time.monotonic()
    for item in items:
        count += 1
        if time.monotonic() - shown >= PROGRESS_SECONDS:
            shown = time.monotonic()
            _progress(f"{label}: {count:,} {unit} read")
        yield item
    _progress(f"{label}: {count:,} {unit} read")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
