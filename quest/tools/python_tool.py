"""`PythonInterpreter(code)`: the code runs in a fresh child interpreter (`-I -S -B`: isolated,
standard library only, no bytecode written) in a throwaway working directory, with a wall-clock
limit (the child is killed), CPU, memory, file-size and open-file limits, a minimal environment
(no secrets inherited), and an audit hook that refuses processes, sockets and files outside the
working directory; sandbox_boot.py says exactly what it blocks and why it is best effort."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from quest.tools.arguments import code_from
from quest.tools.results import MAX_TOOL_OUTPUT, ToolResult, failure, truncate

BOOT = Path(__file__).with_name("sandbox_boot.py")
MAX_CODE_CHARS = 100_000
MAX_STREAM_BYTES = 32_000
_KILL_WAIT_S = 5.0


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    cpu_s: int = 10
    memory_bytes: int = 512 * 1024 * 1024
    file_bytes: int = 16 * 1024 * 1024
    open_files: int = 64


@dataclass(frozen=True)
class Run:
    """What one child run produced; `status` is the exit status, negative for a signal."""

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
    ) -> None:
        self.limits = limits or Limits()
        self.site_packages = site_packages
        self.output_limit = output_limit

    def __call__(self, code: str) -> ToolResult:
        return self.run({"code": code})

    def run(self, arguments: Mapping[str, object]) -> ToolResult:
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
        with tempfile.TemporaryDirectory(
            prefix="quest-python-", ignore_cleanup_errors=True
        ) as workdir:
            process = subprocess.Popen(
                self._command(),
                cwd=workdir,
                env=_environment(workdir),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, killed as one
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

    def _command(self) -> list[str]:
        limits = self.limits
        cpu = max(1, min(limits.cpu_s, math.ceil(limits.wall_s) + 1))
        boot_limits = {
            "memory_bytes": limits.memory_bytes,
            "cpu_s": cpu,
            "file_bytes": limits.file_bytes,
            "open_files": limits.open_files,
        }
        flags = ["-I", "-B"] if self.site_packages else ["-I", "-S", "-B"]
        return [sys.executable, *flags, str(BOOT), json.dumps(boot_limits)]

    def _collect(self, process: subprocess.Popen[bytes], code: str) -> Run:
        assert process.stdin and process.stdout and process.stderr
        readers = [_Reader(process.stdout), _Reader(process.stderr)]
        try:
            process.stdin.write(code.encode("utf-8", "surrogatepass"))
            process.stdin.close()
        except OSError:
            pass  # the child died before reading; its status says why
        timed_out = False
        try:
            process.wait(timeout=self.limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(process)
        out, err = (reader.text() for reader in readers)
        return Run(stdout=out, stderr=err, status=process.returncode, timed_out=timed_out)

    def _problem(self, run: Run) -> str | None:
        if run.timed_out:
            return f"Killed: the code ran past the {self.limits.wall_s:g} s time limit."
        if run.status < 0:
            return f"Killed by {_signal_name(-run.status)}."
        if run.status:
            return f"The code exited with status {run.status}."
        return None


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


def _environment(workdir: str) -> dict[str, str]:
    return {
        "PATH": os.defpath,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": workdir,
        "TMPDIR": workdir,
    }


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
