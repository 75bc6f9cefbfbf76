"""`python -m quest dataset …`: training datasets from gated tasks and recorded rollouts.

    python -m quest dataset rl TASKS.jsonl --out rl.parquet|rl.jsonl [--data-source NAME]
    python -m quest dataset sft TRAJECTORIES.jsonl --out sft.jsonl [--tasks TASKS.jsonl]
        [--corpus DIR] [--min-reward 0.5]
    python -m quest dataset mid TRAJECTORIES.jsonl --out mid.jsonl [--corpus DIR]
    python -m quest dataset collect TASKS.jsonl --out TRAJECTORIES.jsonl [--policy scripted|SPEC]
        [--attempts N] [--min-reward 0.5] [--no-hint-retry] [--corpus DIR] [--budgets rl|inference]
        [--temperature T]
    python -m quest eval TASKS.jsonl --policy SPEC [--base SPEC] [--corpus DIR] [--out report.json]
        [--limit N] [--budgets rl|inference] [--temperature T]
    python -m quest train CONFIG.yaml [--print-config]

`collect` runs a policy on gated tasks and records every rollout with its reward and a `kept`
flag (quest.training.collect); `dataset sft` turns its output into the SFT set. `eval` scores a
policy, and optionally a base to compare it with, on held-out tasks (quest.training.evaluate).
A policy is `scripted` or an LLM backend spec (`transformers:<dir or smollm2>`, `vllm:<model>`,
`URL|MODEL[|KEY_ENV]` endpoints); both run with the RL budgets unless `--budgets inference`.

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
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from quest.agent.budgets import Budgets
from quest.cli.common import UsageError, emit, guarded
from quest.cli.progress import counted, say
from quest.corpus.store import CorpusStore
from quest.tools.offline import offline_toolbox
from quest.tools.toolbox import Toolbox
from quest.training.collect import collect
from quest.training.config import ConfigError, load_config, render_yaml
from quest.training.evaluate import (
    CondenserFactory,
    PolicyFactory,
    TaskScore,
    evaluate,
    paired_difference,
    policy_for,
    summarize,
)
from quest.training.mid import MidBuilder
from quest.training.records import DatasetError, atomic_path, read_jsonl, write_jsonl
from quest.training.rl import build_rl, write_rl
from quest.training.rollouts import Rollout, read_rollouts
from quest.training.sft import DEFAULT_MIN_REWARD, SFTBuilder
from quest.training.tasks import TrainingTask, read_tasks
from quest.training.trainers import run_training

Handler = Callable[[argparse.Namespace], int]
Policies = tuple[PolicyFactory, CondenserFactory]
T = TypeVar("T")
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
    _corpus_option(sft)
    _min_reward_option(sft, "keep rollouts whose reward is at least this")
    sft.set_defaults(func=_guarded(_sft))

    mid = actions.add_parser("mid", help="condenser pairs and page -> evidence pairs")
    mid.add_argument("trajectories", metavar="TRAJECTORIES.jsonl")
    mid.add_argument("--out", required=True, help="the mid-training rows (JSONL)")
    _corpus_option(mid)
    mid.set_defaults(func=_guarded(_mid))

    collect = actions.add_parser("collect", help="record a policy's rollouts on gated tasks")
    collect.add_argument("tasks", metavar="TASKS.jsonl")
    collect.add_argument("--out", required=True, help="every rollout's records (JSONL)")
    _min_reward_option(collect, "a rollout is kept when its reward is at least this")
    collect.add_argument("--attempts", type=int, default=1, help="rollouts per task (default 1)")
    collect.add_argument(
        "--no-hint-retry",
        action="store_true",
        help="do not retry a task with no kept rollout with its failed leaves as a hint",
    )
    _run_options(collect, policy_default="scripted")
    collect.set_defaults(func=_guarded(_collect))

    evaluation = subparsers.add_parser(
        "eval",
        help="score a policy (and a base) on held-out tasks; public benchmarks: `eval bench`",
        epilog="Public benchmarks (BrowseComp-Plus, FlashRAG, FRAMES): quest eval bench --help",
    )
    evaluation.add_argument("tasks", metavar="TASKS.jsonl")
    evaluation.add_argument("--base", metavar="SPEC", help="a policy to compare with")
    evaluation.add_argument("--out", metavar="FILE", help="the report with every task's score")
    evaluation.add_argument("--limit", type=int, help="only the first N tasks")
    _run_options(evaluation, policy_default=None)
    evaluation.set_defaults(func=_guarded(_eval))

    train = subparsers.add_parser("train", help="run an SFT, mid-training or GRPO config")
    train.add_argument("config", metavar="CONFIG.yaml")
    train.add_argument(
        "--print-config", action="store_true", help="print the resolved config and exit"
    )
    train.add_argument(
        "--reward",
        choices=("rubric", "shuffled"),
        help="GRPO's reward: the rubric's, or shuffled (the random-reward control); "
        "default: the config's grpo.reward",
    )
    train.set_defaults(func=_guarded(_train))


def _corpus_option(parser: argparse.ArgumentParser) -> None:
    help_text = "corpus directory (or $QUESTWEB_CORPUS_DIR)"
    parser.add_argument("--corpus", metavar="DIR", help=help_text)


def _min_reward_option(parser: argparse.ArgumentParser, kept: str) -> None:
    """The reward a rollout needs to be kept; `kept` says so in the help."""
    parser.add_argument(
        "--min-reward",
        type=float,
        default=DEFAULT_MIN_REWARD,
        help=f"{kept} (default {DEFAULT_MIN_REWARD})",
    )


def _run_options(parser: Any, *, policy_default: str | None) -> None:
    """The options of the commands that run a policy: which one, over which corpus, how long."""
    default = f" (default {policy_default})" if policy_default else ""
    parser.add_argument(
        "--policy",
        metavar="SPEC",
        default=policy_default,
        required=policy_default is None,
        help=f"scripted, or an LLM backend spec{default}",
    )
    _corpus_option(parser)
    parser.add_argument("--budgets", choices=("rl", "inference"), default="rl")
    parser.add_argument("--temperature", type=float, help="LLM sampling temperature")


def _guarded(handler: Handler) -> Handler:
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (DatasetError, ConfigError) as error:
            raise UsageError(str(error)) from None

    return guarded(run)


def _rl(args: argparse.Namespace) -> int:
    suffix = Path(args.out).suffix
    if suffix not in (".parquet", ".jsonl"):
        raise UsageError(f"--out must end in .parquet (verl) or .jsonl (TRL), not {suffix!r}")
    tasks = read_tasks(args.tasks)
    built = build_rl(tasks, data_source=args.data_source)
    rows = write_rl(args.out, built.rows)
    for task_id, why in built.skipped[:SKIPPED_SHOWN]:
        say(f"rl: task {task_id} left out: {why}")
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
    if math.isnan(args.min_reward):
        raise UsageError("--min-reward must be a number")
    tasks = read_tasks(args.tasks) if args.tasks else None
    store = _store(args.corpus)
    builder = SFTBuilder(tasks=tasks, store=store, min_reward=args.min_reward)
    rows = write_jsonl(args.out, builder.rows(_rollouts(args.trajectories, "sft")))
    if store is None:
        say(
            "sft: no corpus: citations were not checked (valid rate 0) and leaves that read the "
            "cited pages could not run (their rollouts were dropped)"
        )
    emit({"out": args.out, "rows": rows, **builder.report.to_json()})
    return 0


def _mid(args: argparse.Namespace) -> int:
    store = _store(args.corpus)
    builder = MidBuilder(store=store)
    rows = write_jsonl(args.out, builder.rows(_rollouts(args.trajectories, "mid")))
    if store is None:
        say("mid: no corpus: the pages could not be read, so there are no page rows")
    emit({"out": args.out, "rows": rows, **builder.report.to_json()})
    return 0


def _collect(args: argparse.Namespace) -> int:
    if args.attempts < 1:
        raise UsageError("--attempts must be at least 1")
    if math.isnan(args.min_reward):
        raise UsageError("--min-reward must be a number")
    _check_out(args.out)
    tasks = read_tasks(args.tasks)
    run = _run_setup(args)
    policy, condenser = run.policy(args.policy)
    with atomic_path(args.out) as partial, partial.open("w", encoding="utf-8") as handle:
        report = collect(
            tasks,
            policy_factory=policy,
            condenser_factory=condenser,
            toolbox=run.toolbox,
            budgets=run.budgets,
            store=run.store,
            attempts=args.attempts,
            min_reward=args.min_reward,
            hint_retry=not args.no_hint_retry,
            on_rollout=lambda records, kept: _write_rollout(handle, records, kept),
        )
    emit({"out": args.out, **report.to_json()})
    return 0


def _write_rollout(handle: IO[str], records: list[dict[str, Any]], kept: bool) -> None:
    handle.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    header, reward = records[0], records[0]["reward"]
    verdict = "" if reward["dropped"] else " (kept)" if kept else " (below the threshold)"
    where = f"collect: task {header['task_id']} {header['rollout_id']}"
    say(f"{where}: {_reward_text(reward['reward'])}{verdict}")


def _eval(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.out:
        _check_out(args.out)
    tasks = read_tasks(args.tasks)[: args.limit]
    run = _run_setup(args)
    specs = {"policy": args.policy, **({"base": args.base} if args.base else {})}
    policies = {name: run.policy(spec) for name, spec in specs.items()}  # both checked first
    scores = {name: _scores(name, tasks, policies[name], run) for name in specs}
    report = {
        "models": {name: _model_report(specs[name], scores[name]) for name in specs},
        "difference": paired_difference(scores["policy"], scores["base"]) if args.base else None,
    }
    if args.out:
        with atomic_path(args.out) as partial:
            partial.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    emit({"out": args.out, **_without_scores(report)})
    return 0


def _scores(
    name: str, tasks: list[TrainingTask], policy: Policies, run: _RunSetup
) -> list[TaskScore]:
    def shown(index: int, score: TaskScore) -> None:
        where = f"eval {name}: task {index + 1}/{len(tasks)} {score.task_id}"
        say(f"{where}: {_reward_text(score.reward)} ({score.status})")

    return evaluate(
        tasks,
        policy_factory=policy[0],
        condenser_factory=policy[1],
        toolbox=run.toolbox,
        budgets=run.budgets,
        store=run.store,
        on_task=shown,
    )


def _model_report(spec: str, scores: list[TaskScore]) -> dict[str, Any]:
    return {"spec": spec, **summarize(scores), "scores": [score.to_dict() for score in scores]}


def _without_scores(report: dict[str, Any]) -> dict[str, Any]:
    models = report["models"]
    summaries = {name: {k: v for k, v in m.items() if k != "scores"} for name, m in models.items()}
    return {**report, "models": summaries}


def _check_out(path: str) -> None:
    """Before any policy runs: a run is too costly to lose to a typo in the output path."""
    if not Path(path).resolve().parent.is_dir():
        raise UsageError(f"--out {path}: no such directory")


def _reward_text(value: float | None) -> str:
    return "dropped" if value is None else f"reward {value:.3f}"


@dataclass(frozen=True)
class _RunSetup:
    """What every policy run of `collect` and `eval` shares: the corpus tools, the store the
    reward checks citations against, the budgets and the sampling temperature."""

    toolbox: Toolbox
    store: CorpusStore
    budgets: Budgets
    temperature: float | None

    def policy(self, spec: str) -> Policies:
        try:
            return policy_for(spec, budgets=self.budgets, temperature=self.temperature)
        except ValueError as error:
            raise UsageError(str(error)) from None


def _run_setup(args: argparse.Namespace) -> _RunSetup:
    if args.temperature is not None and not args.temperature >= 0:
        raise UsageError("--temperature must be a number of at least 0")
    corpus = args.corpus or os.environ.get("QUESTWEB_CORPUS_DIR")
    if not corpus:
        raise UsageError("give --corpus DIR or set QUESTWEB_CORPUS_DIR: the tools search it")
    budgets = Budgets.rl() if args.budgets == "rl" else Budgets.inference()
    return _RunSetup(offline_toolbox(corpus), CorpusStore(corpus), budgets, args.temperature)


def _train(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if args.reward is not None:
        if config.kind != "grpo":
            raise ConfigError(f"--reward applies to grpo configs, not {config.kind}")
        config = config.model_copy(
            update={"grpo": config.grpo.model_copy(update={"reward": args.reward})}
        )
    if args.print_config:
        sys.stdout.write(render_yaml(config))
        return 0
    emit(run_training(config))
    return 0


def _store(corpus: str | None) -> CorpusStore | None:
    directory = corpus or os.environ.get("QUESTWEB_CORPUS_DIR")
    return CorpusStore(directory) if directory else None


def _rollouts(path: str, label: str) -> Iterator[Rollout]:
    return counted(read_rollouts(read_jsonl(path), source=path), label, "rollouts")
