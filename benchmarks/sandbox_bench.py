"""PythonInterpreter call cost: the bubblewrap jail against the unsandboxed child it replaced.

    .venv/bin/python benchmarks/sandbox_bench.py [--calls 30]

Both run the same small computation through the same boot script (`python -I -S -B
sandbox_boot.py LIMITS…`, the code on stdin), in a fresh process per call. The baseline is the
child as it ran before the jail: started straight from the worker in a throwaway temporary
directory, with a minimal environment. The sandboxed call is the tool itself (bwrap, its
namespaces, mounts and seccomp filter, then the same child). Calls alternate between the two so
that machine load hits both alike; seconds are wall-clock per call, from start to collected
output. Goal: the sandboxed median at most 1.5x the baseline's.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quest.tools import Limits, PythonInterpreter
from quest.tools.python_tool import boot_settings
from quest.tools.sandbox import BOOT, sandbox_status

CODE = "import statistics\nprint(statistics.fmean(x * x for x in range(1000)))\n"
EXPECTED = "332833.5"
WARMUP = 3
GOAL = 1.5


def unsandboxed() -> str:
    """One call the way the tool ran its child before the jail."""
    with tempfile.TemporaryDirectory(prefix="quest-python-") as workdir:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-B", str(BOOT), *boot_settings(Limits())],
            input=CODE.encode(),
            capture_output=True,
            cwd=workdir,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": workdir, "TMPDIR": workdir},
            start_new_session=True,
            check=True,
        )
    return done.stdout.decode()


def timed(call: Callable[[], str]) -> float:
    started = time.perf_counter()
    output = call()
    elapsed = time.perf_counter() - started
    if EXPECTED not in output:
        raise RuntimeError(f"the call printed {output!r}, not {EXPECTED}")
    return elapsed


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20, method="inclusive")[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=30, help="calls measured per variant")
    args = parser.parse_args()
    available, reason = sandbox_status()
    if not available:  # nothing to measure: the tool is off on this machine, and says so
        print(f"skipped: the sandbox is off here ({reason}); install bubblewrap to measure it")
        return 0
    tool = PythonInterpreter()
    variants: dict[str, Callable[[], str]] = {
        "unsandboxed child (baseline)": unsandboxed,
        "bwrap sandbox (the tool)": lambda: tool(CODE).text,
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for n in range(WARMUP + args.calls):
        for name, call in variants.items():
            elapsed = timed(call)
            if n >= WARMUP:
                samples[name].append(elapsed)
    baseline = statistics.median(samples["unsandboxed child (baseline)"])
    print(f"PythonInterpreter call, {args.calls} calls each, interleaved (ms per call)")
    print(f"{'variant':<30}  {'median':>7}  {'p95':>7}  {'vs baseline':>11}")
    for name, times in samples.items():
        median = statistics.median(times)
        print(
            f"{name:<30}  {median * 1000:>7.1f}  {p95(times) * 1000:>7.1f}  "
            f"{median / baseline:>10.2f}x"
        )
    ratio = statistics.median(samples["bwrap sandbox (the tool)"]) / baseline
    verdict = "met" if ratio <= GOAL else "MISSED"
    print(f"goal: sandboxed median <= {GOAL}x the baseline's: {verdict} ({ratio:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
