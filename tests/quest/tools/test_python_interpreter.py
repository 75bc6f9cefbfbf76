"""The PythonInterpreter in its bubblewrap jail: what the code can do, its limits, and the tool
switching itself off where no jail can be built (escapes: test_python_sandbox.py)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from quest.tools import Limits, PythonInterpreter
from quest.tools.sandbox import sandbox_status

QUICK_KILL = Limits(wall_s=1.0)
REPO = Path(__file__).resolve().parents[3]


def test_the_sandbox_works_on_this_machine() -> None:
    assert sandbox_status() == (True, "ok")


def test_it_runs_code_and_shows_what_it_printed(python: PythonInterpreter) -> None:
    result = python("import math\nprint('area', round(math.pi * 2 ** 2, 3))")

    assert result.ok
    assert result.text == "stdout:\narea 12.566\n"


def test_code_inside_code_tags_or_a_markdown_fence_is_unwrapped(python: PythonInterpreter) -> None:
    assert python("<code>\nprint('tagged')\n</code>").text == "stdout:\ntagged\n"
    assert python("```python\nprint('fenced')\n```").text == "stdout:\nfenced\n"


def test_code_that_prints_nothing_says_so(python: PythonInterpreter) -> None:
    result = python("x = 1")

    assert result.ok
    assert result.text == "Finished execution with no output."


def test_the_standard_library_works_inside_the_sandbox(python: PythonInterpreter) -> None:
    code = (
        "import dataclasses, inspect, json, statistics, tempfile, zoneinfo\n"
        "from collections import namedtuple\n"
        "Point = namedtuple('Point', 'x y', defaults=[0])\n"
        "print(Point(1), statistics.median([3, 1, 2]), json.dumps({'a': 1}))\n"
        "print(zoneinfo.ZoneInfo('Europe/Paris').key, tempfile.mkstemp()[1].count('/') > 1)"
    )

    result = python(code)

    assert result.text == 'stdout:\nPoint(x=1, y=0) 2 {"a": 1}\nEurope/Paris True\n'


def test_installed_packages_are_importable_only_when_site_packages_is_on() -> None:
    code = "import httpx\nprint(httpx.__name__)"

    assert PythonInterpreter(site_packages=True)(code).text == "stdout:\nhttpx\n"
    assert "ModuleNotFoundError: No module named 'httpx'" in PythonInterpreter()(code).text


def test_an_exception_shows_the_traceback_of_the_code_only(python: PythonInterpreter) -> None:
    result = python("def ratio(a, b):\n    return a / b\n\nprint(ratio(1, 0))")

    assert not result.ok
    assert 'File "<code>", line 4, in <module>' in result.text
    assert "    return a / b" in result.text
    assert "ZeroDivisionError: division by zero" in result.text
    assert "sandbox_boot" not in result.text
    assert result.error == "The code exited with status 1."


def test_a_syntax_error_is_reported(python: PythonInterpreter) -> None:
    result = python("def broken(:\n    pass")

    assert "SyntaxError" in result.text


def test_an_exit_status_is_reported(python: PythonInterpreter) -> None:
    result = python("import sys\nsys.exit(3)")

    assert result.error == "The code exited with status 3."


def test_an_infinite_loop_is_killed_at_the_time_limit() -> None:
    result = PythonInterpreter(QUICK_KILL)("while True:\n    pass")

    assert not result.ok
    assert result.text == "[PythonInterpreter] Killed: the code ran past the 1 s time limit."


def test_a_busy_loop_is_stopped_by_the_cpu_limit_before_the_wall_clock_one() -> None:
    result = PythonInterpreter(Limits(wall_s=20.0, cpu_s=1))("while True:\n    pass")

    assert result.error == "Killed by SIGXCPU (the CPU time limit)."


def test_a_sleeping_program_is_killed_and_its_earlier_output_kept() -> None:
    result = PythonInterpreter(QUICK_KILL)("import time\nprint('started')\ntime.sleep(60)")

    assert result.text.startswith("stdout:\nstarted\n")
    assert result.text.endswith("Killed: the code ran past the 1 s time limit.")


def test_a_killed_run_leaves_no_process_behind() -> None:
    marker = 512 * 1024 * 1024 + os.getpid()  # the memory limit is on the child's command line
    tool = PythonInterpreter(Limits(wall_s=1.0, memory_bytes=marker))

    result = tool("import time\ntime.sleep(60)")

    assert result.error == "Killed: the code ran past the 1 s time limit."
    deadline = time.monotonic() + 5
    while _processes_mentioning(str(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _processes_mentioning(str(marker))


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:  # not a process, or one that just ended
            continue
        if text.encode() in command and entry.name != "self":
            found.append(int(entry.name))
    return found


def test_a_huge_allocation_is_stopped_by_the_memory_limit(python: PythonInterpreter) -> None:
    result = python("data = bytearray(10**10)\nprint('allocated')")

    assert "MemoryError" in result.text
    assert "allocated" not in result.text


def test_a_file_cannot_grow_past_the_size_limit() -> None:
    tool = PythonInterpreter(Limits(file_bytes=1_000))

    result = tool("with open('big.bin', 'wb') as f:\n    f.write(b'x' * 5_000)")

    assert "OSError: [Errno 27] File too large" in result.text


def test_a_legitimate_computation_returns_its_output(python: PythonInterpreter) -> None:
    code = (
        "import math, statistics\n"
        "data = [2.5, 3.5, 1.0, 4.0, 9.0]\n"
        "print(statistics.mean(data), statistics.median(data), round(statistics.stdev(data), 4))\n"
        "print(math.comb(10, 3), sum(x * x for x in data))"
    )

    result = python(code)

    assert result.ok
    assert result.text == "stdout:\n4.0 3.5 3.0208\n120 116.5\n"


def test_long_output_is_cut_with_a_marker_and_the_traceback_survives() -> None:
    tool = PythonInterpreter(output_limit=2_000)

    result = tool("for n in range(100_000):\n    print(n)\nraise ValueError('at the end')")

    assert len(result.text) <= 2_000
    assert result.text.startswith("stdout:\n0\n1\n2\n")
    assert "[... output truncated:" in result.text
    assert "ValueError: at the end" in result.text


def test_output_is_capped_at_twelve_thousand_characters_by_default(
    python: PythonInterpreter,
) -> None:
    result = python("print('x' * 1_000_000)")

    assert len(result.text) <= 12_000
    assert "[... output truncated:" in result.text


def test_missing_or_oversized_code_is_refused_without_running(python: PythonInterpreter) -> None:
    assert python.run({}).error == "no code was given (send it inside <code>…</code>)"
    assert python("<code>  </code>").error == "no code was given (send it inside <code>…</code>)"
    assert python("x = 1\n" * 50_000).error == "the code is longer than 100,000 characters"


def test_without_bwrap_the_tool_is_off_and_says_why() -> None:
    tool = PythonInterpreter(bwrap="/nonexistent/bwrap")

    result = tool("print('ran')")

    assert not result.ok
    assert result.text == (
        "[PythonInterpreter] Error: the Python tool is off: bubblewrap (bwrap) is not "
        "available: no executable '/nonexistent/bwrap' was found (install the Debian package "
        "bubblewrap)"
    )


def test_a_bwrap_that_cannot_build_the_jail_turns_the_tool_off() -> None:
    false = shutil.which("false")
    assert false is not None

    result = PythonInterpreter(bwrap=false)("print('ran')")

    assert result.error == (
        "the Python tool is off: bubblewrap (bwrap) is not available: bwrap exited with status 1"
    )
