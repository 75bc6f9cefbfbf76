"""`PythonInterpreter(code)`: the code runs in a fresh child interpreter (`-I -S -B`: isolated,
standard library only, no bytecode written) inside a bubblewrap jail (sandbox.py: no network, no
host files but Python and its libraries, no new processes or threads, a private tmpfs as working
directory), with a wall-clock limit (the whole jail is killed) and CPU, memory, file-size and
open-file limits (sandbox_boot.py). Where the jail cannot be built the tool is off and says why;
it never runs code outside it."""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from quest.protocol.calls import code_from
from quest.protocol.results import MAX_TOOL_OUTPUT, ToolResult, failure, truncate
from quest.tools.sandbox import (
    BOOT_INSIDE,
    interpreter,
    jail,
    locate,
    sandbox_status,
    seccomp_pipe,
)

MAX_CODE_CHARS = 100_000
MAX_STREAM_BYTES = 32_000
_KILL_WAIT_S = 5.0
_SIGNALLED = 128


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    cpu_s: int = 10
    memory_bytes: int = 512 * 1024 * 1024
    file_bytes: int = 16 * 1024 * 1024
    open_files: int = 64
    disk_bytes: int = 64 * 1024 * 1024  # the working directory's tmpfs, all files together


@dataclass(frozen=True)
class Run:
    """What one run produced; `status` is bwrap's exit status: the code's own, 128 + N when a
    signal N killed the code, negative when a signal killed bwrap."""

    stdout: str
    stderr: str
    status: int
    timed_out: bool


class PythonInterpreter:
    name = "PythonInterpreter"

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        site_packages: bool = False,
        output_limit: int = MAX_TOOL_OUTPUT,
        bwrap: str = "bwrap",
    ) -> None:
        self.limits = limits or Limits()
        self.site_packages = site_packages
        self.output_limit = output_limit
        self.bwrap = bwrap

    def __call__(self, code: str) -> ToolResult:
        return self.run({"code": code})

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
        available, reason = sandbox_status(self.bwrap)
        if not available:
            message = f"the Python tool is off: bubblewrap (bwrap) is not available: {reason}"
            return failure(self.name, message)
        raw = arguments.get("code")
        if not isinstance(raw, str) or not code_from(raw).strip():
            return failure(self.name, "no code was given (send it inside <code>…</code>)")
        code = code_from(raw)
        if len(code) > MAX_CODE_CHARS:
            return failure(self.name, f"the code is longer than {MAX_CODE_CHARS:,} characters")
        try:
            return self.report(self.execute(code))
        except OSError as error:  # no process could be started (descriptors, memory)
            return failure(self.name, f"the interpreter could not start ({error.strerror})")

    def execute(self, code: str) -> Run:
        with seccomp_pipe() as seccomp_fd:
            process = subprocess.Popen(
                self._command(seccomp_fd),
                env={},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(seccomp_fd,),
                start_new_session=True,  # bwrap's group, killed as one; the jail dies with it
            )
        return self._collect(process, code)

    def report(self, run: Run) -> ToolResult:
        """stdout, stderr and what went wrong; stderr and the problem keep at least half of
        the output limit, so a long print cannot hide the traceback."""
        problem = self._problem(run)
        tail = "\n".join(
            ([f"stderr:\n{run.stderr}"] if run.stderr else [])
            + ([f"[{self.name}] {problem}"] if problem else [])
        )
        tail = truncate(tail, self.output_limit // 2) if run.stdout else tail
        head = f"stdout:\n{run.stdout}" if run.stdout else ""
        head = truncate(head, self.output_limit - len(tail) - 1) if head else ""
        text = "\n".join(part for part in (head, tail) if part)
        text = truncate(text or "Finished execution with no output.", self.output_limit)
        return ToolResult(text=text, ok=problem is None, error=problem)

    def _command(self, seccomp_fd: int) -> list[str]:
        python = interpreter(site_packages=self.site_packages)
        flags = ["-I", "-B"] if self.site_packages else ["-I", "-S", "-B"]
        return [*self._jail(seccomp_fd), python, *flags, BOOT_INSIDE, *boot_settings(self.limits)]

    def _jail(self, seccomp_fd: int) -> list[str]:
        return jail(
            locate(self.bwrap) or self.bwrap,
            seccomp_fd=seccomp_fd,
            disk_bytes=self.limits.disk_bytes,
            site_packages=self.site_packages,
        )

    def _collect(self, process: subprocess.Popen[bytes], code: str) -> Run:
        assert process.stdin and process.stdout and process.stderr
        readers = [_Reader(process.stdout), _Reader(process.stderr)]
        try:
            process.stdin.write(code.encode("utf-8", "surrogatepass"))
            process.stdin.close()
        except OSError:
            pass  # the child died before reading; its status says why
        timed_out = not _ends_within(process, self.limits.wall_s)
        if timed_out:
            _kill(process)
        else:
            process.wait()
        out, err = (reader.text() for reader in readers)
        return Run(stdout=out, stderr=err, status=process.returncode, timed_out=timed_out)

    def _problem(self, run: Run) -> str | None:
        if run.timed_out:
            return f"Killed: the code ran past the {self.limits.wall_s:g} s time limit."
        if run.status < 0:
            return f"Killed by {_signal_name(-run.status)}."
        if run.status > _SIGNALLED:  # bwrap reports a child killed by signal N as 128 + N
            return f"Killed by {_signal_name(run.status - _SIGNALLED)}."
        if run.status:
            return f"The code exited with status {run.status}."
        return None


def boot_settings(limits: Limits) -> list[str]:
    """sandbox_boot.py's arguments: the kernel limits it sets, as `name=value`."""
    cpu = max(1, min(limits.cpu_s, math.ceil(limits.wall_s) + 1))  # SIGXCPU before the kill
    settings = {
        "memory_bytes": limits.memory_bytes,
        "cpu_s": cpu,
        "file_bytes": limits.file_bytes,
        "open_files": limits.open_files,
    }
    return [f"{name}={value}" for name, value in settings.items()]


class _Reader:
    """Drains a pipe in a thread, keeping the first MAX_STREAM_BYTES (a child that prints
    forever must not fill the worker's memory)."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self.pipe = pipe
        self.kept = bytearray()
        self.dropped = 0
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while chunk := os.read(self.pipe.fileno(), 65_536):
            room = MAX_STREAM_BYTES - len(self.kept)
            self.kept.extend(chunk[:room])
            self.dropped += max(len(chunk) - room, 0)

    def text(self) -> str:
        self.thread.join(_KILL_WAIT_S)
        self.pipe.close()
        text = self.kept.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped:,} more bytes not shown]"
        return text


def _ends_within(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether the process ends within `seconds`, woken by its pidfd the moment it does
    (Popen.wait with a timeout polls, adding up to 50 ms to every call)."""
    pidfd = os.pidfd_open(process.pid)
    try:
        poller = select.poll()  # not select.select, which refuses descriptors past 1023
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(seconds * 1000))
    finally:
        os.close(pidfd)


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(_KILL_WAIT_S)


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    return f"{name} (the CPU time limit)" if number == signal.SIGXCPU else name
