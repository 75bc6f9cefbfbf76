"""Model-written code trying to leave the bubblewrap jail: the escapes that beat the old
in-process audit hook, and the obvious ones (ctypes, os.open, sockets, /proc, forks, writes)."""

from __future__ import annotations

import errno
import os
import platform
import socket
import sys
from pathlib import Path

import pytest

from quest.tools import Limits, PythonInterpreter
from quest.tools.sandbox import BOOT_INSIDE
from quest.tools.seccomp import seccomp_filter

QUICK_KILL = Limits(wall_s=1.0)
REPO = Path(__file__).resolve().parents[3]


def _read_then_write(secret: Path, target: Path) -> str:
    return (
        f"try:\n    print(open({str(secret)!r}).read())\n"
        "except OSError as error:\n    print('read:', type(error).__name__)\n"
        f"try:\n    open({str(target)!r}, 'w').write('escaped')\n"
        "except OSError as error:\n    print('write:', type(error).__name__)\n"
    )


def _open_each(paths: list[str]) -> str:
    return (
        f"import os\nfor path in {paths!r}:\n"
        "    try:\n        os.open(path, os.O_RDONLY)\n        print('opened', path)\n"
        "    except OSError as error:\n        print(type(error).__name__)\n"
    )


def test_rebinding_posixpath_abspath_neither_reads_nor_writes_outside(
    python: PythonInterpreter, secret: Path, tmp_path: Path
) -> None:
    # The first known escape of the audit hook: its path rules resolved paths with posixpath.
    target = tmp_path / "escaped.txt"
    code = (
        "import os, posixpath\n"
        "posixpath.abspath = posixpath.realpath = lambda path: os.getcwd() + '/harmless'\n"
        + _read_then_write(secret, target)
    )

    result = python(code)

    assert result.text == "stdout:\nread: FileNotFoundError\nwrite: FileNotFoundError\n"
    assert secret.read_text() not in result.text
    assert not target.exists()


def test_rewriting_an_allow_list_through_a_traceback_neither_reads_nor_writes_outside(
    python: PythonInterpreter, secret: Path, tmp_path: Path
) -> None:
    # The second known escape: the hook's allow-lists lived in closures that a refusal's
    # traceback reached; every string collection in reach is widened to "/".
    target = tmp_path / "escaped.txt"
    code = (
        "def widen(frame):\n"
        "    while frame:\n"
        "        for value in list(frame.f_locals.values()):\n"
        "            for cell in getattr(value, '__closure__', None) or ():\n"
        "                kept = cell.cell_contents\n"
        "                if isinstance(kept, tuple | frozenset) and "
        "all(isinstance(item, str) for item in kept):\n"
        "                    cell.cell_contents = ('/',)\n"
        "        frame = frame.f_back\n"
        "try:\n"
        f"    open({str(secret)!r})\n"
        "except OSError as error:\n"
        "    trace = error.__traceback__\n"
        "    while trace:\n"
        "        widen(trace.tb_frame)\n"
        "        trace = trace.tb_next\n" + _read_then_write(secret, target)
    )

    result = python(code)

    assert result.text == "stdout:\nread: FileNotFoundError\nwrite: FileNotFoundError\n"
    assert secret.read_text() not in result.text
    assert not target.exists()


def test_ctypes_reaches_no_host_file_and_starts_no_process(
    python: PythonInterpreter, secret: Path
) -> None:
    code = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        f"print('open', libc.open({os.fsencode(secret)!r}, os.O_RDONLY), ctypes.get_errno())\n"
        "print('fork', libc.fork(), ctypes.get_errno())\n"
        "print('unshare', libc.unshare(0x10000000), ctypes.get_errno())\n"  # CLONE_NEWUSER
        "print('mount', libc.mount(b'proc', b'/tmp', b'proc', 0, None), ctypes.get_errno())\n"
        "print('setuid', libc.setuid(0), ctypes.get_errno())"
    )

    result = python(code)

    assert result.text == (
        f"stdout:\nopen -1 {errno.ENOENT}\nfork -1 {errno.EPERM}\nunshare -1 {errno.EPERM}\n"
        f"mount -1 {errno.EPERM}\nsetuid -1 {errno.EINVAL}\n"
    )


def test_no_host_file_can_be_opened(python: PythonInterpreter, secret: Path) -> None:
    paths = [
        str(secret),
        str(REPO / "pyproject.toml"),
        str(REPO / "var" / "secret_key"),
        str(Path(__file__).resolve()),
        "../../../../.." + str(REPO / "pyproject.toml"),
        "/etc/passwd",
    ]

    result = python(_open_each(paths))

    assert result.text == "stdout:\n" + "FileNotFoundError\n" * len(paths)
    assert secret.read_text() not in result.text


def test_the_projects_files_stay_out_of_reach_with_site_packages_on(secret: Path) -> None:
    paths = [str(REPO / "pyproject.toml"), str(secret)]
    code = _open_each(paths) + "import questweb"

    result = PythonInterpreter(site_packages=True)(code)

    assert result.text.startswith("stdout:\n" + "FileNotFoundError\n" * len(paths))
    assert "ModuleNotFoundError: No module named 'questweb'" in result.text


def test_proc_and_sys_are_not_there(python: PythonInterpreter, secret: Path) -> None:
    paths = [
        "/proc/self/environ",
        "/proc/1/environ",
        "/proc/self/root" + str(secret),
        "/proc/1/root" + str(secret),
        "/proc/self/cwd/../../.." + str(REPO / "pyproject.toml"),
        "/sys/class/net/lo/address",
    ]

    result = python(_open_each(paths))

    assert result.text == "stdout:\n" + "FileNotFoundError\n" * len(paths)


def test_no_connection_leaves_the_sandbox(python: PythonInterpreter) -> None:
    abstract = f"\0quest-sandbox-test-{os.getpid()}"
    with socket.create_server(("127.0.0.1", 0)) as tcp, socket.socket(socket.AF_UNIX) as unix:
        unix.bind(abstract)
        unix.listen()
        targets = [
            ("AF_INET", ("127.0.0.1", tcp.getsockname()[1])),
            ("AF_UNIX", abstract),
            ("AF_UNIX", "/var/run/postgresql/.s.PGSQL.5432"),
        ]
        code = (
            "import socket\n"
            f"for family, address in {targets!r}:\n"
            "    try:\n"
            "        socket.socket(getattr(socket, family)).connect(address)\n"
            "        print('connected')\n"
            "    except OSError as error:\n"
            "        print(type(error).__name__)\n"
            "try:\n"
            "    socket.getaddrinfo('example.org', 80)\n"
            "except OSError as error:\n"
            "    print(type(error).__name__)"
        )

        result = python(code)

    assert result.text == (
        "stdout:\nConnectionRefusedError\nConnectionRefusedError\nFileNotFoundError\ngaierror\n"
    )


@pytest.mark.parametrize(
    "code",
    [
        "import os\nwhile True:\n    os.fork()",
        "import os\nos.forkpty()",
        "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'print(1)'])",
        "import os, sys\nos.posix_spawn(sys.executable, [sys.executable, '-V'], {})",
        "import multiprocessing\nmultiprocessing.Process(target=print).start()",
    ],
)
def test_no_process_can_be_started_so_a_fork_bomb_ends_at_once(
    python: PythonInterpreter, code: str
) -> None:
    result = python(code + "\nprint('escaped')")

    assert "PermissionError: [Errno 1] Operation not permitted" in result.text
    assert "escaped" not in result.text
    assert result.error == "The code exited with status 1."  # it ended by itself, not killed
    assert python("print('still here')").text == "stdout:\nstill here\n"


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x32 system calls exist on x86_64")
def test_a_system_call_of_another_abi_kills_the_code(python: PythonInterpreter) -> None:
    # x32 numbers (bit 30 set) would slip past a filter that only knows x86_64's numbers.
    code = "import ctypes\nctypes.CDLL(None).syscall(0x40000000 | 57)  # x32 fork\nprint('forked')"

    result = python(code)

    assert result.error == "Killed by SIGSYS."
    assert "forked" not in result.text


def test_there_is_no_filter_for_an_architecture_it_has_no_table_for() -> None:
    assert seccomp_filter("riscv64") is None
    assert seccomp_filter("x86_64") != seccomp_filter("aarch64")


def test_the_code_runs_as_nobody_and_cannot_raise_its_limits(python: PythonInterpreter) -> None:
    code = (
        "import os, resource\n"
        "print(os.getuid(), os.getgid())\n"
        "resource.setrlimit(resource.RLIMIT_AS, (-1, -1))"
    )

    result = python(code)

    assert result.text.startswith("stdout:\n65534 65534\n")
    assert "ValueError: not allowed to raise maximum limit" in result.text


def test_the_code_cannot_see_or_signal_the_worker(python: PythonInterpreter) -> None:
    code = (
        "import os, signal\n"
        "print(os.getpid(), os.getppid())\n"
        "os.kill(os.getppid(), signal.SIGKILL)\n"
        f"os.kill({os.getpid()}, signal.SIGKILL)"
    )

    result = python(code)

    assert result.text.startswith("stdout:\n2 1\n")  # pid 2 in a pid namespace of its own
    assert "ProcessLookupError" in result.text
    assert python("print('still here')").text == "stdout:\nstill here\n"


def test_files_are_written_in_a_private_working_directory(python: PythonInterpreter) -> None:
    code = "import os\nopen('notes.txt', 'w').write('kept?')\nprint(os.getcwd(), os.listdir())"

    assert python(code).text == "stdout:\n/tmp ['notes.txt']\n"


def test_each_run_gets_a_fresh_working_directory(python: PythonInterpreter) -> None:
    python("open('left-behind.txt', 'w').write('x')")

    assert python("import os\nprint(os.listdir())").text == "stdout:\n[]\n"


def test_the_working_directory_is_bounded_as_a_whole() -> None:
    tool = PythonInterpreter(Limits(disk_bytes=1024 * 1024))
    code = "for n in range(4):\n    open(f'part{n}.bin', 'wb').write(b'x' * 500_000)"

    assert "OSError: [Errno 28] No space left on device" in tool(code).text


def test_nothing_outside_the_working_directory_can_be_written(
    python: PythonInterpreter, tmp_path: Path
) -> None:
    on_the_host = [
        tmp_path / "escaped.txt",
        REPO / "escaped.txt",
        Path(sys.base_prefix).resolve() / "escaped.txt",
    ]
    in_the_jail = ["/escaped.txt", "/dev/shm/escaped.txt", "/usr/lib/escaped.txt", BOOT_INSIDE]
    code = (
        f"for path in {[str(path) for path in on_the_host] + in_the_jail!r}:\n"
        "    try:\n"
        "        open(path, 'a').write('x')\n"
        "        print('wrote', path)\n"
        "    except OSError as error:\n"
        "        print(type(error).__name__)"
    )

    try:
        result = python(code)
        assert result.ok
        assert "wrote" not in result.text
        assert not [path for path in on_the_host if path.exists()]
    finally:
        for path in on_the_host:
            path.unlink(missing_ok=True)


def test_deleting_outside_the_working_directory_fails(
    python: PythonInterpreter, tmp_path: Path
) -> None:
    victim = tmp_path / "keep.txt"
    victim.write_text("precious")

    result = python(f"import os\nos.remove({str(victim)!r})")

    assert "FileNotFoundError" in result.text
    assert victim.read_text() == "precious"


def test_the_workers_environment_and_its_secrets_are_not_inherited(
    python: PythonInterpreter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JINA_API_KEY", "jina-secret-value")

    result = python("import os\nprint(sorted(os.environ))")

    assert "JINA_API_KEY" not in result.text
    assert "jina-secret-value" not in result.text
    assert os.environ["JINA_API_KEY"] == "jina-secret-value"
