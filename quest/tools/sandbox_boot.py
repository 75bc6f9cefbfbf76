"""The first code the PythonInterpreter's child process runs (`python -I -S -B sandbox_boot.py
LIMITS_JSON`, the user's code on stdin). It sets resource limits, then installs an audit hook
(PEP 578) and runs the code in a fresh `__main__` module. Standard library only: it runs as a
script, outside the package.

The kernel enforces the resource limits (address space, CPU seconds, file size, open files) and
the parent process enforces the wall-clock limit; neither depends on the hook. The hook is best
effort, not a security boundary. It refuses:
- processes: fork, exec, posix_spawn, system, subprocess (and its private fork_exec, which
  raises no audit event), and signals to other processes (os.kill, os.killpg);
- network: creating sockets and name lookups;
- native code and introspection: ctypes (importing `_ctypes`, dlopen), raising resource limits,
  gc's object walks, replacing a function's code;
- files: writing, creating, removing, renaming or chmod-ing anything outside the working
  directory; reading anything outside it, the interpreter's library paths, the time-zone data
  and /dev/null, zero and (u)random; symlinks and hard links.
Known gaps: code that rebinds the standard library's internals (posixpath, which resolves the
paths the file rules compare) can get around the file rules. Packages that need ctypes (sympy,
with site_packages on) cannot be imported. RLIMIT_NPROC is not used: it counts threads and does
not bind root. For real isolation run the worker in a container or a user namespace without
network.
"""

from __future__ import annotations

import builtins
import io
import json
import linecache
import os
import resource
import sys
import traceback
import types
from collections.abc import Callable
from typing import NoReturn, TypeGuard

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
_PROCESS = {"os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.system", "os.spawn"}
_PROCESS |= {"subprocess.Popen", "os.kill", "os.killpg"}
_NETWORK = {"socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo"}
_NETWORK |= {"socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo"}
_NETWORK |= {"socket.sendto", "socket.sendmsg", "socket.sethostname"}
_NATIVE = {"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "resource.setrlimit"}
_NATIVE |= {"resource.prlimit", "os.symlink", "os.link"}
# Reaching the hook's own objects (to rebind what it closed over) goes through these.
_NATIVE |= {"gc.get_objects", "gc.get_referrers", "gc.get_referents"}
_BLOCKED = frozenset(_PROCESS | _NETWORK | _NATIVE)
_BLOCKED_IMPORTS = frozenset({"_ctypes", "_posixsubprocess"})
_SETTERS = frozenset({"__code__"})
_CHANGES_PATH = frozenset(
    {"os.mkdir", "os.remove", "os.rmdir", "os.chmod", "os.chown", "os.utime", "os.truncate"}
    | {"os.setxattr", "os.removexattr", "shutil.rmtree"}
)


def main() -> int:
    limits = json.loads(sys.argv[1])
    code = sys.stdin.read()
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115  (lives as long as the run)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace", line_buffering=True)
    _limit(limits)
    _disarm_fork_exec()
    sys.addaudithook(_hook(os.path.realpath(os.getcwd())))
    return _run(code)


def _limit(limits: dict[str, int]) -> None:
    memory, cpu, file_size = limits["memory_bytes"], limits["cpu_s"], limits["file_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"], limits["open_files"]))


def _disarm_fork_exec() -> None:
    """`subprocess` stays importable, but its private fork_exec (which raises no audit event)
    refuses; re-importing `_posixsubprocess` is refused by the hook."""
    import _posixsubprocess
    import subprocess  # noqa: F401  (loaded now so that it binds the disarmed module)

    def refuse(*args: object) -> NoReturn:
        raise PermissionError("[sandbox] starting processes is not allowed")

    _posixsubprocess.fork_exec = refuse


def _readable_roots(workdir: str) -> tuple[str, ...]:
    roots = [*sys.path, sys.prefix, sys.base_prefix, sys.exec_prefix, workdir]
    roots += ["/usr/share/zoneinfo", "/etc/localtime", *_DEVICES]
    return tuple({os.path.realpath(root) for root in roots if root})


def _matcher(roots: tuple[str, ...]) -> Callable[[object], bool]:
    """Whether a path lies under one of `roots`, compared after resolving symlinks."""
    realpath, fsdecode, path_like, isinstance_, any_ = (
        os.path.realpath,
        os.fsdecode,
        os.PathLike,
        isinstance,
        any,
    )
    prefixes = tuple(root.rstrip("/") + "/" for root in roots)

    def is_path(value: object) -> TypeGuard[str | bytes | os.PathLike[str]]:
        return isinstance_(value, str | bytes | path_like)

    def under(path: object) -> bool:
        if isinstance_(path, int):
            return True  # an already open descriptor
        if not is_path(path):
            return False
        try:
            resolved = realpath(fsdecode(path))
        except ValueError:
            return False
        return resolved in roots or any_(resolved.startswith(prefix) for prefix in prefixes)

    return under


def _hook(workdir: str) -> Callable[[str, tuple[object, ...]], None]:
    """The audit hook. What it uses is bound here, once, so that code which later rebinds this
    module's globals, builtins or os functions does not change what the hook refuses (the
    standard library's own internals can still be rebound: see the module's docstring)."""
    may_read = _matcher(_readable_roots(workdir))
    may_write = _matcher((workdir, "/dev/null"))
    blocked, imports, changes, setters = _BLOCKED, _BLOCKED_IMPORTS, _CHANGES_PATH, _SETTERS
    denied, import_error, isinstance_, all_ = PermissionError, ImportError, isinstance, all
    write_flags = _WRITE_FLAGS

    def is_text(value: object) -> TypeGuard[str]:
        return isinstance_(value, str)

    def is_int(value: object) -> TypeGuard[int]:
        return isinstance_(value, int)

    def refuse(what: str) -> NoReturn:
        raise denied(f"[sandbox] {what} is not allowed")

    def check_open(path: object, mode: object = None, flags: object = None, *_: object) -> None:
        letters = mode.strip("rbt") if is_text(mode) else ""  # "w", "a", "x" or "+" remain
        writing = letters != "" or (is_int(flags) and flags & write_flags != 0)
        if writing and not may_write(path):
            refuse(f"writing {path!s:.200} (only the working directory is writable)")
        if not writing and not may_read(path):
            refuse(f"reading {path!s:.200} (outside the working directory and Python's library)")

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event in blocked:
            refuse(event)
        elif event == "import" and args and args[0] in imports:
            raise import_error(f"[sandbox] the module {args[0]} is not available")
        elif event == "open":
            check_open(*args)
        elif event in changes and args and not may_write(args[0]):
            refuse(f"{event} outside the working directory")
        elif event == "os.rename" and not all_(may_write(arg) for arg in args[:2]):
            refuse("renaming outside the working directory")
        elif event == "object.__setattr__" and args[1:2] and args[1] in setters:
            refuse(f"setting a function's {args[1]}")

    return hook


def _run(code: str) -> int:
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main  # `import __main__` reaches the code's module, not this one
    try:
        exec(compile(code, "<code>", "exec"), main.__dict__)
    except SystemExit as stop:
        return _exit_status(stop)
    except BaseException as error:
        _print_error(error)
        return 1
    finally:
        sys.stdout.flush()
    return 0


def _print_error(error: BaseException) -> None:
    """The traceback as the code's author would expect it, without the sandbox's own frames."""
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
