"""The one progress reporter of every subcommand, on rich: stdout carries the command's JSON,
stderr the progress.

On a terminal, a counted step is a live rich progress bar and a line is printed above it. In a
log or a pipe (a Celery worker, CI, a test), the same report is plain lines stamped with the
time, at most one every PROGRESS_SECONDS for a counted step (rich writes no escape codes there),
so a log shows how far the work got and how fast without filling up."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

PROGRESS_SECONDS = 2.0
T = TypeVar("T")

# Markup, emoji and highlighting off: a progress line holds paths, questions and model names,
# which are shown as they are written.
console = Console(stderr=True, markup=False, emoji=False, highlight=False, soft_wrap=True)


def say(line: str) -> None:
    """One progress line on stderr, stamped with the time."""
    console.print(f"[{time.strftime('%H:%M:%S')}] {line}")


def _bar(label: str, *, known: bool) -> Progress:
    bar = [BarColumn()] if known else []
    columns = [TextColumn(label), *bar, MofNCompleteColumn(), TimeElapsedColumn()]
    return Progress(*columns, console=console, transient=True)


def counted(items: Iterable[T], label: str, unit: str) -> Iterator[T]:
    """`items`, with how many were read so far (a live count on a terminal, else a line every
    PROGRESS_SECONDS) and one line for the total."""
    count = 0
    if console.is_terminal:
        with _bar(f"{label}: {unit}", known=False) as bar:
            task = bar.add_task(label, total=None)
            for item in items:
                count += 1
                bar.advance(task)
                yield item
    else:
        shown = time.monotonic()
        for item in items:
            count += 1
            if time.monotonic() - shown >= PROGRESS_SECONDS:
                shown = time.monotonic()
                say(f"{label}: {count:,} {unit} read")
            yield item
    say(f"{label}: {count:,} {unit} read")


class Fraction:
    """A `(done, total)` callback for a step whose size is known: a bar on a terminal, else a
    line at every 5 % (`dense: 1,280/10,070 passages embedded`); the last report is a line."""

    def __init__(self, label: str, what: str) -> None:
        self.label, self.what = label, what
        self.shown = -1
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, done: int, total: int) -> None:
        line = f"{self.label}: {done:,}/{total:,} {self.what}"
        if not console.is_terminal:
            step = done * 20 // total if total else 20
            if step != self.shown:
                self.shown = step
                say(line)
            return
        if self.bar is None or self.task is None:
            self.bar = _bar(self.label, known=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)
        if done >= total:
            self.bar.stop()
            self.bar = None
            say(line)
