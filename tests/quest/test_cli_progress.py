"""The one progress reporter of the CLIs: plain stamped lines in a log, a live bar on a terminal,
and the same final line in both."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from quest.cli import progress

STAMP = r"\[\d\d:\d\d:\d\d\] "


def _console(monkeypatch: pytest.MonkeyPatch, *, terminal: bool) -> io.StringIO:
    out = io.StringIO()
    console = Console(
        file=out, force_terminal=terminal, markup=False, emoji=False, highlight=False, width=100
    )
    monkeypatch.setattr(progress, "console", console)
    return out


def test_a_line_is_stamped_and_shown_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    out = _console(monkeypatch, terminal=False)
    progress.say("corpus [bold]x[/bold] :smile: ready")
    assert re.fullmatch(STAMP + r"corpus \[bold\]x\[/bold\] :smile: ready\n", out.getvalue())


def test_a_counted_step_in_a_log_prints_the_total_and_passes_every_item_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = _console(monkeypatch, terminal=False)
    monkeypatch.setattr(progress, "PROGRESS_SECONDS", 0.0)
    items = list(progress.counted(iter(range(3)), "sft", "rollouts"))
    assert items == [0, 1, 2]
    lines = out.getvalue().splitlines()
    # a line at every item (the interval is 0 here), then the total
    assert [re.sub(STAMP, "", line) for line in lines] == [
        "sft: 1 rollouts read",
        "sft: 2 rollouts read",
        "sft: 3 rollouts read",
        "sft: 3 rollouts read",
    ]
    assert "\x1b[" not in out.getvalue()  # no escape codes in a log


def test_a_fraction_in_a_log_prints_every_five_percent(monkeypatch: pytest.MonkeyPatch) -> None:
    out = _console(monkeypatch, terminal=False)
    report = progress.Fraction("dense", "passages embedded")
    for done in range(0, 1001, 10):
        report(done, 1000)
    lines = [re.sub(STAMP, "", line) for line in out.getvalue().splitlines()]
    assert len(lines) == 21  # 0 %, 5 %, …, 100 %
    assert lines[0] == "dense: 0/1,000 passages embedded"
    assert lines[-1] == "dense: 1,000/1,000 passages embedded"


def test_on_a_terminal_a_bar_runs_and_the_total_stays_as_a_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = _console(monkeypatch, terminal=True)
    report = progress.Fraction("dense", "passages embedded")
    for done in (0, 500, 1000):
        report(done, 1000)
    assert list(progress.counted(iter("ab"), "wiki", "pages")) == ["a", "b"]
    text = out.getvalue()
    assert "\x1b[" in text  # the live bar drew on the terminal
    assert re.search(STAMP + r"dense: 1,000/1,000 passages embedded", text)
    assert re.search(STAMP + r"wiki: 2 pages read", text)
