"""The jail the PythonInterpreter's child runs in: bubblewrap (`bwrap`, Debian's package
bubblewrap, 0.8 or newer), which puts the child in new user, mount, pid, network, ipc, uts and
cgroup namespaces. Inside it the child sees only, read-only, the Python installation, the shared
libraries (/usr/lib, /usr/lib64 and the /lib links), the time-zone data and its boot script;
a private tmpfs of `disk_bytes` is its working directory (/tmp), and a minimal /dev (null, zero,
random, urandom, tty). There is no /proc, no /sys, no project directory, no home, no host /tmp,
and no network but a loopback of its own. It runs as uid 65534 with no capabilities, cannot
create user namespaces (`--disable-userns`) and starts under the seccomp filter of seccomp.py.

The task limit: the code is one task and can start no other, neither a process (fork, clone,
posix_spawn) nor a thread (threading, a raw clone through ctypes), so the jail holds three host
tasks (bwrap, its pid 1, the interpreter) whatever the code does. The filter refuses them
because nothing else bounds threads here: see seccomp.py. Libraries that size thread pools to
the CPUs are told to use one (the environment below). Everything the code can touch therefore
lives and dies with the run.

Where bwrap is missing or cannot create the namespaces, the tool is off: `sandbox_status` says
why (the probe runs once per process and bwrap path), and nothing runs the code unsandboxed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from quest.tools.seccomp import seccomp_filter

BOOT = Path(__file__).with_name("sandbox_boot.py")
BOOT_INSIDE = "/sandbox/boot.py"
WORKDIR = "/tmp"
NOBODY = "65534"
_PROBE_TIMEOUT_S = 10.0
_LIBRARIES = ("/usr/lib", "/usr/lib64", "/usr/share/zoneinfo")
_LIBRARY_LINKS = ("/lib", "/lib64")
_ENVIRONMENT = {
    "PATH": os.defpath,
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": WORKDIR,
    "TMPDIR": WORKDIR,
    # The filter refuses threads, and OpenBLAS (numpy's) raises SIGINT when it cannot start
    # the pool it sizes to the CPUs: one thread each means no pool, for OpenMP and MKL too.
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",  # pyarrow's (pandas') jemalloc, likewise
}


def sandbox_status(bwrap: str = "bwrap") -> tuple[bool, str]:
    """Whether the jail works here, and if not, why: (True, "ok") or (False, reason)."""
    path = locate(bwrap)
    if path is None:
        return False, f"no executable {bwrap!r} was found (install the Debian package bubblewrap)"
    return _probe(path)


def locate(bwrap: str) -> str | None:
    """The bwrap executable: a path, or a name looked up on PATH."""
    return shutil.which(bwrap)


def interpreter(*, site_packages: bool) -> str:
    """The Python to run: the virtual environment's (bound with it) when its packages are
    wanted, else the base installation's, so that the environment stays outside the jail."""
    if site_packages:
        return sys.executable
    return os.path.realpath(str(getattr(sys, "_base_executable", sys.executable)))


def jail(bwrap: str, *, seccomp_fd: int, disk_bytes: int, site_packages: bool) -> list[str]:
    """The bwrap command line up to the interpreter's."""
    # New user, mount, pid, network, ipc, uts and cgroup namespaces; the user namespace asked
    # for outright (not "if possible"), as --disable-userns needs it, which stops the code
    # from creating namespaces of its own (the kernel's widest door for unprivileged code).
    command = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns"]
    # Killed with the worker; a session of its own, so no terminal the worker holds is reachable.
    command += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
    command += ["--uid", NOBODY, "--gid", NOBODY, "--cap-drop", "ALL", "--clearenv"]
    for name, value in _ENVIRONMENT.items():
        command += ["--setenv", name, value]
    # The working directory first: a tmpfs mounted later over /tmp would hide an environment
    # that lives under /tmp (a checkout in /tmp/ci binds /tmp/ci/.venv).
    command += ["--size", str(disk_bytes), "--tmpfs", WORKDIR]
    for path in _python_paths(site_packages=site_packages) + _LIBRARIES:
        command += ["--ro-bind-try", path, path]
    for path in _LIBRARY_LINKS:  # the same /lib links (or directories) as the host's
        if os.path.islink(path):
            command += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            command += ["--ro-bind", path, path]
    command += ["--ro-bind", str(BOOT), BOOT_INSIDE, "--dev", "/dev"]
    # Last, once every mount point exists: the jail's own root and /dev are tmpfs that would
    # otherwise take files without a size limit.
    command += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", WORKDIR]
    return [*command, "--seccomp", str(seccomp_fd), "--"]


@contextlib.contextmanager
def seccomp_pipe() -> Iterator[int]:
    """A pipe that holds the seccomp filter, for `jail(seccomp_fd=…)` and Popen's pass_fds;
    the filter is a few hundred bytes, far below a pipe's buffer, so writing cannot block."""
    program = seccomp_filter()
    if program is None:
        raise OSError(f"no seccomp filter for the {os.uname().machine} architecture")
    read, write = os.pipe()
    with open(write, "wb") as pipe:
        pipe.write(program)
    try:
        yield read
    finally:
        os.close(read)


def _python_paths(*, site_packages: bool) -> tuple[str, ...]:
    paths = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    if site_packages:
        paths.add(sys.prefix)
    return tuple(sorted(paths))


@functools.cache
def _probe(bwrap: str) -> tuple[bool, str]:
    """Starts the jail once with an empty program."""
    try:
        with seccomp_pipe() as fd:
            jailed = jail(bwrap, seccomp_fd=fd, disk_bytes=1 << 20, site_packages=False)
            done = subprocess.run(
                [*jailed, interpreter(site_packages=False), "-I", "-S", "-B", "-c", ""],
                check=False,
                env={},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                pass_fds=(fd,),
                timeout=_PROBE_TIMEOUT_S,
            )
    except subprocess.TimeoutExpired:
        return False, f"bwrap did not finish an empty run within {_PROBE_TIMEOUT_S:g} s"
    except OSError as error:
        return False, str(error)
    if done.returncode:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, said[-1] if said else f"bwrap exited with status {done.returncode}"
    return True, "ok"
