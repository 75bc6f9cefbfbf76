"""The first code the PythonInterpreter's child runs, inside the bubblewrap jail of sandbox.py
(`python -I -S -B /sandbox/boot.py memory_bytes=N cpu_s=N …`, the user's code on stdin). It
sets the resource limits, then runs the code in a fresh `__main__` module and prints its
traceback without this file's frames. Standard library only: it runs as a script, outside the
package. Every call pays its start-up, so it imports little: no json, and traceback and
linecache only to print an error (a traceback the code prints itself shows no source lines).

The limits are the kernel's: address space, CPU seconds, file size, open files, no core files.
The hard limits are the soft ones (CPU: one second more, so that SIGKILL follows SIGXCPU) and
the jail holds no capabilities, so the code cannot raise them. This file refuses nothing else:
which files exist, the network and new processes are the jail's business (sandbox.py,
seccomp.py), not an in-process check that the code could rebind.
"""

from __future__ import annotations

import builtins
import io
import os
import resource
import sys
import types


def main() -> int:
    limits = {name: int(value) for name, value in (arg.split("=") for arg in sys.argv[1:])}
    code = sys.stdin.read()
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115  (lives as long as the run)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace", line_buffering=True)
    _limit(limits)
    return _run(code)


def _limit(limits: dict[str, int]) -> None:
    memory, cpu, file_size = limits["memory_bytes"], limits["cpu_s"], limits["file_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"], limits["open_files"]))


def _run(code: str) -> int:
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main  # `import __main__` reaches the code's module, not this one
    try:
        exec(compile(code, "<code>", "exec"), main.__dict__)
    except SystemExit as stop:
        return _exit_status(stop)
    except BaseException as error:
        _print_error(error, code)
        return 1
    finally:
        sys.stdout.flush()
    return 0


def _print_error(error: BaseException, code: str) -> None:
    """The traceback as the code's author would expect it, without the boot script's frames."""
    import linecache
    import traceback

    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    report = traceback.TracebackException.from_exception(error)
    seen: set[int] = set()
    pending = [report]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        frames = [frame for frame in current.stack if frame.filename != __file__]
        current.stack = traceback.StackSummary.from_list(frames)
        pending += [linked for linked in (current.__cause__, current.__context__) if linked]
    sys.stderr.writelines(report.format())


def _exit_status(stop: SystemExit) -> int:
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
