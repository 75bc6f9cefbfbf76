from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from quest.tools import Limits, PythonInterpreter

QUICK_KILL = Limits(wall_s=1.0)


@pytest.fixture(scope="module")
def python() -> PythonInterpreter:
    return PythonInterpreter()


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


def test_a_huge_allocation_is_stopped_by_the_memory_limit(python: PythonInterpreter) -> None:
    result = python("data = bytearray(10**10)\nprint('allocated')")

    assert "MemoryError" in result.text
    assert "allocated" not in result.text


def test_a_file_cannot_grow_past_the_size_limit() -> None:
    tool = PythonInterpreter(Limits(file_bytes=1_000))

    result = tool("with open('big.bin', 'wb') as f:\n    f.write(b'x' * 5_000)")

    assert "OSError: [Errno 27] File too large" in result.text


@pytest.mark.parametrize(
    ("code", "refusal"),
    [
        ("import os\nos.fork()", "os.fork is not allowed"),
        ("import os\nos.system('echo hi')", "os.system is not allowed"),
        ("import os\nos.execv('/bin/echo', ['echo'])", "os.exec is not allowed"),
        ("import subprocess\nsubprocess.run(['echo', 'hi'])", "subprocess.Popen is not allowed"),
        (
            "import _posixsubprocess\n_posixsubprocess.fork_exec()",
            "starting processes is not allowed",
        ),
        ("import multiprocessing\nmultiprocessing.Pool(2)", "os.fork is not allowed"),
        ("import pty\npty.fork()", "is not allowed"),
    ],
)
def test_starting_processes_is_refused(python: PythonInterpreter, code: str, refusal: str) -> None:
    result = python(code + "\nprint('escaped')")

    assert refusal in result.text
    assert "escaped" not in result.text
    assert "hi\n" not in result.text


@pytest.mark.parametrize(
    ("code", "refusal"),
    [
        (
            "import socket\nsocket.create_connection(('127.0.0.1', 6379))",
            "socket.getaddrinfo is not allowed",
        ),
        (
            "import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 6379))",
            "socket.__new__ is not allowed",
        ),
        ("import socket\nsocket.gethostbyname('example.org')", "is not allowed"),
        ("import urllib.request\nurllib.request.urlopen('http://127.0.0.1:8000/')", "not allowed"),
    ],
)
def test_network_access_is_refused(python: PythonInterpreter, code: str, refusal: str) -> None:
    result = python(code + "\nprint('connected')")

    assert refusal in result.text
    assert "connected" not in result.text


def test_the_code_cannot_signal_the_process_that_runs_it(python: PythonInterpreter) -> None:
    result = python("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")

    assert "os.kill is not allowed" in result.text
    assert python("print('still here')").text == "stdout:\nstill here\n"


@pytest.mark.parametrize(
    ("code", "refusal"),
    [
        ("import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))", "not allowed"),
        ("import ctypes", "the module _ctypes is not available"),
        (
            "import importlib.machinery as m, importlib.util as u, _posixsubprocess as p\n"
            "loader = m.ExtensionFileLoader('_posixsubprocess', p.__file__)\n"
            "u.module_from_spec(u.spec_from_loader('_posixsubprocess', loader))",
            "the module _posixsubprocess is not available",
        ),
        ("import os\nos.symlink('/', 'root')", "os.symlink is not allowed"),
    ],
)
def test_escape_hatches_are_refused(python: PythonInterpreter, code: str, refusal: str) -> None:
    assert refusal in python(code).text


@pytest.mark.parametrize(
    "code",
    [
        "import __main__\n__main__._BLOCKED = frozenset()\nimport os\nos.fork()",
        "import sys\nsys._getframe(1).f_globals['_BLOCKED'] = frozenset()\nimport os\nos.fork()",
        "import builtins\nbuiltins.isinstance = lambda *a: True\nimport os\nos.fork()",
        "import gc\ngc.get_objects()",
    ],
)
def test_rebinding_the_sandboxs_names_does_not_lift_its_refusals(
    python: PythonInterpreter, code: str
) -> None:
    result = python(code + "\nprint('lifted')")

    assert "is not allowed" in result.text
    assert "lifted" not in result.text


def test_files_are_written_in_a_working_directory_removed_afterwards(
    python: PythonInterpreter,
) -> None:
    code = "import os\nopen('notes.txt', 'w').write('kept?')\nprint(os.getcwd(), os.listdir())"

    result = python(code)

    workdir, listing = result.text.removeprefix("stdout:\n").split(" ", 1)
    assert listing.strip() == "['notes.txt']"
    assert Path(workdir).parent == Path(tempfile.gettempdir())
    assert not Path(workdir).exists()


def test_each_run_gets_a_fresh_working_directory(python: PythonInterpreter) -> None:
    python("open('left-behind.txt', 'w').write('x')")

    assert python("import os\nprint(os.listdir())").text == "stdout:\n[]\n"


def test_writing_outside_the_working_directory_is_refused(
    python: PythonInterpreter, tmp_path: Path
) -> None:
    target = tmp_path / "escape.txt"

    result = python(f"open({str(target)!r}, 'w').write('x')")

    assert f"writing {target} (only the working directory is writable) is not allowed" in (
        result.text
    )
    assert not target.exists()


def test_deleting_outside_the_working_directory_is_refused(
    python: PythonInterpreter, tmp_path: Path
) -> None:
    victim = tmp_path / "keep.txt"
    victim.write_text("precious")

    result = python(f"import os\nos.remove({str(victim)!r})")

    assert "os.remove outside the working directory is not allowed" in result.text
    assert victim.read_text() == "precious"


@pytest.mark.parametrize(
    "path",
    [
        str(Path(__file__).resolve()),
        "/proc/self/root" + str(Path(__file__).resolve()),
        "/proc/1/environ",
        "../../../../../../etc/hostname",
    ],
)
def test_reading_files_outside_python_and_the_working_directory_is_refused(
    python: PythonInterpreter, path: str
) -> None:
    result = python(f"print(open({path!r}).read())")

    assert "is not allowed" in result.text


def test_the_workers_environment_and_its_secrets_are_not_inherited(
    python: PythonInterpreter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JINA_API_KEY", "jina-secret-value")

    result = python("import os\nprint(sorted(os.environ))")

    assert "JINA_API_KEY" not in result.text
    assert "jina-secret-value" not in result.text
    assert os.environ["JINA_API_KEY"] == "jina-secret-value"


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
