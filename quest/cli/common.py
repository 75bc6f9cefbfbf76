"""What every subcommand shares: JSON on stdout, and one `error: …` line on stderr with exit
status 1 instead of a traceback."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from quest.corpus.model import CorpusError
from quest.search.hits import SearchError

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Arguments that make no sense together."""


def guarded(handler: Handler) -> Handler:
    """Run `handler`; any failure becomes one `error: …` line on stderr and exit status 1."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (CorpusError, SearchError, UsageError) as exc:
            return fail(str(exc))
        except OSError as exc:
            return fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        except Exception as exc:  # the CLI promises one line, never a traceback
            return fail(f"internal error: {type(exc).__name__}: {exc}")

    return run


def fail(message: str) -> int:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return 1


def emit(value: object) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
