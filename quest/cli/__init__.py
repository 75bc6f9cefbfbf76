"""`quest` (or `python -m quest`): one command line for the engine, one subcommand per engine area.

Each area module exposes `register(subparsers)`, which adds its subcommand and sets `func` on the
parsed namespace. `func(args)` returns the process exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from quest import __version__

# Area modules that contribute subcommands, imported when the parser is built rather than when
# quest.cli is: `from quest.cli.common import …` or one area's tests load that area alone.
AREAS: tuple[str, ...] = (
    "quest.cli.rubric",
    "quest.cli.corpus",
    "quest.cli.search",
    "quest.cli.llm",
    "quest.cli.agent",
    "quest.cli.synthesis",
    "quest.cli.training",
    "quest.cli.loop",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quest",
        description="questweb engine: rubric trees, search, agent, synthesis, training.",
    )
    parser.add_argument("--version", action="version", version=f"quest {__version__}")
    subparsers = parser.add_subparsers(title="subcommands", dest="command", metavar="COMMAND")
    for area in AREAS:
        importlib.import_module(area).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:2] == ["eval", "bench"]:  # public benchmarks: `quest eval bench --help`
        bench: int = importlib.import_module("quest.cli.bench").main(arguments[2:])
        return bench
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stdout)
        return 0
    code: int = args.func(args)
    return code
