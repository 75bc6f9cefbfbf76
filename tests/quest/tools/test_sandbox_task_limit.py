"""The Python tool's task limit: code in the jail starts no other task, process or thread,
however it asks, so a bomb ends at once, nothing hangs, and the host holds no more tasks than
the jail's own three (bwrap, its pid 1, the interpreter). Ordinary code still runs."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from quest.tools import PythonInterpreter
from quest.tools.sandbox import locate

# A missing bwrap would turn the tool off and every bomb "stopped"; only a machine without it
# that is not CI skips (CI installs bwrap, so there these tests must run and pass).
pytestmark = pytest.mark.skipif(
    locate("bwrap") is None and os.environ.get("CI") != "true",
    reason="bubblewrap (bwrap) is not installed here",
)

BOMB = 1000  # tasks each bomb asks for: plain on the host, far below its pid_max of 32,768
JAIL_TASKS = 3  # bwrap, its pid 1 and the interpreter
# Each bomb prints how many tasks it started, then holds them for a second so that the host's
# count can be read while they live; a second is the hold, not a limit anything is timed against.
HOLD = "import time\ntime.sleep(1)\n"
BOMBS = {
    "ctypes clone": (
        # A raw clone(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD) running
        # libc's sleep on a slice of one buffer: no stack the C library would have to allocate.
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]\n"
        "stack = 64 * 1024\n"
        f"stacks = ctypes.create_string_buffer(stack * {BOMB})\n"
        "sleep = ctypes.cast(libc.sleep, ctypes.c_void_p)\n"
        "started, error = 0, 0\n"
        f"for n in range({BOMB}):\n"
        "    if libc.clone(sleep, ctypes.addressof(stacks) + stack * (n + 1), 0x10F00, 2) < 0:\n"
        "        error = ctypes.get_errno()\n"
        "        break\n"
        "    started += 1\n"
        "print('started', started, os.strerror(error))\n"
    ),
    "threading": (
        "import threading, time\n"
        "started = 0\n"
        "try:\n"
        f"    for _ in range({BOMB}):\n"
        "        threading.Thread(target=time.sleep, args=(2,), daemon=True).start()\n"
        "        started += 1\n"
        "except RuntimeError as error:\n"
        "    print('started', started, error)\n"
    ),
    "os.fork": (
        "import os, time\n"
        "started = 0\n"
        "try:\n"
        f"    for _ in range({BOMB}):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(2)\n"
        "            os._exit(0)\n"
        "        started += 1\n"
        "except OSError as error:\n"
        "    print('started', started, error.strerror)\n"
    ),
}
REFUSALS = {
    "ctypes clone": "started 0 Operation not permitted",
    "threading": "started 0 can't start new thread",
    "os.fork": "started 0 Operation not permitted",
}


def _descendants(root: int) -> set[int]:
    """The processes descended from `root`, read from the host's /proc."""
    parents = _parents()
    found = set()
    for pid, parent in parents.items():
        ancestor = parent
        while ancestor not in (root, 0, 1) and ancestor in parents:
            ancestor = parents[ancestor]
        if ancestor == root:
            found.add(pid)
    return found


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError):
            after_name = (entry / "stat").read_text().rsplit(")", 1)[1]
            parents[int(entry.name)] = int(after_name.split()[1])
    return parents


def _tasks_under(root: int, before: set[int]) -> int:
    """The host's tasks (threads included) in the processes descended from `root` that were
    not there `before`: the jail's, read from the host's /proc. (The machine's whole count,
    /proc/loadavg, moves by dozens on a shared machine; and an earlier test's server process
    may still be a child of this one.)"""
    total = 0
    for pid in _descendants(root) - before:
        with contextlib.suppress(OSError):
            total += len(os.listdir(f"/proc/{pid}/task"))
    return total


@contextlib.contextmanager
def _peak_tasks_under_this_process() -> Iterator[list[int]]:
    """Samples `_tasks_under(this process)` until the block ends; yields [peak]."""
    peak = [0]
    done = threading.Event()
    before = _descendants(os.getpid())

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], _tasks_under(os.getpid(), before))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()


@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_a_task_bomb_starts_nothing_and_the_hosts_task_count_stays_put(
    python: PythonInterpreter, bomb: str
) -> None:
    before = _descendants(os.getpid())
    with _peak_tasks_under_this_process() as peak:
        result = python(BOMBS[bomb] + HOLD)

    assert 0 < peak[0] <= JAIL_TASKS  # the jail was seen, and held nothing but itself
    assert result.text == f"stdout:\n{REFUSALS[bomb]}\n"
    assert result.ok  # it ended by itself, neither hung nor killed
    assert _tasks_under(os.getpid(), before) == 0
    assert python("print('still here')").text == "stdout:\nstill here\n"


def test_a_thread_fails_as_python_says_and_the_code_carries_on(python: PythonInterpreter) -> None:
    code = (
        "import concurrent.futures, threading\n"
        "try:\n"
        "    threading.Thread(target=print, args=('in a thread',)).start()\n"
        "except RuntimeError as error:\n"
        "    print(error)\n"
        "with concurrent.futures.ThreadPoolExecutor() as pool:\n"
        "    pool.submit(print, 'in a pool')"
    )

    result = python(code)

    assert result.text.startswith("stdout:\ncan't start new thread\n")
    assert result.text.endswith(
        "RuntimeError: can't start new thread\n\n[PythonInterpreter] The code exited with status 1."
    )


def test_ordinary_code_still_runs(python: PythonInterpreter) -> None:
    code = (
        "import math, statistics, json, re, fractions\n"
        "print(math.comb(10, 3), statistics.mean([1, 2, 3, 4]))\n"
        "print(json.dumps({'a': re.findall(r'\\d+', 'x1y22')}), fractions.Fraction(3, 9))"
    )

    assert python(code).text == 'stdout:\n120 2.5\n{"a": ["1", "22"]} 1/3\n'


def test_numpy_imports_and_computes_single_threaded() -> None:
    pytest.importorskip("numpy")
    code = (
        "import numpy as np\n"
        "a = np.arange(1.0, 401.0).reshape(20, 20) + np.eye(20) * 1000\n"
        "print(round(float(np.linalg.solve(a, a @ np.ones(20)).sum()), 6))"
    )

    result = PythonInterpreter(site_packages=True)(code)

    assert result.text == "stdout:\n20.0\n"  # OpenBLAS started no pool, and said nothing


def test_pandas_imports_without_a_word_about_threads() -> None:
    pytest.importorskip("pandas")
    code = "import pandas as pd\nprint(pd.DataFrame({'a': [1, 2, 3]})['a'].sum())"

    assert PythonInterpreter(site_packages=True)(code).text == "stdout:\n6\n"
