"""`python -m quest loop --out DIR [--minutes 140] [--tasks 220] [--seed S] [--auto-accept-sound]`:
the whole recipe offline, resumable (quest.loop.runner).

    python -m quest loop --out var/loop --auto-accept-sound          # the hour on a CPU
    python -m quest loop --out var/loop --minutes 120                # continue with more time
    python -m quest loop --out var/loop --config loop.yaml   # every knob: --print-config

The first run writes DIR/loop.yaml; a later run on the same DIR resumes with it, and refuses
options that would change it (only --minutes may grow). The corpus is --corpus, else
$QUESTWEB_CORPUS_DIR, else it is built from the packages into DIR/corpus (BM25, ~15 s).
Exit status 0 when the report is written, 3 while the human gate waits, 1 on an error.
Progress goes to stderr; the report's summary to stdout as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from quest.cli.common import UsageError, emit, guarded
from quest.cli.progress import say
from quest.corpus import corpus_write, load_offline
from quest.loop.config import (
    LoopError,
    changed_fields,
    parse_loop_config,
    read_loop_config,
    render_loop_config,
)
from quest.loop.runner import LoopStopped, run_loop
from quest.loop.state import LoopState
from quest.search.indexing import bm25_build
from quest.untrusted_yaml import load_yaml

WAITING = 3
BM25 = Path("index") / "bm25"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "loop", help="the whole recipe: synthesize, gate, collect, SFT, GRPO, evaluate, report"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="the loop's directory")
    parser.add_argument("--minutes", type=float, help="the time budget (default 140)")
    parser.add_argument(
        "--tasks", type=int, help="proposals to synthesize in the train world (default 220)"
    )
    parser.add_argument("--seed", type=int, help="seed of synthesis and training (default 0)")
    parser.add_argument(
        "--auto-accept-sound",
        action="store_true",
        help="gate: accept every task the funnel found sound, recording that no human looked",
    )
    parser.add_argument("--model", help="the base model: smollm2 (default), tiny or a directory")
    parser.add_argument("--config", metavar="YAML", help="a loop config with every knob")
    parser.add_argument("--corpus", metavar="DIR", help="corpus directory with its BM25 index")
    parser.add_argument(
        "--print-config", action="store_true", help="print the resolved config and exit"
    )
    parser.set_defaults(func=guarded(_loop))


def _loop(args: argparse.Namespace) -> int:
    directory = Path(args.out)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--out {directory}: not a directory")
    try:
        saved = read_loop_config(directory)
        asked = parse_loop_config(_asked(args, saved))
    except LoopError as error:
        raise UsageError(str(error)) from None
    if saved is not None:
        changed = changed_fields(saved, asked)
        if changed == ["gate"] and _gate_open(directory):
            changed = []  # still waiting on the gate: its mode may be chosen now
        if changed:
            raise UsageError(
                f"{directory} holds a loop started with other settings ({', '.join(changed)}); "
                "use another --out, or the same options (only --minutes may change)"
            )
    if args.print_config:
        sys.stdout.write(render_loop_config(asked))
        return 0
    corpus = _corpus(args, directory)
    started = time.monotonic()
    try:
        state = run_loop(directory, asked, corpus, say=say)
    except LoopStopped as stopped:
        say(f"loop stopped at {stopped.stage}: {stopped.reason}")
        if stopped.waiting:
            return WAITING
        raise UsageError(f"{stopped.stage}: {stopped.reason}") from None
    report = directory / "report.json"
    say(f"loop: done in {(time.monotonic() - started) / 60:.1f} min this run; see {report}")
    summary = json.loads(report.read_text(encoding="utf-8"))
    emit(
        {
            "report": str(report),
            "models": summary["models"],
            "difference": summary["difference"],
            "bar_met": summary["bar_met"],
            "active_minutes": round(state.active_s / 60, 1),
        }
    )
    return 0


def _gate_open(directory: Path) -> bool:
    return LoopState.load(directory).stages["gate"].status != "done"


def _asked(args: argparse.Namespace, saved: Any) -> dict[str, Any]:
    """The config these options ask for: the --config file's, else the saved one's, else the
    defaults, with each given option on top."""
    data: dict[str, Any] = {}
    if args.config:
        try:
            loaded = load_yaml(Path(args.config).read_text(encoding="utf-8"))
        except yaml.YAMLError as error:
            raise UsageError(f"--config {args.config}: not a loop config: {error}") from None
        if not isinstance(loaded, dict):
            raise UsageError(f"--config {args.config}: not a mapping of fields")
        data = loaded
    elif saved is not None:
        data = saved.model_dump(mode="json")
    if args.minutes is not None:
        data["minutes"] = args.minutes
    if args.seed is not None:
        data["seed"] = args.seed
    if args.model is not None:
        data["model"] = args.model
    if args.tasks is not None:
        data["synth"] = {**data.get("synth", {}), "tasks": args.tasks}
    if args.auto_accept_sound:
        data["gate"] = "auto-accept-sound"
    return data


def _corpus(args: argparse.Namespace, directory: Path) -> Path:
    chosen = args.corpus or os.environ.get("QUESTWEB_CORPUS_DIR")
    if chosen:
        path = Path(chosen)
        if not (path / BM25).is_dir():
            raise UsageError(f"--corpus {path}: no BM25 index (python -m quest corpus index)")
        return path
    path = directory / "corpus"
    if not (path / BM25).is_dir():
        say(f"corpus: building the offline corpus and its BM25 index into {path}")
        corpus_write(path, load_offline())
        bm25_build(path)
    return path
